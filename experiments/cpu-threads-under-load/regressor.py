"""One ``scinum.Regressor(seed=0).fit`` of the synthetic 640 x 4 table of
benchmarks/regressor_fit_time.py (480 training rows) as a user's process runs it: torch's default
threads (every core). Run from the repository root:

    python experiments/cpu-threads-under-load/regressor.py default|spin [N_JOBS]

``default``: ``import scinum`` first (GOMP_SPINCOUNT=1000); ``spin``: torch imported first (the
OpenMP runtime's own spin count). ``N_JOBS``: the Regressor's ``n_jobs`` (default: its own,
one thread a member; ``-1``: the process's threads, as every fit trained before ``n_jobs``).
Prints the fit's wall and CPU seconds and the held-out MSE.
"""

import sys
import time
import warnings

mode, *jobs = sys.argv[1:] or ["?"]
if mode == "spin":
    import torch  # noqa: F401  before scinum: the runtime keeps its own spin count
elif mode != "default" or len(jobs) > 1:
    raise SystemExit(__doc__)
n_jobs = {"n_jobs": int(jobs[0])} if jobs else {}

sys.path.insert(0, "benchmarks")
import numpy as np  # noqa: E402

import scinum  # noqa: E402
from regressor_fit_time import synthetic  # noqa: E402

warnings.filterwarnings("ignore")
X, y = synthetic(640, 4)
wall, cpu = time.perf_counter(), time.process_time()
reg = scinum.Regressor(seed=0, **n_jobs).fit(X.iloc[:480], y.iloc[:480])
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
mse = float(np.mean((reg.predict(X.iloc[480:]) - y.iloc[480:].to_numpy()) ** 2))
print(f"{' '.join(sys.argv[1:])}: fit {wall:.2f} s wall, {cpu:.2f} s CPU; held-out MSE {mse:.5f}")
