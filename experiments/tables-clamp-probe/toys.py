"""Past the range of the toy tables of ``tests/test_past_range.py`` (x in [0, 1], predicted at
1.0 ... 1.5): the MSE against the truth of ``scinum.Regressor``'s network held at the edge
(``extrapolation="edge"``) and going on (``"network"``, what the default does for a target
without a line), beside least squares and boosted trees. The toys' fits: 200 rows, one member,
4 000 samples, seeds 0-2, as the tests fit them.

    python experiments/tables-clamp-probe/toys.py > experiments/tables-clamp-probe/toys.txt
"""

import warnings

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import LinearRegression

import scinum

TOYS = {"straight": lambda x: 2 * x + 1, "saturating": lambda x: np.tanh(4 * x), "curved": lambda x: np.exp(2 * x)}


def main() -> None:
    print("toy seed edge network least_squares boosted_trees")
    past = np.linspace(1.0, 1.5, 11)
    for seed in (0, 1, 2):
        rng = np.random.default_rng(seed)
        x = rng.uniform(0, 1, 200)
        for name, f in TOYS.items():
            y = f(x) + rng.normal(0, 0.02, len(x))
            if name == "straight":  # drawn to keep the tests' data; a line carries it
                continue
            reg = scinum.Regressor(samples=4000, members=1, seed=seed).fit(x[:, None], y)
            mse = []
            for mode in ("edge", "network"):
                reg.set_params(extrapolation=mode)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    mse.append(np.mean((reg.predict(past[:, None]) - f(past)) ** 2))
            for m in (LinearRegression(), HistGradientBoostingRegressor()):
                mse.append(np.mean((m.fit(x[:, None], y).predict(past[:, None]) - f(past)) ** 2))
            print(name, seed, " ".join(f"{v:.4g}" for v in mse), flush=True)


if __name__ == "__main__":
    main()
