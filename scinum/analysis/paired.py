"""Paired differences between two models of a comparison: a paired bootstrap over the test
records and the seeds, and Holm's correction across a table's family of tests.

Two models A and B of a comparison were evaluated on the same test records, and seed s of each
shares the masking and batch-order stream (:mod:`recipes.compare`), so per seed s their MSEs on
the same records pair. The statistic is the mean over seeds of

    d_s = log10 MSE_A,s − log10 MSE_B,s        (MSE over every number of the cell's records)

reported as the ratio 10^mean d (geometric mean over seeds of A's MSE over B's: MSEs of
different models differ by orders of magnitude, so ratios, not gaps). Its 95 % interval is a
percentile bootstrap over :data:`RESAMPLES` resamples: each draws the records with replacement
and, independently, the seeds with replacement, *jointly for both models* (the same records and
seeds on both sides: the pairing is kept), and recomputes the statistic. The generator is seeded
(:data:`SEED` and the test's place in its table), so a report is reproducible. A seed on which a
model diverged (MSE +inf) makes d_s ±inf in every draw that holds it; where both did, d_s is 0
(no evidence either way).

The p-value of "no difference" is two-sided from the same draws: 2·min(#{T* ≤ 0} + 1, #{T* ≥ 0}
+ 1)/(RESAMPLES + 1), capped at 1 (0 outside the 95 % interval ⇔ p < 0.05, up to resampling).
``significant``: the interval excludes ratio 1, uncorrected. The family of a table is every
model against the reference in every column of that table; Holm's step-down adjustment over it
(:func:`scinum.analysis.stats.holm`) gives ``p_holm``, and ``survives_holm`` where it is < 0.05.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

from .scoring import cell_rows
from .stats import holm

__all__ = ["RESAMPLES", "SEED", "paired_bootstrap", "paired_table"]

#: bootstrap resamples per paired test (enough to resolve Holm's smallest threshold, 0.05/48)
RESAMPLES = 10000
#: seed of the bootstrap's generator (with each test's index in its table)
SEED = 0


def _errors(rows: pd.DataFrame, seeds: Sequence[int], records: pd.Index) -> np.ndarray:
    """Sum of squared errors per (seed, record) of one model's cell rows: ``[S, R]``; +inf where
    a prediction is not finite."""
    with np.errstate(over="ignore", invalid="ignore"):  # a diverged model's 1e300 squares to inf
        e2 = (rows["pred"].to_numpy(dtype=np.float64) - rows["true"].to_numpy(dtype=np.float64)) ** 2
        sse = rows.assign(e2=np.where(np.isnan(e2), math.inf, e2)).groupby(["seed", "record"])["e2"].sum()
    return sse.unstack("record").reindex(index=list(seeds), columns=records).to_numpy(dtype=np.float64)


def _pooled(weights: np.ndarray, sse: np.ndarray) -> np.ndarray:
    """``weights [B, R] @ sse.T [R, S]`` where a record with infinite SSE drawn at least once
    gives +inf (not the NaN that 0·inf would)."""
    bad = ~np.isfinite(sse)
    out = weights @ np.where(bad, 0.0, sse).T
    out[(weights > 0).astype(np.float64) @ bad.T.astype(np.float64) > 0] = math.inf
    return out


def _log_ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.log10(a) - np.log10(b)
    return np.where(np.isnan(d) & (a == b), 0.0, d)


def paired_bootstrap(
    sse_a: np.ndarray, sse_b: np.ndarray, rng: np.random.Generator, resamples: int = RESAMPLES, level: float = 0.95
) -> dict[str, float]:
    """Paired bootstrap of two models' per-(seed, record) squared-error sums ``[S, R]`` (same
    seeds and records on both sides; module docstring): ``diff`` (mean over seeds of the log10
    MSE ratios), ``ci95_low``, ``ci95_high``, ``p``, ``significant``, ``ratio``, ``ratio_low``,
    ``ratio_high`` (10^ of the three)."""
    s, r = sse_a.shape
    point = float(np.mean(_log_ratio(sse_a.sum(axis=1), sse_b.sum(axis=1))))
    drawn = rng.integers(0, r, size=(resamples, r)) + r * np.arange(resamples)[:, None]
    weights = np.bincount(drawn.ravel(), minlength=resamples * r).reshape(resamples, r).astype(np.float64)  # times drawn
    d = _log_ratio(_pooled(weights, sse_a), _pooled(weights, sse_b))  # [B, S]
    pick = rng.integers(0, s, size=(resamples, s))
    t = np.take_along_axis(d, pick, axis=1).mean(axis=1)
    lo, hi = np.quantile(t, [(1 - level) / 2, (1 + level) / 2], method="inverted_cdf")
    tail = min(np.sum(t <= 0), np.sum(t >= 0))
    out = {
        "diff": point,
        "ci95_low": float(lo),
        "ci95_high": float(hi),
        "p": min(1.0, 2.0 * (tail + 1) / (resamples + 1)),
        "significant": bool(lo > 0 or hi < 0),
    }
    with np.errstate(over="ignore"):  # a diverged model's ratio is inf, not an error
        out.update(
            {k: float(np.power(10.0, out[src])) for k, src in (("ratio", "diff"), ("ratio_low", "ci95_low"), ("ratio_high", "ci95_high"))}
        )
    return out


def paired_table(
    predictions: pd.DataFrame,
    reference: str,
    cells: Sequence[tuple[str, str]],
    metric: str = "mse",
    train_ranges: dict | None = None,
    resamples: int = RESAMPLES,
) -> pd.DataFrame:
    """Every model against ``reference`` on each (field, split) of ``cells`` (splits as in
    :func:`scinum.analysis.scoring.cell_rows`), from per-number ``predictions`` (``model, seed,
    field, split, record, true, pred``, unparsed ones already scored:
    :func:`scinum.analysis.scoring.fill_unparsed`): one row per (model, field, split) with
    :func:`paired_bootstrap` over the seeds and records both models have, ``n_seeds``,
    ``n_records``, ``resamples``, and Holm over the whole table (``p_holm``, ``survives_holm``)."""
    rows = []
    for field, split in cells:
        cell = cell_rows(predictions, field, split, (train_ranges or {}).get(field))
        ref = cell[cell["model"] == reference]
        for model in dict.fromkeys(cell["model"]):
            if model == reference:
                continue
            other = cell[cell["model"] == model]
            seeds = sorted(set(ref["seed"]) & set(other["seed"]))
            records = pd.Index(sorted(set(ref["record"]) & set(other["record"])), name="record")
            head = {"model": model, "reference": reference, "field": field, "split": split, "metric": metric}
            n = {"n_seeds": len(seeds), "n_records": len(records), "resamples": resamples}
            if not seeds or records.empty:
                rows.append({**head, **n, "p": math.nan, "significant": False})
                continue
            rng = np.random.default_rng([SEED, len(rows)])
            r = paired_bootstrap(_errors(other, seeds, records), _errors(ref, seeds, records), rng, resamples)
            rows.append({**head, **n, **r})
    out = pd.DataFrame(rows)
    if not out.empty:
        out["p_holm"] = holm(out["p"])
        out["survives_holm"] = out["p_holm"] < 0.05
    return out
