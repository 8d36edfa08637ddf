"""Standard references beside scinum's models: train mean, persistence, ridge, boosted trees and
two oracles, fitted on a dataset's training split from the records' structure alone
(:mod:`scinum.baselines.features`). scikit-learn is optional (``pip install "scinum[baselines]"``).
Imports :mod:`scinum.datasets`, :mod:`scinum.records` and below; never the model."""

from .features import MAX_SLOTS, Slots, fit_slots, rows_of, targets_of
from .predict import KINDS, MAX_ROWS, predict_baselines, train_means
from .regressors import INSTALL_HINT

__all__ = [
    "MAX_SLOTS",
    "MAX_ROWS",
    "KINDS",
    "INSTALL_HINT",
    "Slots",
    "fit_slots",
    "rows_of",
    "targets_of",
    "predict_baselines",
    "train_means",
]
