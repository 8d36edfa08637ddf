"""Would the line's own held-edge test (``scinum.fill.line.held_edges``) tell where a target
without a line should hold its network at the edge past the range? See README.md.

``flags``: for the tests' toys (``tests/test_past_range.py``'s draws, seeds 0-2), the larger
synthetic tables of ../tables-bends/large.py (seeds 0-1) and the development tables (seeds 0-1,
the training split of ``recipes/tables_by_range.py``), on the numeric inputs of the training rows
as ``Line.fit`` reads them: whether ``line="auto"`` keeps a line (``edge_errors``), and whether
``held_edges`` holds the held-out input's top edge (``held_top``) and any edge at all
(``held_any``). The rule fires where no line is kept and ``held_top``. No scinum model is fitted.

``fits``: on the larger synthetic tables where the rule fires, ``scinum.Regressor`` at its
defaults (seed = the table's seed), MSE against the noise-free truth past the range with the
network going on (``extrapolation="network"``, what the default reads for a target without a
line) and held at the edge (``"edge"``), beside least squares and boosted trees.

    python experiments/tables-held-network/probe.py flags > experiments/tables-held-network/flags.txt
    python experiments/tables-held-network/probe.py fits > experiments/tables-held-network/fits.txt
"""

import runpy
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import LinearRegression

from scinum.fill.line import edge_errors, held_edges

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "recipes"))
import tables_by_range as tbr  # noqa: E402

LARGE = runpy.run_path(str(ROOT / "experiments" / "tables-bends" / "large.py"))
TOYS = runpy.run_path(str(ROOT / "experiments" / "tables-clamp-probe" / "toys.py"))["TOYS"]  # the tests' toys


def flags(X: np.ndarray, y: np.ndarray, j: int) -> tuple[bool, bool, bool]:
    """``(line kept, held_top, held_any)`` for inputs ``X`` float64[N, K], target ``y`` and the
    held-out input ``j``."""
    line, trees, n_held = edge_errors(X, y, decide_only=True)
    held = held_edges(X, y)
    return bool(n_held > 0 and line < trees), bool(held[j, 0]), bool(held.any())


def large_split(shape: str, rows: int, seed: int):
    """``(X, y, truth, train, past)`` of ../tables-bends/large.py's table and split."""
    X, y, truth = LARGE["table"](shape, rows, seed)
    train, _, past = LARGE["split"](X, seed)
    return X, y, truth, train, past


def main_flags() -> None:
    print("table seed line_kept held_top held_any fires")

    def show(name: str, seed: int, f: tuple[bool, bool, bool]) -> None:
        print(name, seed, *f, (not f[0]) and f[1], flush=True)

    for seed in (0, 1, 2):
        rng = np.random.default_rng(seed)
        x = rng.uniform(0, 1, 200)
        for name, f in TOYS.items():
            y = f(x) + rng.normal(0, 0.02, len(x))
            show(f"toy:{name}", seed, flags(x[:, None], y, 0))
    for shape in LARGE["SHAPES"]:
        for rows in LARGE["ROWS"]:
            for seed in LARGE["SEEDS"]:
                X, y, _, train, _ = large_split(shape, rows, seed)
                show(f"large:{shape}:{rows}", seed, flags(X.iloc[train].to_numpy(np.float64), y[train], 0))
    for name in tbr.DEVELOPMENT:
        X, y = tbr.load(name)
        j = list(X.columns).index(tbr._HELD_OUT[name])
        for seed in (0, 1):
            train = tbr.splits(X, name, seed)["train"]
            show(name, seed, flags(X.iloc[train].to_numpy(np.float64), y.iloc[train].to_numpy(np.float64), j))


def main_fits() -> None:
    import scinum

    print("table seed network edge least_squares boosted_trees")
    for shape in LARGE["SHAPES"]:
        for rows in LARGE["ROWS"]:
            for seed in LARGE["SEEDS"]:
                X, y, truth, train, past = large_split(shape, rows, seed)
                kept, top, _ = flags(X.iloc[train].to_numpy(np.float64), y[train], 0)
                if kept or not top:
                    continue
                reg = scinum.Regressor(seed=seed).fit(X.iloc[train], y[train])
                mse = []
                for mode in ("network", "edge"):
                    reg.set_params(extrapolation=mode)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        mse.append(np.mean((np.asarray(reg.predict(X.iloc[past])) - truth[past]) ** 2))
                for m in (LinearRegression(), HistGradientBoostingRegressor(random_state=0)):
                    mse.append(np.mean((m.fit(X.iloc[train], y[train]).predict(X.iloc[past]) - truth[past]) ** 2))
                print(f"large:{shape}:{rows}", seed, " ".join(f"{v:.4g}" for v in mse), flush=True)


if __name__ == "__main__":
    {"flags": main_flags, "fits": main_fits}[sys.argv[1]]()
