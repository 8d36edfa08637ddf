"""Larger synthetic tables held out by range: does the rule (no curvature penalty where the rows
bend clearly) let the network run away past the range where many rows make any bend "clear"?

Tables: ``n`` rows of 4 standard normal inputs, ``y = f(x0) + x @ w + noise`` (``w`` seeded,
noise 0.1), ``f`` one of :data:`SHAPES`: the benchmark's bend (``0.5·sin(x0)``,
benchmarks/regressor_fit_time.py) or a saturating one (``2·tanh(2·x0)``). Held out by the
bending input ``x0`` as the tables protocol holds out an input: the rows above its 0.9 quantile
(``past``); of the others a seeded quarter is ``inside`` and the rest trains. Per table and
seed: whether the rule fires, then MSE against the noise-free truth inside the range and past it
of the Regressor at its defaults (the rule), with the penalty forced on
(``config={"optim": {"curvature_weight": 10.0}}``), least squares and boosted trees. A reference
measurement: nothing is chosen from it.

    python experiments/tables-bends/large.py [SHAPE ...] > experiments/tables-bends/large-SHAPE.txt
"""

import sys
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import LinearRegression

import scinum

SHAPES = {"sin": lambda x: 0.5 * np.sin(x), "tanh": lambda x: 2 * np.tanh(2 * x)}
ROWS = (1000, 10000)
SEEDS = (0, 1)


def table(shape: str, rows: int, seed: int) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """``(X, y, truth)``: the seeded table of module docstring."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, 4))
    truth = SHAPES[shape](X[:, 0]) + X @ rng.normal(size=4)
    y = truth + 0.1 * rng.normal(size=rows)
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(4)]), y, truth


def split(X: pd.DataFrame, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row indices ``(train, inside, past)`` of a table (module docstring): ``past`` the rows above
    ``x0``'s 0.9 quantile, ``inside`` a seeded quarter of the others, ``train`` the rest."""
    above = X["x0"].to_numpy() > np.quantile(X["x0"], 0.9)
    rest = np.flatnonzero(~above)
    inside = np.sort(np.random.default_rng(seed).permutation(rest)[: len(rest) // 4])
    return np.setdiff1d(rest, inside), inside, np.flatnonzero(above)


def main(shapes: list[str]) -> None:
    print("shape rows seed bends where mse_rule mse_penalty least_squares boosted_trees fit_s_rule fit_s_penalty")
    for shape in shapes:
        for rows in ROWS:
            for seed in SEEDS:
                X, y, truth = table(shape, rows, seed)
                train, inside, past = split(X, seed)
                fits, seconds = [], []
                for config in (None, {"optim": {"curvature_weight": 10.0}}):
                    cpu = time.process_time()
                    fits.append(scinum.Regressor(seed=seed, config=config).fit(X.iloc[train], y[train]))
                    seconds.append(time.process_time() - cpu)
                standard = [m.fit(X.iloc[train], y[train]) for m in (LinearRegression(), HistGradientBoostingRegressor(random_state=0))]
                for where, rows_at in (("inside", inside), ("past", past)):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        mse = [np.mean((np.asarray(m.predict(X.iloc[rows_at])) - truth[rows_at]) ** 2) for m in (*fits, *standard)]
                    cells = " ".join(f"{v:.4g}" for v in mse)
                    print(shape, rows, seed, bool(fits[0].bends_[0]), where, cells, f"{seconds[0]:.1f} {seconds[1]:.1f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or list(SHAPES))
