"""Helpers that know nothing of records or models: atomic file writes, a quiet console,
worker processes that die with their parent, typed config sections, provenance (hashes, package
versions), CPU threads that soon sleep while they wait. Imports only :mod:`scinum.errors`."""
