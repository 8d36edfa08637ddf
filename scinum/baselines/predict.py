"""Fit every baseline of a field on a dataset's training split and predict the evaluated splits.

For each field (a mask pattern) and each evaluated split (the first ``limit`` records, as
:func:`scinum.analysis.evaluate.evaluate` takes them), one prediction per number the field
names, by (label, kind):

* ``train mean`` (reference): the mean of every training number of the field;
* ``persistence`` (reference): the number's lag -1, only where every target of the split has one;
* ``ridge``, ``boosted trees`` (regressor): :mod:`scinum.baselines.regressors`, on the features of
  :mod:`scinum.baselines.features` (scikit-learn; without it one line says how to get them);
* ``oracle: truth clamped to training range`` and ``oracle: nearest training value`` (oracle):
  on a split where the builder declares the field's training range
  (``manifest["evaluation"]["train_ranges"]``: that range) and on every ``ood_*`` split (the
  training numbers' min and max); they read the truth.

Training rows are subsampled to ``max_rows`` with the seed; at most ``max_train_records``
training records are read (the first ones).
"""

from __future__ import annotations

from contextlib import nullcontext
from itertools import islice
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from ..datasets import Dataset
from ..records.paths import get
from .features import LAGS, INDEX_DEPTH, MAX_SLOTS, Rows, Slots, fit_slots, rows_of, targets_of
from .regressors import INSTALL_HINT, Ridge, boosted_trees, clamp_oracle, nearest_oracle, one_thread, sklearn_missing

__all__ = ["MAX_ROWS", "MAX_TRAIN_RECORDS", "KINDS", "predict_baselines", "train_means"]

#: training rows per field at most (subsampled with the seed beyond)
MAX_ROWS = 20000
#: training records read at most (the first ones; held in memory as parsed JSON)
MAX_TRAIN_RECORDS = 20000
#: label -> kind of every baseline (the ``kind`` column of tables: model / regressor / reference / oracle)
KINDS = {
    "train mean": "reference",
    "persistence": "reference",
    "ridge": "regressor",
    "boosted trees": "regressor",
    "oracle: truth clamped to training range": "oracle",
    "oracle: nearest training value": "oracle",
}


def _subsample(counts: Sequence[int], cap: int, seed: int) -> np.ndarray | None:
    """Which of ``sum(counts)`` rows to keep (bool), ``cap`` drawn with ``seed``; None: all."""
    total = int(sum(counts))
    if total <= cap:
        return None
    keep = np.zeros(total, dtype=bool)
    keep[np.random.default_rng(seed).choice(total, size=cap, replace=False)] = True
    return keep


def _columns(rows: Rows) -> np.ndarray:
    """Feature columns with at least one value in the training rows (the others carry nothing)."""
    return ~np.isnan(rows.x).all(axis=0)


def _training_numbers(train: list[dict], field: str) -> tuple[list[list[float]], np.ndarray]:
    """Per training record the numbers ``field`` names, and all of them flat (float64)."""
    per_record = [[float(get(r, p)) for p in targets_of(r, field)] for r in train]
    return per_record, np.asarray([x for v in per_record for x in v], dtype=np.float64)


def train_means(data: Any, fields: Sequence[str], max_train_records: int = MAX_TRAIN_RECORDS) -> dict[str, float]:
    """``{field: the train mean's prediction}`` (the mean of every number the field names in the
    first ``max_train_records`` training records), for the fields that have any: what a
    comparison scores an unparsed prediction as (:func:`scinum.analysis.scoring.fill_unparsed`)."""
    ds = Dataset(data)
    train = list(islice(ds.records("train"), max_train_records)) if "train" in ds.splits else []
    out = {}
    for field in fields:
        every = _training_numbers(train, field)[1]
        if every.size:
            out[field] = float(every.mean())
    return out


def predict_baselines(
    data: Any,
    fields: Sequence[str],
    splits: Sequence[str],
    *,
    limit: int | None = None,
    seed: int = 0,
    max_rows: int = MAX_ROWS,
    max_slots: int = MAX_SLOTS,
    max_train_records: int = MAX_TRAIN_RECORDS,
    log: Callable[[str], None] = print,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Predictions of every baseline: a frame ``model, kind, field, split, record, path, true,
    pred`` (one row per predicted number), and what was done (``info``: slots kept and seen,
    training rows per field, the seed, ridge's alpha per field, what was skipped)."""
    ds = Dataset(data)
    cols = ["model", "kind", "field", "split", "record", "path", "true", "pred"]
    if "train" not in ds.splits or not ds.count("train"):
        log(f"baselines skipped: {data} has no train split with records to fit them on")
        return pd.DataFrame(columns=cols), {"skipped": ["no train split"]}
    train = list(islice(ds.records("train"), max_train_records))
    slots = fit_slots(train, max_slots)
    ranges = ds.manifest.get("evaluation", {}).get("train_ranges", {})
    evaluated = {s: list(islice(ds.records(s), limit)) for s in splits}
    no_sklearn = sklearn_missing()
    if no_sklearn:
        log(INSTALL_HINT)
    info: dict[str, Any] = {
        "seed": seed,
        "slots": len(slots.paths),
        "numeric_paths": slots.seen,
        "max_slots": max_slots,
        "train_records": len(train),
        "max_rows": max_rows,
        "lags": LAGS,
        "index_depth": INDEX_DEPTH,
        "skipped": [INSTALL_HINT] if no_sklearn else [],
        "fields": {},
    }
    if slots.dropped:
        log(f"baselines: {slots.dropped} of {slots.seen} numeric paths left out (the {max_slots} most frequent are features)")
    frames = []
    with nullcontext() if no_sklearn else one_thread():
        for field in fields:
            frames += _field(field, train, evaluated, slots, ranges.get(field), seed, max_rows, no_sklearn, info)
    return (pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=cols)), info


def _field(
    field: str,
    train: list[dict],
    evaluated: dict[str, list[dict]],
    slots: Slots,
    declared: Sequence[float] | None,
    seed: int,
    max_rows: int,
    no_sklearn: bool,
    info: dict[str, Any],
) -> list[pd.DataFrame]:
    """Every baseline's predictions of one field on every evaluated split."""
    # every training number (not only the subsampled rows'): the mean and the oracles' values
    per_record, every = _training_numbers(train, field)
    if not every.size:
        info["skipped"].append(f"{field}: no number of the training records")
        return []
    mean, values = float(every.mean()), np.unique(every)
    rows = rows_of(train, field, slots, _subsample([len(v) for v in per_record], max_rows, seed))
    cols = _columns(rows)
    fitted: dict[str, Any] = {}
    if not no_sklearn:
        ridge = Ridge().fit(rows.x[:, cols], rows.y)
        fitted["ridge"] = ridge
        fitted["boosted trees"] = boosted_trees(seed).fit(rows.x[:, cols], rows.y)
    info["fields"][field] = {
        "train_numbers": int(every.size),
        "train_rows": len(rows.y),
        "features": int(cols.sum()),
        **({"ridge_alpha": fitted["ridge"].alpha} if fitted else {}),
    }
    out = []
    for split, records in evaluated.items():
        ev = rows_of(records, field, slots)
        if not len(ev.y):
            continue
        preds = {"train mean": np.full(len(ev.y), mean)}
        if np.isfinite(ev.lag1).all():
            preds["persistence"] = ev.lag1
        for label, model in fitted.items():
            preds[label] = np.asarray(model.predict(ev.x[:, cols]), dtype=np.float64)
        if declared is not None or split.startswith("ood_"):
            lo, hi = declared if declared is not None else (values[0], values[-1])
            preds["oracle: truth clamped to training range"] = clamp_oracle(ev.y, lo, hi)
            preds["oracle: nearest training value"] = nearest_oracle(ev.y, values)
        for label, p in preds.items():
            out.append(
                pd.DataFrame(
                    {
                        "model": label,
                        "kind": KINDS[label],
                        "field": field,
                        "split": split,
                        "record": ev.record,
                        "path": ev.path,
                        "true": ev.y,
                        "pred": p,
                    }
                )
            )
    return out
