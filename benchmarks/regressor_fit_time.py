"""``scinum.Regressor``'s fit time on tables of growing size, beside scikit-learn's.

On one thread (``torch.set_num_threads(1)``; run it with ``OMP_NUM_THREADS=1``), for each table:
the CPU seconds of ``scinum.Regressor(seed=0).fit`` at its defaults, then of the references on
the same rows in the same process — scikit-learn's ``HistGradientBoostingRegressor`` and ridge
regression — and the held-out MSE of each (a seeded quarter of the rows). Tables: synthetic
(a linear trend with a bend in one input and Gaussian noise, seeded), ``n`` rows × ``k`` inputs.
The trainer (Lightning) is imported before the first fit and its CPU seconds printed apart: a
process's first fit pays them once, and the first table would otherwise carry them.
Then the floor (what the long operations of the fit's steps need) and the selector's share (the
CPU seconds of choosing the line and of testing whether the rows bend, :mod:`scinum.fill.line`).
The last line is the headline for the 1,000 × 10 table::

    regressor_fit_time: <s> s vs reference <s> s = <ratio>x (target <= 10 s)

(the reference: boosted trees' fit on the same table; the old fixed-budget path's time, measured
before the budget followed the table, is in experiments/regressor-fit-time/README.md).

    OMP_NUM_THREADS=1 python benchmarks/regressor_fit_time.py [--tables 17x2 640x4 1000x10 10000x4] [--json OUT]
    python benchmarks/regressor_fit_time.py --smoke     # a smoke run in seconds (tiny model and budget)

The load average (``os.getloadavg``) is printed beside each row: on a busy machine CPU seconds
are the figure to read, wall seconds grow with the load.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

#: the tables measured by default: rows x inputs
TABLES = ("17x2", "640x4", "1000x10", "10000x4")
#: the headline table
HEADLINE = "1000x10"
#: the tiny run's estimator options (a smoke test of the script, not a measurement)
TINY = {"samples": 64, "members": 1, "d_model": 16, "n_layers": 1, "n_heads": 2}


def synthetic(rows: int, inputs: int, seed: int = 0):
    """``(X, y)``: ``rows`` rows of ``inputs`` standard normal columns; ``y`` a seeded linear
    trend plus ``0.5·sin(x0)`` plus noise of standard deviation 0.1."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, inputs))
    y = X @ rng.normal(size=inputs) + 0.5 * np.sin(X[:, 0]) + 0.1 * rng.normal(size=rows)
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(inputs)]), pd.Series(y, name="y")


#: the old fixed-20,000-records path's timings (no longer runnable here), measured before the change
OLD = Path(__file__).resolve().parent.parent / "experiments" / "regressor-fit-time" / "timing.jsonl"


def _old_figure(table: str) -> dict | None:
    """The old path's timing of the synthetic ``table`` from :data:`OLD` (None if absent)."""
    if not OLD.is_file():
        return None
    for line in OLD.read_text().splitlines():
        side, _, body = line.partition(" ")
        r = json.loads(body)
        if side == "before" and r["table"] == f"synth{table}":
            return r
    return None


def measure(model, X, y, train: np.ndarray, test: np.ndarray) -> dict:
    """CPU and wall seconds of ``model.fit`` on the ``train`` rows; MSE on the ``test`` rows."""
    from scinum.fill.extrapolation import ExtrapolationWarning

    cpu, wall = time.process_time(), time.perf_counter()
    model.fit(X.iloc[train], y.iloc[train])
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        pred = np.asarray(model.predict(X.iloc[test]))
    mse = float(np.mean((pred - y.iloc[test].to_numpy()) ** 2))
    return {"cpu_s": round(cpu, 3), "wall_s": round(wall, 3), "mse": mse, "load": round(os.getloadavg()[0], 2)}


#: an operation whose calls average at least this long (µs) counts towards the floor: the profiler's
#: own cost a call (a few µs) is then under a few per cent of it
FLOOR_CALL_US = 100.0


def kernel_floor(X, y, steps: int, options: dict) -> tuple[float, str]:
    """CPU ms a training step (its share of validation included) that the fit's long operations
    take on one thread — the matrix products, attention and GELU with their gradients, each call
    averaging at least :data:`FLOOR_CALL_US` — from a one-member fit of ``steps`` steps under
    :mod:`torch.profiler`; and the three largest as text. A lower bound of a step's cost: the
    Python around them, the short operations and the data are left out."""
    from torch.profiler import ProfilerActivity, profile

    import scinum

    batch = min(scinum.Regressor().batch_size, len(X))
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        reg = scinum.Regressor(seed=0, **{**options, "members": 1, "samples": steps * batch}).fit(X, y)
    done = _steps(reg)
    ops = [e for e in prof.key_averages() if e.key.startswith("aten::") and e.count and e.self_cpu_time_total / e.count >= FLOOR_CALL_US]
    ops.sort(key=lambda e: -e.self_cpu_time_total)
    total_us = sum(e.self_cpu_time_total for e in ops)
    top = ", ".join(f"{e.key.removeprefix('aten::')} {e.self_cpu_time_total / total_us:.0%}" for e in ops[:3])
    return total_us / 1000 / done, top


def selector_seconds(X, y) -> tuple[float, float, float]:
    """CPU seconds of choosing the line on these rows as the fit does (:meth:`scinum.fill.line.Line.fit`:
    the trees stop once their edge errors pass the line's), with every edge's trees fitted, and of
    testing whether the rows bend (:func:`scinum.fill.line.bends_clearly`: the curvature penalty
    off where they do)."""
    from scinum.fill.line import Line, bends_clearly, edge_errors

    records = [{**{str(c): float(v) for c, v in row.items()}, "y": float(t)} for row, t in zip(X.to_dict("records"), y)]
    cpu = time.process_time()
    Line.fit(records, ["y"])
    quick = time.process_time() - cpu
    cpu = time.process_time()
    edge_errors(X.to_numpy(np.float64), y.to_numpy(np.float64))
    full = time.process_time() - cpu
    cpu = time.process_time()
    bends_clearly(records, ["y"])
    return quick, full, time.process_time() - cpu


def _steps(reg) -> int:
    """Optimizer steps a fitted Regressor's members took together."""
    return sum(
        int(m.meta.run["best"]["last_step"]) if m.meta.run.get("best") else int(m.meta.run["training"]["max_steps"]) for m in reg.models_
    )


def main(argv: list[str] | None = None) -> int:
    import torch
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.linear_model import Ridge

    import scinum

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=list(TABLES), help="rows x inputs, e.g. 1000x10")
    parser.add_argument("--json", type=Path, help="write every row there")
    parser.add_argument("--smoke", dest="tiny", action="store_true", help="a smoke run: two tiny tables, a tiny model and budget")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    tables = ["17x2", "60x10"] if args.tiny else args.tables
    headline = tables[-1] if args.tiny else HEADLINE
    options = TINY if args.tiny else {}
    rows = []
    print(f"load average at start: {os.getloadavg()}", file=sys.stderr)
    cpu = time.process_time()
    import scinum.train.fit  # noqa: F401  (Lightning: a process's first fit imports it)

    print(f"import: a process's first fit also imports the trainer (Lightning): {time.process_time() - cpu:.2f} CPU s, not in the rows")
    print(f"{'table':>10} {'model':<16} {'cpu s':>8} {'wall s':>8} {'test MSE':>10} {'load':>5}")
    for name in tables:
        n, k = (int(v) for v in name.split("x"))
        X, y = synthetic(n, k)
        order = np.random.default_rng(0).permutation(n)
        test, train = np.sort(order[: n // 4]), np.sort(order[n // 4 :])
        if name == headline:  # the floor's fit reads the same training rows
            headline_train = (X.iloc[train], y.iloc[train])
        models = {
            "scinum.Regressor": scinum.Regressor(seed=0, **options),
            "boosted trees": HistGradientBoostingRegressor(random_state=0),
            "ridge": Ridge(),
        }
        for label, model in models.items():
            r = {"table": name, "rows": len(train), "inputs": k, "model": label, **measure(model, X, y, train, test)}
            if label == "scinum.Regressor":
                r["steps"] = _steps(model)
            rows.append(r)
            print(f"{name:>10} {label:<16} {r['cpu_s']:8.2f} {r['wall_s']:8.2f} {r['mse']:10.4g} {r['load']:5.2f}", flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"tiny": args.tiny, "rows": rows}, indent=1) + "\n")
    ours = next(r for r in rows if r["table"] == headline and r["model"] == "scinum.Regressor")
    ref = next(r for r in rows if r["table"] == headline and r["model"] == "boosted trees")
    old = _old_figure(headline)
    if old:
        cells = f"{old['cpu_s']:8.2f} {old['wall_s']:8.2f} {'':>10} {old['load']:5.2f}"
        print(f"{headline:>10} {'old fixed budget':<16} {cells}  (measured before the change: {OLD.name})")
    step_ms, top = kernel_floor(*headline_train, 20 if args.tiny else 100, options)
    print(
        f"floor: the long operations of a step ({top}) take {step_ms:.1f} CPU ms on one thread; the "
        f"{headline} fit's {ours['steps']} steps (all members) need at least {step_ms * ours['steps'] / 1000:.1f} s of them"
    )
    quick, full, bends = selector_seconds(*headline_train)
    print(
        f"selector: choosing the line takes {quick:.2f} CPU s of the {headline} fit ({full:.2f} s with every edge's trees "
        f"fitted); testing whether its rows bend {bends:.2f} s"
    )
    ratio = ours["cpu_s"] / max(ref["cpu_s"], 1e-9)
    print(f"regressor_fit_time: {ours['cpu_s']:.2f} s vs reference {ref['cpu_s']:.2f} s = {ratio:.1f}x (target <= 10 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
