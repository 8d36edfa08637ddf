"""What every evaluation row is scored on, shared by scinum's models (:mod:`.evaluate`) and the
standard references (:mod:`.baselines`): the fields a dataset declares, the interp/extrap subsets
of a split, the MSE in physical units."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

from ..errors import DatasetError
from ..records.paths import matches, parse_path

__all__ = ["SCORED_COLUMNS", "cell_rows", "default_fields", "fill_unparsed", "physical_mse", "rescore", "score_runs", "subsets"]

#: the columns of a run's ``predictions.csv`` that a comparison scores (:func:`score_runs`)
SCORED_COLUMNS = ["model", "seed", "field", "split", "record", "path", "true", "pred", "unparseable"]


def default_fields(manifest: dict) -> list[str]:
    """The fields a dataset's builder declares for evaluation (``manifest["evaluation"]``)."""
    fields = manifest.get("evaluation", {}).get("fields")
    if not fields:
        raise DatasetError(
            f"dataset (builder {manifest.get('builder')!r}) declares no evaluation "
            "fields: pass --fields PATH ... (a dataset built by an older scinum: "
            "or delete it and build it again)"
        )
    return list(fields)


def subsets(frame: pd.DataFrame, train_range: Sequence[float] | None):
    """``("all", None)``, then — where the builder declares the field's training range
    (``evaluation.train_ranges``) and the split holds true values both inside and outside it —
    ``("interp", inside)`` and ``("extrap", outside)`` (boolean row selections): an OOD split
    that mixes interpolation and extrapolation (planets ``ood_stepsize``) is scored both ways."""
    yield "all", None
    if train_range is None or frame.empty:
        return
    lo, hi = train_range
    inside = frame["true"].between(lo, hi).to_numpy()
    if inside.any() and not inside.all():
        yield "interp", inside
        yield "extrap", ~inside


def physical_mse(manifest: dict, frame: pd.DataFrame) -> dict[str, float]:
    """MSE in physical units where the builder records an affine scaling of the predicted
    numbers (``manifest["scalings"]``, e.g. ERA5 temperatures in σ units -> ``mse_K2``)."""
    if frame.empty:
        return {}
    path = parse_path(frame["path"].iloc[0])
    for pattern, s in manifest.get("scalings", {}).items():
        if s.get("kind") == "affine" and "std" in s and matches(pattern, path):
            err = frame["pred"].to_numpy() - frame["true"].to_numpy()
            ok = ~frame["unparseable"].to_numpy(dtype=bool)  # a NaN number prediction counts
            mse = float(np.mean(err[ok] ** 2)) * s["std"] ** 2 if ok.any() else math.nan
            return {f"mse_{s.get('unit', 'phys')}2": mse}
    return {}


def cell_rows(predictions: pd.DataFrame, field: str, split: str, train_range: Sequence[float] | None) -> pd.DataFrame:
    """The prediction rows of one comparison cell: ``split`` is a split's name or
    ``<split>:interp`` / ``<split>:extrap`` (:func:`subsets`: true values inside / outside the
    field's declared training range)."""
    name, _, subset = split.partition(":")
    rows = predictions[(predictions["field"] == field) & (predictions["split"] == name)]
    if not subset:
        return rows
    if train_range is None:
        raise DatasetError(f"cell {field} {split}: the dataset declares no training range for {field} (evaluation.train_ranges)")
    inside = rows["true"].between(*train_range)
    return rows[inside] if subset == "interp" else rows[~inside]


def fill_unparsed(predictions: pd.DataFrame, train_means: dict[str, float]) -> pd.DataFrame:
    """``predictions`` (``scinum evaluate``'s rows: ``field, true, pred, unparseable``) as a
    comparison scores them: an unparsed prediction (a text encoding's digits that are no number)
    becomes the train mean's prediction of its field (``train_means``: field -> the mean of the
    field's training numbers), flagged ``unparsed``; a NaN that a number head predicted becomes
    +inf (a wrong prediction, never left out). Returns a copy with ``pred`` filled, ``unparsed``
    (bool) and ``pred_parsed`` (the prediction as made, NaN where unparsed)."""
    out = predictions.copy()
    unparsed = out["unparseable"].astype(bool).to_numpy() if "unparseable" in out else np.zeros(len(out), bool)
    pred = out["pred"].to_numpy(dtype=np.float64)
    missing = sorted(set(out.loc[unparsed, "field"]) - set(train_means))
    if missing:
        raise DatasetError(f"no train mean for field(s) {missing}: unparsed predictions cannot be scored")
    mean = out["field"].map(train_means).to_numpy(dtype=np.float64)
    pred = np.where(np.isnan(pred), math.inf, pred)
    out["pred_parsed"] = np.where(unparsed, math.nan, pred)
    out["pred"] = np.where(unparsed, mean, pred)
    out["unparsed"] = unparsed
    return out


def rescore(filled: pd.DataFrame, manifest: dict, train_means: dict[str, float]) -> pd.DataFrame:
    """Per (model, seed, field, split) — ``interp``/``extrap`` subsets as splits
    ``<split>:<subset>`` — of :func:`fill_unparsed`'s rows: ``n_records``, ``n_unparsed``,
    ``mse`` and ``r2`` over every prediction (unparsed ones scored as the train mean),
    ``mse_parsed`` and ``r2_parsed`` (over the parsed ones only, as ``scinum evaluate`` scores),
    ``train_mean_mse`` (the train mean's MSE on the same rows: the divergence rule's reference,
    :func:`scinum.analysis.stats.diverged`) and the physical MSE where the dataset has one."""
    from .metrics import mse, r2

    ranges = manifest.get("evaluation", {}).get("train_ranges", {})
    rows = []
    for (model, seed, field, split), g in filled.groupby(["model", "seed", "field", "split"], sort=False):
        for subset, sel in subsets(g, ranges.get(field)):
            part = g[sel] if sel is not None else g
            y, yhat, parsed = (part[c].to_numpy(dtype=np.float64) for c in ("true", "pred", "pred_parsed"))
            with np.errstate(over="ignore", invalid="ignore"):
                row = {
                    "model": model,
                    "seed": seed,
                    "field": field,
                    "split": split if subset == "all" else f"{split}:{subset}",
                    "n_records": int(part["record"].nunique()),
                    "n_unparsed": int(part["unparsed"].sum()),
                    "mse": mse(y, yhat),
                    "r2": r2(y, yhat),
                    "mse_parsed": mse(y, parsed),
                    "r2_parsed": r2(y, parsed),
                    "train_mean_mse": mse(y, np.full(y.shape, train_means.get(field, math.nan))),
                    **physical_mse(manifest, part.assign(unparseable=False)),
                }
            rows.append(row)
    return pd.DataFrame(rows)


def score_runs(
    per_seed: pd.DataFrame, predictions: pd.DataFrame, train_means: dict[str, float], manifest: dict
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(per_seed, filled)`` as a comparison reports its runs: ``per_seed`` (the runs' table rows,
    subsets as ``<split>:<subset>`` splits) with ``mse``, ``r2`` and the physical MSE replaced by
    :func:`rescore`'s over every prediction and its other columns added; ``filled``: the runs'
    ``predictions`` (:data:`SCORED_COLUMNS`) after :func:`fill_unparsed`."""
    filled = fill_unparsed(predictions, train_means)
    scores = rescore(filled, manifest, train_means)
    keys = ["model", "seed", "field", "split"]
    kept = per_seed.drop(columns=[c for c in scores.columns if c in per_seed and c not in keys])
    return kept.merge(scores, on=keys, how="left"), filled
