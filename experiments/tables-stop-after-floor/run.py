"""Fits of tables-stop-after-floor (README.md): ``default`` (``scinum.Regressor(seed=SEED)`` at this
commit's defaults) and ``candidate`` (the same with ``trainer.early_stopping_min_steps`` 625),
least squares and boosted trees, on a development table, a test table (both
recipes/tables_by_range.py, held out by range as there) or one of tables-fresh-r's R tables. One
JSON line per (model, split) on stdout, as tables-large-budget's run.py writes them; the scinum
rows also carry ``fit_s`` (CPU seconds), ``best_step`` (the kept weights' step), ``last_step``
and ``stopped_early``.

    python experiments/tables-stop-after-floor/run.py dev|test|fresh TABLE SEED [candidate]

``candidate`` (last): the candidate alone with the standard models (the fresh tables' ``default``
fits are tables-fresh-r's: the same product, the same fits).
"""

from __future__ import annotations

import runpy
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PROTOCOL = runpy.run_path(str(ROOT / "recipes" / "tables_by_range.py"))
LARGE = runpy.run_path(str(HERE.parent / "tables-large-budget" / "run.py"))
FRESH = runpy.run_path(str(HERE.parent / "tables-fresh-r" / "run.py"))
#: the candidate's config: no early stop before the budget's floor
CANDIDATE = {"trainer": {"early_stopping_min_steps": 625}}


def table(kind: str, name: str, seed: int) -> tuple[pd.DataFrame, np.ndarray, dict]:
    """``(X, y, where)``: the table and its rows, ``where`` split -> row indices (``train``,
    ``inside``, ``past``)."""
    if kind == "fresh":
        X, y = FRESH["load"](name)
        return X, y, FRESH["split"](X, y, seed)[1]
    X, y = PROTOCOL["load"](name)
    idx = PROTOCOL["splits"](X, name, seed)
    return X, np.asarray(y, dtype=float), {"train": idx["train"], "inside": idx["test"], "past": idx["extrap"]}


def main(argv: list[str]) -> None:
    import scinum
    import torch
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.linear_model import LinearRegression

    torch.set_num_threads(1)
    kind, name, seed = argv[0], argv[1], int(argv[2])
    if kind not in ("dev", "test", "fresh"):
        raise SystemExit(__doc__)
    X, y, where = table(kind, name, seed)
    train = where.pop("train")
    models = {}
    labels = (("candidate", CANDIDATE),) if argv[3:] == ["candidate"] else (("default", None), ("candidate", CANDIDATE))
    for label, config in labels:
        reg = scinum.Regressor(seed=seed, config=config)
        cpu = time.process_time()
        reg.fit(X.iloc[train], y[train])
        best = reg.models_[0].meta.run.get("best") or {}
        models[label] = (
            reg,
            {
                "fit_s": round(time.process_time() - cpu, 2),
                "best_step": best.get("step"),
                "last_step": best.get("last_step"),
                "stopped_early": best.get("stopped_early"),
            },
        )
    models["least squares"] = (LinearRegression().fit(X.iloc[train], y[train]), {})
    models["boosted trees"] = (HistGradientBoostingRegressor(random_state=seed).fit(X.iloc[train], y[train]), {})
    LARGE["score"](models, X, y, where, {"kind": kind, "table": name, "seed": seed})


if __name__ == "__main__":
    main(sys.argv[1:])
