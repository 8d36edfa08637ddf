"""A results directory of ``scinum evaluate`` as plots read it (:class:`Results`).

* ``predictions.csv`` (required): one row per predicted number; columns ``model``, ``field``,
  ``split``, ``true``, ``pred`` (NaN = unparseable), and optionally ``encoding``, ``head``,
  ``record``, ``path`` and the columns each head declares (:class:`scinum.heads.HeadOutputs`;
  the mixture head: ``mean``, ``std``, ``lo68``, ``hi68``, ``lo95``, ``hi95`` and ``mixture``,
  JSON ``{"weights": [...], "means": [...], "stds": [...]}`` in record units).
* ``train_values.json`` (optional): ``{field: sorted distinct training values}``.
* ``meta.json`` (optional): ``{"dataset", "builder", "units": {field: unit},
  "ood_fields": {split: field}, "heads": {model: head declaration}}``; any key may be missing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field as dc_field
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ResultsError

__all__ = ["ResultsError", "Results", "load_results", "REQUIRED_COLUMNS", "check_results_dir", "RESULTS_FILES"]

REQUIRED_COLUMNS = ("model", "field", "split", "true", "pred")

#: the files scinum writes into a results directory (``scinum evaluate``, the recipes, the
#: comparisons), beside the directories :data:`RESULTS_DIRS`
RESULTS_FILES = (
    "table.md",
    "table.csv",
    "meta.json",
    "predictions.csv",
    "predictions.csv.gz",
    "train_values.json",
    "seeds.csv",
    "paired.csv",
)
RESULTS_DIRS = ("plots", "logs", "models")


def _is_results_dir(out: Path) -> bool:
    """Whether ``out``'s ``meta.json`` is one scinum wrote: ``scinum evaluate``'s carries
    ``heads``, a recipe's or a comparison's ``recipe``."""
    try:
        meta = json.loads((out / "meta.json").read_text())
    except (OSError, ValueError):
        return False
    return isinstance(meta, dict) and ("heads" in meta or "recipe" in meta)


def check_results_dir(out: str | Path) -> None:
    """Refuse, in one line naming the file, to write results into ``out`` when it holds a file
    results are written as (:data:`RESULTS_FILES`, or any file under :data:`RESULTS_DIRS`) and is
    not a results directory scinum wrote (its ``meta.json``): a user's own ``table.md``,
    ``meta.json`` or plot is never replaced. A missing or empty ``out``, or one of scinum's
    results (written again, as a re-run recipe does), passes."""
    out = Path(out)
    if not out.is_dir() or _is_results_dir(out):
        return
    found = [out / name for name in RESULTS_FILES if (out / name).exists()]
    for d in RESULTS_DIRS:
        if not found and (out / d).is_dir():
            found = [p for p in sorted((out / d).rglob("*")) if p.is_file()][:1]
    if found:
        raise ResultsError(
            f"{found[0]}: exists in {out}, which is not a results directory scinum wrote (its meta.json is not one): "
            "it would be replaced; choose another output directory, or move the file away"
        )


@dataclass
class Results:
    """A loaded results directory: ``preds`` is predictions.csv, the rest may be empty."""

    preds: pd.DataFrame
    train_values: dict[str, list[float]] = dc_field(default_factory=dict)
    meta: dict = dc_field(default_factory=dict)

    def unit(self, field: str) -> str | None:
        return (self.meta.get("units") or {}).get(field)

    def rows(self, field: str, split: str) -> pd.DataFrame:
        """The prediction rows of one (field, split); an error naming both if there are none."""
        p = self.preds
        rows = p[(p["field"] == field) & (p["split"] == split)]
        if rows.empty:
            raise ResultsError(f"predictions.csv: no rows for field {field!r} on split {split!r}")
        return rows


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise ResultsError(f"{path}: cannot read JSON: {e}") from None
    if not isinstance(data, dict):
        raise ResultsError(f"{path}: expected a JSON object, got {type(data).__name__}")
    return data


def load_results(results_dir: str | Path) -> Results:
    """Read ``predictions.csv`` (required) and ``train_values.json``/``meta.json`` (optional)."""
    d = Path(results_dir)
    if not d.is_dir():
        raise ResultsError(f"{d}: results directory does not exist")
    pred_path = d / "predictions.csv"
    if not pred_path.is_file():
        raise ResultsError(f"{pred_path}: missing predictions.csv (written by scinum evaluate)")
    try:
        preds = pd.read_csv(pred_path, dtype={"model": str, "field": str, "split": str})
    except (OSError, ValueError) as e:
        raise ResultsError(f"{pred_path}: cannot read CSV: {e}") from None
    missing = [c for c in REQUIRED_COLUMNS if c not in preds.columns]
    if missing:
        raise ResultsError(f"{pred_path}: missing column(s) {', '.join(missing)}")
    for c in ("true", "pred", "lo68", "hi68", "lo95", "hi95"):
        if c in preds.columns:
            preds[c] = pd.to_numeric(preds[c], errors="coerce").astype(np.float64)
    tv_path, meta_path = d / "train_values.json", d / "meta.json"
    train_values = _read_json(tv_path) if tv_path.is_file() else {}
    meta = _read_json(meta_path) if meta_path.is_file() else {}
    return Results(preds, train_values, meta)
