"""One model's evaluation read out of a results directory for its model card (:mod:`.card`):
``table.csv`` as ``scinum evaluate`` and the recipes write it, with ``meta.json``,
``train_values.json`` and ``predictions.csv`` when present."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from ..errors import ResultsError

__all__ = ["read_results"]


def read_results(results: str | os.PathLike, meta: Any, label: str | None = None) -> dict[str, Any]:
    """One model's evaluation from a results directory: ``{"source", "label", "rows": [table
    rows as dicts], "meta": meta.json or {}, "train_values": {field: [values]}, "ood_values":
    {(split, field): float64 true values}, "baselines": [the standard references' table rows]}``
    (ood_values: non-test splits, only with ``predictions.csv``); rows test first. Raises
    :class:`ResultsError` naming the file when ``table.csv`` is missing or holds no row of the
    model. ``label``: the model's rows (None: the table's one model, or the name ``scinum
    evaluate`` gives ``meta``, a :class:`~scinum.model.checkpoint.CheckpointMeta`)."""
    import pandas as pd

    root = Path(results)
    table_file = root / "table.csv"
    if not table_file.is_file():
        raise ResultsError(f"{table_file}: missing ({root} is not a results directory of scinum evaluate)")
    try:
        table = pd.read_csv(table_file)
    except (ValueError, OSError) as e:
        raise ResultsError(f"{table_file}: unreadable ({type(e).__name__})") from None
    if not {"model", "field", "split", "mse"} <= set(table.columns):
        raise ResultsError(f"{table_file}: no model/field/split/mse columns (not a scinum results table)")
    kind = table["kind"].fillna("model") if "kind" in table else pd.Series("model", index=table.index)
    refs, table = table[kind != "model"], table[kind == "model"]  # scinum.analysis.baselines
    models = list(dict.fromkeys(table["model"].astype(str)))
    if label is None and len(models) == 1:
        label = models[0]
    elif label is None:
        from ..heads import model_label

        label = model_label(meta.encoding["name"], meta.head)
    if label not in models:
        raise ResultsError(f"{table_file}: no rows of model {label!r} (models: {models}); pass --label")
    rows = [{k: _plain(v) for k, v in r.items()} for r in table[table["model"] == label].to_dict("records")]
    rows.sort(key=lambda r: r["split"] != "test")  # stable: the table's order otherwise
    for r in rows:  # interp/extrap rows of a split (scinum.analysis.evaluate): labelled as such
        r["subset"] = r.get("subset") if r.get("subset") in ("interp", "extrap") else "all"
    info = _json(root / "meta.json")
    train = _json(root / "train_values.json")
    return {
        "source": str(root),
        "label": label,
        "rows": rows,
        "meta": info,
        "train_values": train,
        "ood_values": _ood_values(root / "predictions.csv", label),
        "baselines": [{k: _plain(v) for k, v in r.items()} for r in refs.to_dict("records")],
    }


def _json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _plain(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return None
    return v.item() if hasattr(v, "item") else v


def _ood_values(path: Path, label: str) -> dict[tuple[str, str], Any]:
    """(split, field) -> the true values (float64[n]) of that field on every non-test split."""
    import pandas as pd

    if not path.is_file():
        return {}
    try:
        pred = pd.read_csv(path, usecols=["model", "field", "split", "true"])
    except (ValueError, OSError):
        return {}
    pred = pred[(pred["model"] == label) & (pred["split"] != "test")]
    return {(str(s), str(f)): g["true"].to_numpy(dtype=float) for (s, f), g in pred.groupby(["split", "field"])}
