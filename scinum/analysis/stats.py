"""Statistics over seeds: means, 95 % intervals, diverged runs and Holm's correction.

Each seed of a comparison is one independent training run of a model (its own initialisation,
masking and batch order; the dataset is the same), so a metric measured on the same test records
gives one number per seed. Over the ``n`` seeds of a model, per cell (model, field, split):

* **diverged seeds** (:func:`diverged`): a seed's cell diverged when its MSE is not finite, or
  exceeds :data:`DIVERGENCE_FACTOR` (10) times the MSE of the train mean's prediction on the same
  records. The train mean knows nothing about the record; a run ten times worse than it (R² below
  about −9 on an in-range split) has learned nothing a seed-to-seed spread could explain, while an
  ordinary weak run (R² between −9 and 1) stays in the mean. Without the train mean's MSE only
  the non-finite rule applies.
* a cell **without** a diverged seed: mean ± Student t interval, mean ± t_{0.975, n-1} · s / √n,
  with ``s`` the sample standard deviation (ddof 1). The t interval assumes roughly normal
  per-seed values; with 3 seeds it is wide (t = 4.30) — an honest statement of how little 3 runs
  pin down. ``n == 1``: no interval (NaN bounds). A bound beyond what the metric can be
  (:data:`METRIC_RANGES`: MSE below 0, R² above 1, a coverage outside [0, 1]) is clipped to
  that limit: skewed per-seed values (one weak seed among good ones) put a symmetric interval
  there, and no run can.
* a cell **with** diverged seeds: no mean and no interval (one diverged run would own them: R²
  intervals beyond 1, MSE intervals below 0); the median over seeds and ``n_diverged`` of ``n``.
* :func:`holm`: Holm's step-down adjustment of a family of p-values (the paired tests of one
  table, :mod:`scinum.analysis.paired`), which keeps the chance of any false "significant" in
  the family at 5 %.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import stats as _st

__all__ = ["DIVERGENCE_FACTOR", "LOG_METRICS", "METRIC_RANGES", "diverged", "holm", "mean_ci", "summarize_seeds"]

#: metrics compared as ratios (log10 differences) in the paired differences
LOG_METRICS = ("mse", "mse_K2")

#: a seed's cell diverged when its MSE exceeds this many times the train mean's (module docstring)
DIVERGENCE_FACTOR = 10.0

#: the values each metric can take (:func:`summarize_seeds` clips interval bounds to them)
METRIC_RANGES = {
    "mse": (0.0, math.inf),
    "mse_K2": (0.0, math.inf),
    "mse_parsed": (0.0, math.inf),
    "r2": (-math.inf, 1.0),
    "r2_parsed": (-math.inf, 1.0),
    "coverage68": (0.0, 1.0),
    "coverage95": (0.0, 1.0),
}

#: columns of :func:`summarize_seeds`
SUMMARY_COLUMNS = ["model", "field", "split", "metric", "mean", "ci95_low", "ci95_high", "n_seeds", "median", "n_diverged", "n_records"]


def mean_ci(values: Iterable[float], level: float = 0.95) -> dict[str, float]:
    """``{mean, ci95_low, ci95_high, n_seeds, sd}`` of the finite ``values`` (module docstring:
    Student t interval). NaN values (e.g. a metric undefined on one seed) are left out and not
    counted; none left: all NaN, ``n_seeds`` 0."""
    v = np.asarray(list(values), dtype=np.float64)
    v = v[~np.isnan(v)]
    n = int(v.size)
    if n == 0:
        return {"mean": math.nan, "ci95_low": math.nan, "ci95_high": math.nan, "n_seeds": 0, "sd": math.nan}
    with np.errstate(over="ignore", invalid="ignore"):  # inf/1e300 (diverged runs) stay inf
        mean = float(v.mean())
        sd = float(v.std(ddof=1)) if n > 1 else math.nan
    if n == 1 or not math.isfinite(sd) or not np.isfinite(v).all():
        return {"mean": mean, "ci95_low": math.nan, "ci95_high": math.nan, "n_seeds": n, "sd": math.nan}
    half = float(_st.t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    return {"mean": mean, "ci95_low": mean - half, "ci95_high": mean + half, "n_seeds": n, "sd": sd}


def diverged(mse, train_mean_mse=None) -> np.ndarray:
    """The divergence rule (module docstring), elementwise over per-seed cells: bool ``[N]``,
    True where ``mse`` is NaN or ±inf or above :data:`DIVERGENCE_FACTOR` × ``train_mean_mse``
    (where that is given and finite)."""
    m = np.asarray(mse, dtype=np.float64).ravel()
    out = ~np.isfinite(m)
    if train_mean_mse is not None:
        ref = np.asarray(train_mean_mse, dtype=np.float64).ravel()
        with np.errstate(invalid="ignore", over="ignore"):
            out |= np.isfinite(ref) & (m > DIVERGENCE_FACTOR * ref)
    return out


def holm(p: Sequence[float]) -> np.ndarray:
    """Holm-adjusted p-values of a family (``[m]``, same order): sorted ascending, the k-th
    smallest (k = 1..m) becomes max over j ≤ k of min(1, (m − j + 1) p_(j)). NaN p-values (no
    test) stay NaN and are not counted in ``m``. A test survives at 5 % where its adjusted p
    < 0.05."""
    pv = np.asarray(p, dtype=np.float64).ravel()
    out = np.full(pv.shape, math.nan)
    ok = np.flatnonzero(~np.isnan(pv))
    order = ok[np.argsort(pv[ok], kind="stable")]
    m = order.size
    adjusted = np.minimum(1.0, (m - np.arange(m)) * pv[order])
    out[order] = np.maximum.accumulate(adjusted) if m else adjusted
    return out


def summarize_seeds(per_seed: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    """Long table: one row per (model, field, split, metric) over the rows of ``per_seed``
    (columns ``model, seed, field, split``, the ``metrics`` and, optionally, ``diverged`` (bool,
    :func:`diverged`) and ``n_records``), in the order models/fields/splits first appear:
    ``mean, ci95_low, ci95_high, n_seeds`` (NaN mean and bounds where a seed diverged),
    ``median``, ``n_diverged`` and ``n_records`` (the most over seeds; NaN where not given)."""
    rows = []
    keys = ["model", "field", "split"]
    for (model, field, split), g in per_seed.groupby(keys, sort=False):
        n_div = int(g["diverged"].astype(bool).sum()) if "diverged" in g else 0
        n_rec = float(g["n_records"].max()) if "n_records" in g else math.nan
        for m in metrics:
            if m not in g:
                continue
            v = g[m].astype(float)
            r = mean_ci(v)
            lo, hi = METRIC_RANGES.get(m, (-math.inf, math.inf))
            r.update(ci95_low=max(r["ci95_low"], lo), ci95_high=min(r["ci95_high"], hi))  # NaN stays NaN
            if n_div:  # k/n: of every seed evaluated
                r.update(mean=math.nan, ci95_low=math.nan, ci95_high=math.nan, n_seeds=len(g))
            defined = v[~v.isna()]
            median = float(np.median(defined)) if len(defined) else math.nan
            rows.append(
                {
                    "model": model,
                    "field": field,
                    "split": split,
                    "metric": m,
                    **{k: r[k] for k in ("mean", "ci95_low", "ci95_high", "n_seeds")},
                    "median": median,
                    "n_diverged": n_div,
                    "n_records": n_rec,
                }
            )
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
