"""CPU seconds of one ``scinum.Regressor(seed=0).fit`` at its defaults on the synthetic table
``ROWSxINPUTS`` of ``benchmarks/regressor_fit_time.py`` (one thread); run it under two checkouts
to pair them (README, *Fit time, paired*)::

    OMP_NUM_THREADS=1 farm-bench -n 3 --warmup 0 --pin 0 \\
        --vs "sh -c 'PYTHONPATH=BEFORE exec python experiments/tables-fit-budget/time_fit.py 17x2'" \\
        -- python experiments/tables-fit-budget/time_fit.py 17x2
"""

import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from regressor_fit_time import synthetic  # noqa: E402

import scinum  # noqa: E402

if __name__ == "__main__":
    torch.set_num_threads(1)
    rows, inputs = map(int, sys.argv[1].split("x"))
    X, y = synthetic(rows, inputs)
    t, w = time.process_time(), time.perf_counter()
    scinum.Regressor(seed=0).fit(X, y)
    print(f"{sys.argv[1]} {scinum.__file__}: cpu {time.process_time() - t:.2f} s, wall {time.perf_counter() - w:.2f} s", flush=True)
