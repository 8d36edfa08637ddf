"""The standard references (:mod:`scinum.baselines`) scored like a model: table rows and
predictions for ``scinum evaluate`` and the recipes, long rows for the comparison reports.

Every row carries ``kind``: ``regressor`` (ridge, boosted trees), ``reference`` (train mean,
persistence) or ``oracle`` (they read the truth); scinum's own rows are ``model``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from ..datasets import Dataset
from .scoring import default_fields, physical_mse, subsets
from .metrics import summarize

__all__ = ["baseline_results", "comparison_baselines", "comparison_rows", "BOOTSTRAP"]

#: bootstrap resamples of the records for a baseline's interval in a comparison
BOOTSTRAP = 1000


def baseline_results(
    data: Any, fields: Sequence[str], splits: Sequence[str], *, limit: int | None = None, seed: int = 0, log: Callable[[str], None] = print
) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """``(table, predictions, info)`` of every baseline on ``splits`` (the first ``limit``
    records of each): table rows as :func:`scinum.analysis.evaluate.evaluate` writes them
    (``model, kind, field, split, subset, seed`` + the metrics), predictions with ``model, kind,
    field, split, record, path, true, pred, unparseable``."""
    from ..baselines import predict_baselines

    pred, info = predict_baselines(data, fields, splits, limit=limit, seed=seed, log=log)
    manifest = Dataset(data).manifest
    ranges = manifest.get("evaluation", {}).get("train_ranges", {})
    pred["unparseable"] = False
    pred["says_number"] = True
    rows = []
    for (model, kind, field, split), g in pred.groupby(["model", "kind", "field", "split"], sort=False):
        for subset, sel in subsets(g, ranges.get(field)):
            part = g[sel] if sel is not None else g
            rows.append(
                {
                    "model": model,
                    "kind": kind,
                    "field": field,
                    "split": split,
                    "subset": subset,
                    "seed": seed,
                    **summarize(part["true"].to_numpy(), part["pred"].to_numpy()),
                    **physical_mse(manifest, part),
                }
            )
    return pd.DataFrame(rows), pred, info


def comparison_baselines(
    data: Any, fields: Sequence[str] | None = None, limit: int | None = None, seed: int = 0, log: Callable[[str], None] = print
) -> pd.DataFrame:
    """The baselines of a comparison (:mod:`recipes.compare`) on the splits it evaluates (test
    and every ``ood_*`` split with records, the first ``limit`` records of each), as
    :func:`comparison_rows`."""
    ds = Dataset(data)
    fields = list(fields) if fields else default_fields(ds.manifest)
    splits = [s for s in ds.splits if (s == "test" or s.startswith("ood_")) and ds.count(s)]
    _, pred, _ = baseline_results(data, fields, splits, limit=limit, seed=seed, log=log)
    return comparison_rows(pred, ds.manifest, seed)


def comparison_rows(predictions: pd.DataFrame, manifest: dict, seed: int = 0) -> pd.DataFrame:
    """A comparison report's baseline frame (:mod:`scinum.analysis.report`): per (baseline,
    field, split) — ``interp``/``extrap`` subsets as splits ``<split>:<subset>`` — and metric
    (``mse``, ``r2``, and the physical MSE where the dataset has one), the value, a 95 %
    percentile bootstrap over the records (``BOOTSTRAP`` resamples, ``seed``), ``n`` (numbers),
    ``n_records``, ``kind`` and ``seeds`` (the seed the baselines were fitted with)."""
    out = []
    ranges = manifest.get("evaluation", {}).get("train_ranges", {})
    rng = np.random.default_rng(seed)
    for (model, kind, field, split), g in predictions.groupby(["model", "kind", "field", "split"], sort=False):
        for subset, sel in subsets(g, ranges.get(field)):
            part = g[sel] if sel is not None else g
            name = split if subset == "all" else f"{split}:{subset}"
            phys = physical_mse(manifest, part)
            scale = next(iter(phys.values())) / _mse(part) if phys and _mse(part) > 0 else None
            for metric, (value, lo, hi) in _bootstrap(part, rng, scale, next(iter(phys), None)).items():
                out.append(
                    {
                        "model": model,
                        "kind": kind,
                        "field": field,
                        "split": name,
                        "metric": metric,
                        "mean": value,
                        "ci95_low": lo,
                        "ci95_high": hi,
                        "n": len(part),
                        "n_records": int(part["record"].nunique()),
                        "seeds": str(seed),
                        "interval": f"95 % bootstrap over the {part['record'].nunique()} records",
                    }
                )
    return pd.DataFrame(
        out, columns=["model", "kind", "field", "split", "metric", "mean", "ci95_low", "ci95_high", "n", "n_records", "seeds", "interval"]
    )


def _mse(part: pd.DataFrame) -> float:
    return float(np.mean((part["pred"].to_numpy() - part["true"].to_numpy()) ** 2))


def _bootstrap(
    part: pd.DataFrame, rng: np.random.Generator, scale: float | None, phys: str | None
) -> dict[str, tuple[float, float, float]]:
    """metric -> (value, 2.5 %, 97.5 %) of pooled MSE and R² over records resampled with
    replacement."""
    g = part.assign(e2=(part["pred"] - part["true"]) ** 2, t2=part["true"] ** 2)
    per = g.groupby("record").agg(n=("true", "size"), sse=("e2", "sum"), s1=("true", "sum"), s2=("t2", "sum"))
    n, sse, s1, s2 = (per[c].to_numpy(dtype=np.float64) for c in ("n", "sse", "s1", "s2"))
    draws = rng.integers(0, len(per), size=(BOOTSTRAP, len(per)))

    def scores(idx):
        nn, e, t1, t2 = n[idx].sum(-1), sse[idx].sum(-1), s1[idx].sum(-1), s2[idx].sum(-1)
        sst = t2 - t1**2 / nn
        with np.errstate(divide="ignore", invalid="ignore"):
            return e / nn, np.where(sst > 0, 1.0 - e / sst, np.nan)

    point, boot = scores(np.arange(len(per))), scores(draws)
    out = {}
    for k, metric in enumerate(("mse", "r2")):
        lo, hi = np.nanpercentile(boot[k], [2.5, 97.5]) if np.isfinite(boot[k]).any() else (np.nan, np.nan)
        out[metric] = (float(point[k]), float(lo), float(hi))
    if phys and scale is not None:
        value, low, high = out["mse"]
        out[phys] = (value * scale, low * scale, high * scale)
    return out
