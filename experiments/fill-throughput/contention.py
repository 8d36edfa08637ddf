"""Where two threads lose against two processes in ``Model.predict_many``: the same 2,000 planets
records and the quick preset's xVal model as ``benchmarks/fill_throughput.py``, filled

* ``one thread``: ``predict_many`` with ``torch.set_num_threads(1)`` (no pool);
* ``two processes``: two copies of this script's ``one thread`` fill running at once, each on
  one thread, their records a second summed (what the two cores give when nothing is shared);
* ``prepared, then two threads``: every record prepared first on this thread, then the slices
  predicted on two threads (:meth:`~scinum.fill.model.Model.run_jobs` in the fill's pool): preparing
  never runs beside predicting;
* ``two threads (predict_many)``: ``predict_many(processes=False)``, its threads taking turns with
  preparing (the default where the system cannot fork);
* ``forked (predict_many)``: ``predict_many`` as a user calls it on Linux, this process and a
  forked copy each preparing and predicting its slices.

Records a second and, in brackets, CPU ms a record (all threads of the process and of the copies
it reaped; not measured for the two processes), ``--rounds`` rounds in turn, on this commit's
scinum.

    python experiments/fill-throughput/contention.py [--rounds 3] [--values-alone]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from fill_throughput import cpu_seconds, quick_model  # noqa: E402

from scinum.datasets.directory import Dataset  # noqa: E402
from scinum.fill.batching import batch_threads, no_gc  # noqa: E402
from scinum_simulations.planets import PlanetsConfig, build  # noqa: E402

MASK = ["description.stepsize"]
SLICE = 128  # batch 256 on two threads, as predict_many slices it


def timed(fn) -> tuple[float, float]:
    """(records a second, CPU ms a record) of ``fn()`` filling 2,000 records."""
    t, c = time.perf_counter(), cpu_seconds()
    n = fn()
    return n / (time.perf_counter() - t), 1000 * (cpu_seconds() - c) / n


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--values-alone", action="store_true", help="the trunk reading the values alone (model.structure_tokens false)")
    p.add_argument("--child", type=float, default=None, help=argparse.SUPPRESS)  # a 'two processes' copy: its start time
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp) / "d", train=2000, val=0, test=0, ood=0, seed=0, config=PlanetsConfig(steps=12), workers=1)
        records = list(Dataset(Path(tmp) / "d").records("train"))
    model = quick_model(records, structure_tokens=not a.values_alone)
    model.fill_many(records[:64], MASK)  # warm-up

    def fill(processes: bool | None = None) -> int:
        return len(model.predict_many(records, MASK, processes=processes))

    if a.child is not None:  # start together, fill on one thread, print the rate
        torch.set_num_threads(1)
        time.sleep(max(0.0, a.child - time.time()))
        print(f"{timed(fill)[0]:.1f}")
        return

    def prepared_then_threads() -> int:
        with no_gc():
            jobs = [model.prepare(r, MASK, index=i) for i, r in enumerate(records)]
            with batch_threads(model.device) as (pool, _):
                assert pool is not None
                slices = [jobs[k : k + SLICE] for k in range(0, len(jobs), SLICE)]
                return sum(len(part) for part in pool.map(lambda s: model.run_jobs(s, batch_size=SLICE), slices))

    def two_processes() -> tuple[float, float]:
        argv = [sys.executable, __file__, "--child", str(time.time() + 25)] + (["--values-alone"] if a.values_alone else [])
        procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) for _ in range(2)]
        rates = [float(proc.communicate()[0].split()[-1]) for proc in procs]
        return sum(rates), float("nan")

    print(
        f"2000 planets records, the quick preset's xVal model{' reading the values alone' if a.values_alone else ''}; "
        f"records/s and CPU ms a record"
    )
    for r in range(a.rounds):
        row = []
        torch.set_num_threads(1)
        row.append(("one thread", *timed(fill)))
        torch.set_num_threads(2)
        row.append(("two threads (predict_many)", *timed(lambda: fill(processes=False))))
        row.append(("forked (predict_many)", *timed(lambda: fill(processes=True))))
        row.append(("prepared, then two threads", *timed(prepared_then_threads)))
        row.append(("two processes (summed)", *two_processes()))
        cells = (f"{name} {rate:.0f}" + ("" if ms != ms else f" ({ms:.3f})") for name, rate, ms in row)  # ms NaN: not measured
        print(f"round {r + 1}: " + "; ".join(cells), flush=True)


if __name__ == "__main__":
    main()
