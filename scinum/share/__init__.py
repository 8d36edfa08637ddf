"""Sharing a trained model: export directories (:mod:`.export`), model cards
(:mod:`.card`) and the Hugging Face Hub (:mod:`.hub`, optional). Imports :mod:`scinum.train`
and below."""
