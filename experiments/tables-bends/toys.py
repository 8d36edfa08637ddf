"""The toy tables of ``tests/test_past_range.py`` (200 rows of x in [0, 1], noise 0.02, the
tests' draws, seeds 0-2) fitted at ``scinum.Regressor``'s defaults, with the rule
(``bends_clearly``: the penalty off where the rows bend clearly) and with the penalty forced
on (``config={"optim": {"curvature_weight": 10.0}}``, the default before). Per toy and seed:
whether the rule fires, the MSE against the truth inside the range (101 points on [0, 1]) and
past it (11 points on [1, 1.5]) of each fit, and of least squares and boosted trees.

    python experiments/tables-bends/toys.py > experiments/tables-bends/toys.txt
"""

import warnings

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import LinearRegression

import scinum

TOYS = {"straight": lambda x: 2 * x + 1, "saturating": lambda x: np.tanh(4 * x), "curved": lambda x: np.exp(2 * x)}
INSIDE, PAST = np.linspace(0.0, 1.0, 101), np.linspace(1.0, 1.5, 11)


def main() -> None:
    print("toy seed bends where mse_rule mse_penalty least_squares boosted_trees")
    for seed in (0, 1, 2):
        rng = np.random.default_rng(seed)
        x = rng.uniform(0, 1, 200)
        for name, f in TOYS.items():
            y = f(x) + rng.normal(0, 0.02, len(x))
            fits = [scinum.Regressor(seed=seed).fit(x[:, None], y)]
            fits.append(scinum.Regressor(seed=seed, config={"optim": {"curvature_weight": 10.0}}).fit(x[:, None], y))
            standard = [m.fit(x[:, None], y) for m in (LinearRegression(), HistGradientBoostingRegressor())]
            for where, grid in (("inside", INSIDE), ("past", PAST)):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    mse = [np.mean((m.predict(grid[:, None]) - f(grid)) ** 2) for m in (*fits, *standard)]
                print(name, seed, bool(fits[0].bends_[0]), where, " ".join(f"{v:.4g}" for v in mse), flush=True)


if __name__ == "__main__":
    main()
