"""The predictive distribution of an ensemble: the equal-weight mixture of its members' own.

Members are :class:`scinum.fill.model.Model` s trained on the same fields (``scinum.Regressor``
trains several with different seeds and validation rows: a deep ensemble, Lakshminarayanan et
al. 2017). For one record and one target, member ``i`` predicts a point ``vᵢ`` and, with a
mixture head, a distribution with mean ``μᵢ``, standard deviation ``σᵢ`` and a CDF ``Fᵢ`` that
its checkpoint recalibrates (:mod:`scinum.fill.calibration`: ``Cᵢ(Fᵢ(y))``). The ensemble's:

* point: ``mean(vᵢ)``;
* standard deviation: ``sqrt(mean(σᵢ² + (μᵢ - μ̄)²))``, the mixture's;
* calibrated CDF ``mean(Cᵢ(Fᵢ(y)))``; its quantile at level ``q`` lies between the members' own
  ``q``-quantiles and is found by bisection there (60 halvings);
* a draw: a member drawn uniformly, then a draw from its calibrated distribution.

With one member every one of these is that member's own.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import torch

from ..model.recalibration import calibrated_levels, model_levels
from ..records.paths import field_of

__all__ = ["point_and_std", "quantiles", "draws"]


def point_and_std(preds: Sequence[np.ndarray], with_std: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """``preds``: per member, :class:`~scinum.fill.results.FieldPrediction` [N, T] (object arrays). Returns the point float64[N, T]
    and, with ``with_std``, the ensemble's standard deviation [N, T] (module docstring)."""
    values = np.stack([_get(p, lambda f: f.value) for p in preds])  # [M, N, T]
    point = values.mean(0)
    if not with_std:
        return point, None
    means = np.stack([_get(p, lambda f: f.uncertainty["mean"]) for p in preds])
    stds = np.stack([_get(p, lambda f: f.uncertainty["std"]) for p in preds])
    return point, np.sqrt((stds**2 + (means - means.mean(0)) ** 2).mean(0))


def quantiles(models: Sequence[Any], targets: Sequence[str], preds: Sequence[np.ndarray], levels: np.ndarray) -> np.ndarray:
    """Values float64[N, T, Q] at calibrated quantile ``levels`` [N, T, Q] of the ensemble's
    distribution of each target (module docstring); ``preds`` as in :func:`point_and_std`."""
    out = np.empty(levels.shape)
    for t, path in enumerate(targets):
        members = [_Member(m, path, p[:, t]) for m, p in zip(models, preds)]
        q = levels[:, t]
        own = np.stack([m.quantile(q) for m in members])  # [M, N, Q]
        lo, hi = own.min(0), own.max(0)
        if len(members) > 1:  # the mixture's quantile lies between the members' own
            for _ in range(60):
                mid = (lo + hi) / 2
                below = np.mean([m.cdf(mid) for m in members], axis=0) < q
                lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        out[:, t] = (lo + hi) / 2
    return out


def draws(models: Sequence[Any], targets: Sequence[str], preds: Sequence[np.ndarray], n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` draws float64[N, T, n] of each target from the ensemble's calibrated distribution."""
    N, T = preds[0].shape
    levels = rng.uniform(size=(N, T, n))
    pick = rng.integers(len(models), size=(N, T, n))
    each = np.stack([quantiles([m], targets, [p], levels) for m, p in zip(models, preds)])  # [M, N, T, n]
    return np.take_along_axis(each, pick[None], 0)[0]


def _get(preds: np.ndarray, attr) -> np.ndarray:
    return np.vectorize(attr, otypes=[np.float64])(preds)


class _Member:
    """One member's calibrated distribution of one target over N records."""

    def __init__(self, model: Any, path: str, preds: np.ndarray):
        self.head = model.model.head
        self.table = model.recalibration.get(model.vocab.field_index.get(field_of(path)))
        weights, means, stds = (np.array([f.uncertainty[k] for f in preds]) for k in ("weights", "means", "stds"))
        self.mix = (torch.from_numpy(np.log(np.maximum(weights, 1e-300))), torch.from_numpy(means), torch.from_numpy(stds))

    def quantile(self, q: np.ndarray) -> np.ndarray:
        """Values [N, Q] at calibrated levels ``q`` [N, Q]."""
        return self.head.quantile(self.mix, torch.from_numpy(np.ascontiguousarray(model_levels(q, self.table)))).numpy()

    def cdf(self, y: np.ndarray) -> np.ndarray:
        """Calibrated CDF [N, Q] at values ``y`` [N, Q]."""
        return calibrated_levels(self.head.cdf(self.mix, torch.from_numpy(np.ascontiguousarray(y))).numpy(), self.table)
