"""Fits of the tables-large-budget experiment (README.md): ``default`` (``scinum.Regressor`` at
this commit's defaults) and ``grow`` (the same with ``epochs`` 30 and ``max_cells`` 300 000, so
that the budget grows with a table past 666 training rows and is unchanged below), beside least
squares and boosted trees, on the development tables (synthetic, MSE against the noise-free
truth) or the large test tables (bundled, MSE against the target). One JSON line per (table,
seed, model, split) on stdout: ``mse``, ``n``, and for the scinum rows ``samples`` (records a
member saw) and ``fit_s`` (CPU seconds of the fit).

    python experiments/tables-large-budget/run.py dev SHAPE ROWS SEED     # SHAPE: sin, tanh, line
    python experiments/tables-large-budget/run.py test TABLE SEED          # TABLE: co2, topobathy, friedman1, friedman2, friedman3
"""

from __future__ import annotations

import json
import runpy
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import LinearRegression

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
LARGE = runpy.run_path(str(HERE.parent / "tables-bends" / "large.py"))
LARGE["SHAPES"]["line"] = lambda x: 0.0 * x  # a straight table: the linear trend alone
PROTOCOL = runpy.run_path(str(ROOT / "recipes" / "tables_by_range.py"))

#: the candidate: DEFAULTS' keys it changes (``epochs`` is also a constructor parameter)
GROW = {"epochs": 30, "max_cells": 300_000}
#: the large test tables (README)
TEST = ("co2", "topobathy", "friedman1", "friedman2", "friedman3")
#: the Friedman tables' noise (standard deviation), as in Breiman's bagging paper: about 3:1
#: signal to noise for friedman2 and friedman3
FRIEDMAN_NOISE = {"friedman1": 1.0, "friedman2": 125.0, "friedman3": 0.1}


def load_test(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """``(X, y)`` of a large test table (README), every column read as floats: ``co2`` the
    weekly Mauna Loa series (statsmodels; input ``year``, the decimal year of the week, the weeks
    without a reading dropped), ``topobathy`` matplotlib's sample elevation grid (inputs
    ``longitude`` and ``latitude``, one row a grid cell), ``friedman1``-``3`` scikit-learn's
    generators, 10 000 rows drawn with ``random_state=0``."""
    if name == "co2":
        import statsmodels.api as sm

        data = sm.datasets.co2.load_pandas().data.dropna()
        index = pd.DatetimeIndex(data.index)
        year = index.year + (index.dayofyear - 1) / 365.25
        return pd.DataFrame({"year": np.asarray(year, dtype=float)}), data["co2"].to_numpy(dtype=float)
    if name == "topobathy":
        import matplotlib.cbook as cbook

        grid = np.load(cbook.get_sample_data("topobathy.npz", asfileobj=False))
        lon, lat = np.meshgrid(grid["longitude"], grid["latitude"])
        X = pd.DataFrame({"longitude": lon.ravel(), "latitude": lat.ravel()}).astype(float)
        return X, grid["topo"].ravel().astype(float)
    if name in FRIEDMAN_NOISE:
        import sklearn.datasets

        make = getattr(sklearn.datasets, f"make_{name}")
        Xa, y = make(n_samples=10000, noise=FRIEDMAN_NOISE[name], random_state=0)
        return pd.DataFrame(Xa, columns=[f"x{i}" for i in range(Xa.shape[1])]), y
    raise ValueError(f"unknown large test table {name!r}; known: {', '.join(TEST)}")


def fits(X: pd.DataFrame, y: np.ndarray, train: np.ndarray, seed: int, only: str | None = None) -> dict:
    """Model label -> ``(fitted model, extra)``; ``extra`` for the scinum rows: the records a
    member saw, the fit's CPU seconds and whether each target's rows bend clearly. ``only``: that
    scinum row alone."""
    import scinum
    import scinum.regressor_params as params

    out: dict = {}
    for label in (only,) if only else ("default", "grow"):
        saved = params.DEFAULTS["max_cells"]
        if label == "grow":
            params.DEFAULTS["max_cells"] = GROW["max_cells"]
        try:
            reg = scinum.Regressor(seed=seed, epochs=GROW["epochs"] if label == "grow" else params.DEFAULTS["epochs"])
            cpu = time.process_time()
            reg.fit(X.iloc[train], y[train])
            seconds = time.process_time() - cpu
        finally:
            params.DEFAULTS["max_cells"] = saved
        bends = [bool(b) for b in reg.bends_]
        out[label] = (reg, {"samples": reg.config_["budget"]["samples"], "fit_s": round(seconds, 2), "bends": bends})
    if only:
        return out
    for label, model in (("least squares", LinearRegression()), ("boosted trees", HistGradientBoostingRegressor(random_state=seed))):
        out[label] = (model.fit(X.iloc[train], y[train]), {})
    return out


def score(models: dict, X: pd.DataFrame, truth: np.ndarray, where: dict, head: dict) -> None:
    """Print one JSON line per (model, split) of ``where`` (split -> row indices)."""
    for label, (model, extra) in models.items():
        for split, rows in where.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pred = np.asarray(model.predict(X.iloc[rows]), dtype=float).reshape(-1)
            mse = float(np.mean((pred - truth[rows]) ** 2))
            print(json.dumps({**head, "model": label, "split": split, "mse": mse, "n": len(rows), **extra}), flush=True)


def main(argv: list[str]) -> None:
    import torch

    torch.set_num_threads(1)
    if argv[0] == "dev":
        shape, rows, seed = argv[1], int(argv[2]), int(argv[3])
        X, y, truth = LARGE["table"](shape, rows, seed)
        train, inside, past = LARGE["split"](X, seed)
        head = {"table": f"{shape}{rows}", "seed": seed}
        score(fits(X, y, train, seed), X, truth, {"inside": inside, "past": past}, head)
    elif argv[0] == "test":
        name, seed = argv[1], int(argv[2])
        X, y = load_test(name)
        col = X[PROTOCOL["most_correlated_input"](X, pd.Series(y))].to_numpy()
        past = col > np.quantile(col, 0.9)
        rest = np.flatnonzero(~past)
        inside = np.sort(np.random.default_rng(seed).permutation(rest)[: len(rest) // 4])
        train = np.setdiff1d(rest, inside)
        head = {"table": name, "seed": seed}
        score(fits(X, y, train, seed), X, y, {"inside": inside, "past": np.flatnonzero(past)}, head)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
