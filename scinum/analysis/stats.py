"""Statistics over seeds: means, 95 % confidence intervals and paired differences.

Each seed of a comparison is one independent training run of a model (its own initialisation,
masking and batch order; the dataset is the same), so a metric measured on the same test records
gives one number per seed. Over the ``n`` seeds of a model:

* mean ± Student t interval: mean ± t_{0.975, n-1} · s / √n, with ``s`` the sample standard
  deviation (ddof 1). The t interval assumes roughly normal per-seed values; with 3 seeds it is
  wide (t = 4.30) — an honest statement of how little 3 runs pin down. ``n == 1``: no interval
  (NaN bounds).
* paired difference of two models A − B: the per-seed differences d_s = A_s − B_s (the same seed
  of each model shares the masking and batch-order stream), then the t interval of the d_s. For
  MSE the difference is taken on log10 MSE (ratios, not absolute gaps: MSEs of different models
  differ by orders of magnitude), reported back as a ratio A/B with its interval. ``significant``:
  the interval excludes 0 (ratio 1) — a two-sided paired t test at 5 %.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
from scipy import stats as _st

__all__ = ["mean_ci", "paired_difference", "summarize_seeds", "paired_table", "LOG_METRICS"]

#: metrics compared as ratios (log10 differences) in :func:`paired_difference`
LOG_METRICS = ("mse", "mse_K2")


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


def paired_difference(a: Sequence[float], b: Sequence[float], *, log: bool = False, level: float = 0.95) -> dict[str, float]:
    """Paired difference A − B over seeds (``a[i]`` and ``b[i]`` from the same seed).

    ``log=False``: ``{diff, ci95_low, ci95_high, n_seeds, significant}`` of a_i − b_i.
    ``log=True`` (positive metrics such as MSE): d_i = log10 a_i − log10 b_i; adds ``ratio``,
    ``ratio_low``, ``ratio_high`` = 10^(mean, bounds) — A's metric is ``ratio`` times B's.
    Pairs with a NaN (or, for log, a non-positive value) on either side are dropped."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"paired difference needs one value per seed on both sides: {a.size} vs {b.size}")
    ok = ~(np.isnan(a) | np.isnan(b))
    if log:
        ok &= (a > 0) & (b > 0)
        d = np.log10(a[ok]) - np.log10(b[ok])
    else:
        d = a[ok] - b[ok]
    r = mean_ci(d, level)
    out = {
        "diff": r["mean"],
        "ci95_low": r["ci95_low"],
        "ci95_high": r["ci95_high"],
        "n_seeds": r["n_seeds"],
        "significant": bool(r["ci95_low"] > 0 or r["ci95_high"] < 0),
    }
    if log:
        with np.errstate(over="ignore"):  # a diverged model's ratio is inf, not an error
            out.update(
                {k: float(np.power(10.0, r[src])) for k, src in (("ratio", "mean"), ("ratio_low", "ci95_low"), ("ratio_high", "ci95_high"))}
            )
    return out


def summarize_seeds(per_seed: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    """Long table: one row per (model, field, split, metric) with ``mean, ci95_low, ci95_high,
    n_seeds`` over the rows of ``per_seed`` (columns ``model, seed, field, split`` and the
    ``metrics``), in the order models/fields/splits first appear."""
    rows = []
    keys = ["model", "field", "split"]
    for (model, field, split), g in per_seed.groupby(keys, sort=False):
        for m in metrics:
            if m not in g:
                continue
            r = mean_ci(g[m].astype(float))
            rows.append(
                {
                    "model": model,
                    "field": field,
                    "split": split,
                    "metric": m,
                    **{k: r[k] for k in ("mean", "ci95_low", "ci95_high", "n_seeds")},
                }
            )
    return pd.DataFrame(rows, columns=[*keys, "metric", "mean", "ci95_low", "ci95_high", "n_seeds"])


def paired_table(per_seed: pd.DataFrame, reference: str, cells: Sequence[tuple[str, str]], metric: str = "mse") -> pd.DataFrame:
    """Every model against ``reference`` on each (field, split) of ``cells``: one row per (model,
    field, split) with :func:`paired_difference` of ``metric`` (as ratio for
    :data:`LOG_METRICS`), paired by the ``seed`` column."""
    rows = []
    for field, split in cells:
        cell = per_seed[(per_seed["field"] == field) & (per_seed["split"] == split)]
        ref = cell[cell["model"] == reference].set_index("seed")[metric]
        for model in dict.fromkeys(cell["model"]):
            if model == reference:
                continue
            other = cell[cell["model"] == model].set_index("seed")[metric]
            seeds = sorted(set(ref.index) & set(other.index))
            r = paired_difference(other.loc[seeds].to_numpy(), ref.loc[seeds].to_numpy(), log=metric in LOG_METRICS)
            rows.append({"model": model, "reference": reference, "field": field, "split": split, "metric": metric, **r})
    return pd.DataFrame(rows)
