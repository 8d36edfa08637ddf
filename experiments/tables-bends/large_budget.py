"""The larger synthetic tables of large.py at 10 000 rows, fitted with three times the default
budget (``samples=60000``; the default gives these tables 20 000 records, the floor of 625
steps): MSE against the noise-free truth inside the range and past it, and the fit's CPU
seconds. A reference measurement beside large.py's default fits: nothing is chosen from it.

    python experiments/tables-bends/large_budget.py SHAPE > experiments/tables-bends/large-budget-SHAPE.txt
"""

import runpy
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import scinum

LARGE = runpy.run_path(str(Path(__file__).resolve().parent / "large.py"))
SAMPLES = 60000


def main(shape: str) -> None:
    print("shape rows seed samples mse_inside mse_past fit_s")
    for seed in LARGE["SEEDS"]:
        X, y, truth = LARGE["table"](shape, 10000, seed)
        train, inside, past = LARGE["split"](X, seed)
        cpu = time.process_time()
        reg = scinum.Regressor(seed=seed, samples=SAMPLES).fit(X.iloc[train], y[train])
        seconds = time.process_time() - cpu
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mse = [np.mean((np.asarray(reg.predict(X.iloc[rows])) - truth[rows]) ** 2) for rows in (inside, past)]
        print(shape, 10000, seed, SAMPLES, f"{mse[0]:.4g} {mse[1]:.4g} {seconds:.1f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
