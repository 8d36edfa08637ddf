"""The standard regressors (scikit-learn, optional) and the numpy-only references.

Regressors take float32 features ``[N, F]`` with NaN where a value is missing
(:mod:`scinum.baselines.features`) and float64 targets ``[N]``:

* ``ridge``: features standardized with the training rows' mean and std (std 0 -> 1), a missing
  value set to the mean (0) and marked by an indicator column (one per column that has a
  missing value in training), :class:`sklearn.linear_model.RidgeCV` over ``ALPHAS``;
* ``boosted trees``: :class:`sklearn.ensemble.HistGradientBoostingRegressor` with its defaults
  and ``random_state`` = the run's seed; it reads NaN as missing natively.

Both fit and predict on one thread (:func:`one_thread`): the same numbers on any machine, and
on a small shared machine no fight with the other processes for the cores.

References: ``train mean``; ``persistence`` (a target's lag -1); and two *oracles* that read the
truth — clamped into the training range, or the nearest training value: the best any model can
do that never leaves the training range / only outputs values it saw.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np

__all__ = ["ALPHAS", "INSTALL_HINT", "sklearn_missing", "one_thread", "Ridge", "boosted_trees", "clamp_oracle", "nearest_oracle"]

#: RidgeCV's alpha grid (standardized features): 1e-8 ... 1e6, 4 per decade (planets e₁ picks
#: 3e-8: a grid ending at 1e-4 left its test MSE at 0.057 instead of 0.049)
ALPHAS = np.logspace(-8, 6, 57)
#: the one line printed when scikit-learn cannot be imported
INSTALL_HINT = 'ridge and boosted-trees rows skipped: scikit-learn is not installed (pip install "scinum[baselines]")'


def sklearn_missing() -> bool:
    """Whether scikit-learn cannot be imported (then only the numpy-only rows are made)."""
    try:
        import sklearn  # noqa: F401
    except ImportError:
        return True
    return False


@contextmanager
def one_thread() -> Iterator[None]:
    """BLAS and OpenMP (scikit-learn's) on one thread inside the block."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


class Ridge:
    """Standardized features + missing indicators -> RidgeCV (module docstring)."""

    def fit(self, x: np.ndarray, y: np.ndarray) -> "Ridge":
        from sklearn.linear_model import RidgeCV

        self.mean = np.nanmean(x, axis=0)
        sd = np.nanstd(x, axis=0)
        self.std = np.where(np.isfinite(sd) & (sd > 0), sd, 1.0).astype(np.float32)
        self.marked = np.isnan(x).any(axis=0)
        self.model = RidgeCV(alphas=ALPHAS).fit(self._design(x), y)
        return self

    def _design(self, x: np.ndarray) -> np.ndarray:
        """``[N, F + marked columns]`` float32: standardized values, then indicators."""
        z = (x - self.mean) / self.std
        miss = np.isnan(z[:, self.marked]).astype(np.float32)
        return np.hstack([np.nan_to_num(z, nan=0.0, posinf=0.0, neginf=0.0), miss]).astype(np.float32)

    def predict(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(self.model.predict(self._design(x)), dtype=np.float64)

    @property
    def alpha(self) -> float:
        return float(self.model.alpha_)


def boosted_trees(seed: int) -> Any:
    """An unfitted HistGradientBoostingRegressor (defaults, ``random_state=seed``)."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    return HistGradientBoostingRegressor(random_state=seed)


def clamp_oracle(truth: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """ORACLE: the true values clamped into ``[lo, hi]``."""
    return np.clip(np.asarray(truth, dtype=np.float64), lo, hi)


def nearest_oracle(truth: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """ORACLE: for each true value the nearest of ``seen`` (sorted distinct training values;
    the lower one on a tie)."""
    t = np.asarray(truth, dtype=np.float64)
    k = np.clip(np.searchsorted(seen, t), 1, max(len(seen) - 1, 1))
    lo, hi = seen[k - 1], seen[np.minimum(k, len(seen) - 1)]
    return np.where(np.abs(t - lo) <= np.abs(hi - t), lo, hi)
