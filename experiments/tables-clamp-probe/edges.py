"""Would a table's own edges say where to hold `scinum.Regressor`'s prediction at the edge past
the range (boosted trees' clamp) instead of letting the network go on? For each toy table of
``tests/test_past_range.py`` (seeds 0-2) and each development table (seeds 0-1, the training
split of ``recipes/tables_by_range.py``), on the edges ``scinum.fill.line`` already holds out
(each input's top and bottom tenth), the paired per-row gain of the trees over a least-squares
line (``d`` = line's squared error - trees', averaged over the edges holding a row out) and over
the better, row by row, of that line and a line with each input's square added; printed as
``mean(d)`` in standard errors (``t``; the test ``held_edges`` uses: trees clearly better at
``t >= 2``). No scinum model is fitted.

    python experiments/tables-clamp-probe/edges.py > experiments/tables-clamp-probe/edges.txt
"""

import sys
from pathlib import Path

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import LinearRegression

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "recipes"))
import tables_by_range as tbr  # noqa: E402

from scinum.fill.line import _edges  # noqa: E402

TOYS = {"straight": lambda x: 2 * x + 1, "saturating": lambda x: np.tanh(4 * x), "curved": lambda x: np.exp(2 * x)}


def t_values(X: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(t of the trees against the line, t of the trees against the better of line and quadratic)."""
    Q = np.hstack([X, (X - X.mean(0)) ** 2])
    rows, over_line, over_both = [], [], []
    for _, _, out in _edges(X):
        line = LinearRegression().fit(X[~out], y[~out]).predict(X[out])
        quad = LinearRegression().fit(Q[~out], y[~out]).predict(Q[out])
        trees = HistGradientBoostingRegressor(random_state=0).fit(X[~out], y[~out]).predict(X[out])
        e_line, e_quad, e_trees = (line - y[out]) ** 2, (quad - y[out]) ** 2, (trees - y[out]) ** 2
        rows.append(np.flatnonzero(out))
        over_line.append(e_line - e_trees)
        over_both.append(np.minimum(e_line, e_quad) - e_trees)
    if not rows:
        return float("nan"), float("nan")
    ids, where = np.unique(np.concatenate(rows), return_inverse=True)
    out = []
    for gain in (over_line, over_both):
        d = np.bincount(where, weights=np.concatenate(gain)) / np.bincount(where)
        out.append(float(d.mean() / (d.std(ddof=1) / np.sqrt(len(d)))))
    return out[0], out[1]


def main() -> None:
    print("table seed t_over_line t_over_line_or_quadratic")
    for seed in (0, 1, 2):
        rng = np.random.default_rng(seed)
        x = rng.uniform(0, 1, 200)
        for name, f in TOYS.items():  # the toys' draws, in tests/test_past_range.py's order
            y = f(x) + rng.normal(0, 0.02, len(x))
            print(f"toy:{name} {seed} {t_values(x[:, None], y)[0]:.2f} {t_values(x[:, None], y)[1]:.2f}")
    for name in tbr.DEVELOPMENT:
        X, y = tbr.load(name)
        for seed in (0, 1):
            train = tbr.splits(X, name, seed)["train"]
            a, b = t_values(X.iloc[train].to_numpy(np.float64), y.iloc[train].to_numpy(np.float64))
            print(f"{name} {seed} {a:.2f} {b:.2f}")


if __name__ == "__main__":
    main()
