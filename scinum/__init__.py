"""scinum: transformers that read and fill the numbers of JSON-structured scientific records.

Public API (``import scinum``): see the README. Submodules: ``paths``, ``records``, ``codec``,
``normalize``, ``encodings``, ``datasets``.
"""
from __future__ import annotations

__version__ = "0.1.0"

from . import paths, records  # noqa: E402
from .errors import (CheckpointError, DatasetError, MalformedJSON, RecordError,  # noqa: E402
                     ScinumError, ValueOutOfRange, VocabularyError)
from .datasets import Dataset, DatasetWriter  # noqa: E402

__all__ = ["__version__", "encodings", "paths", "records", "Dataset", "DatasetWriter",
           "ScinumError", "RecordError", "MalformedJSON", "VocabularyError", "ValueOutOfRange",
           "DatasetError", "CheckpointError"]


def __getattr__(name: str):
    """Import torch-backed submodules on first use, so builders' worker processes (which only
    need ``scinum.datasets``) never pay for importing torch."""
    import importlib
    if name == "encodings":
        return importlib.import_module(".encodings", __name__)
    if name == "Regressor":  # needs scikit-learn (scinum[baselines]) and torch
        return importlib.import_module(".estimator", __name__).Regressor
    raise AttributeError(f"module 'scinum' has no attribute {name!r}")


def load(path, device: str = "cpu"):
    """Load a trained model: ``scinum.load("model.ckpt").fill(record, mask=[...])``.

    ``path``: a checkpoint file, a directory written by ``scinum export`` (or a Hub snapshot of
    one), or ``"hf://owner/name"`` to download one (needs ``scinum[hub]``). See
    :mod:`scinum.infer` and :mod:`scinum.export`.
    """
    from .infer import load as _load
    if isinstance(path, str) and path.startswith("hf://"):
        from .hub import download
        path = download(path)
    return _load(path, device=device)


__all__ += ["load", "Regressor"]
