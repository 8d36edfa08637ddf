"""scinum: transformers that read and fill the numbers of JSON-structured scientific records.

Public API (``import scinum``): :func:`load` and :class:`Model` (:mod:`scinum.fill`),
:class:`Regressor` (:mod:`scinum.estimator`, a scikit-learn estimator: ``scinum[baselines]``), the
registries ``scinum.encodings`` and ``scinum.heads`` (and ``scinum.datasets.builders``),
:class:`Dataset` / :class:`DatasetWriter` and the errors. Packages, bottom-up: ``util``,
``records``, ``tokens``, ``datasets``, ``heads``, ``encodings``, ``model``, ``fill``,
``train``, ``share``, ``analysis``, ``cli`` (``docs/architecture.md``).
"""

from __future__ import annotations

from .datasets.directory import Dataset, DatasetWriter
from .errors import CheckpointError, DatasetError, MalformedJSON, RecordError, ScinumError, ValueOutOfRange, VocabularyError
from .util.threads import short_spin_waits
from .util.version import __version__

short_spin_waits()  # before anything imports torch (none of the above does): CPU threads soon sleep while they wait

__all__ = [
    "__version__",
    "encodings",
    "heads",
    "load",
    "Model",
    "Regressor",
    "Dataset",
    "DatasetWriter",
    "ScinumError",
    "RecordError",
    "MalformedJSON",
    "VocabularyError",
    "ValueOutOfRange",
    "DatasetError",
    "CheckpointError",
]


def __getattr__(name: str):
    """Import torch-backed parts on first use, so builders' worker processes (which only need
    ``scinum.datasets``) never pay for importing torch."""
    import importlib

    if name in ("encodings", "heads"):
        return importlib.import_module(f".{name}", __name__)
    if name == "Model":
        return importlib.import_module(".fill.model", __name__).Model
    if name == "Regressor":  # needs scikit-learn (scinum[baselines]) and torch
        return importlib.import_module(".estimator", __name__).Regressor
    raise AttributeError(f"module 'scinum' has no attribute {name!r}")


def load(path, device: str = "cpu"):
    """Load a trained model: ``scinum.load("model.ckpt").fill(record, mask=[...])``.

    ``path``: a checkpoint file, a directory written by ``scinum export`` (or a Hub snapshot of
    one), or ``"hf://owner/name"`` to download one (needs ``scinum[hub]``). See
    :mod:`scinum.fill.model` and :mod:`scinum.share.export`.
    """
    from .fill.model import load as _load

    if isinstance(path, str) and path.startswith("hf://"):
        from .share.hub import download

        path = download(path)
    return _load(path, device=device)
