"""Masked inference: :class:`~scinum.fill.model.Model` (:mod:`.model`), what it returns
(:mod:`.results`), records prepared for filling (:mod:`.jobs`), batching over the CPU
(:mod:`.batching`) and the recalibration of a trained head on validation data
(:mod:`.calibration`); for ``scinum.Regressor``, its members' ensemble (:mod:`.ensemble`) and
its predictions past the input range (:mod:`.past_range`). Imports :mod:`scinum.model`,
:mod:`scinum.datasets` and below."""
