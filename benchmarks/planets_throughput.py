"""Planets builder throughput vs a plain reference, side by side in one run.

* project: :func:`simulations.planets.build` (``--workers`` processes, bulk position reads with
  ``serialize_particle_data``, sharded atomic writes), timed wall-clock from the call to the
  manifest, worker start-up included;
* reference: one process, a Python loop over ``sim.particles`` at each output time reading
  ``x``/``y`` attribute by attribute (as the xVal reference script does), same priors, same
  sub-seeds, same rejection rule, ``json.dumps`` of each sample to one file.

Both produce the same samples (checked line by line, bit for bit). A per-phase breakdown
(single process) says where the time goes. Usage::

    python benchmarks/planets_throughput.py [--samples 20000] [--steps 20] [--workers 2]

The last line is the headline: ``planets_throughput: A samples/s vs reference B samples/s = Rx``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import rebound

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scinum.datasets import Dataset  # noqa: E402
from simulations.planets import BOUND, PlanetsConfig, build, simulate, to_record  # noqa: E402
from simulations.planets_prior import System, draw_system, sample_rng  # noqa: E402

SPLIT = "train"
PHASES = {"draw": "draw (sub-seed generator + priors)",
          "setup": "setup (Simulation + add planets)",
          "integrate": "integrate (IAS15 to every output time)",
          "read_bulk": "read, project (serialize_particle_data)",
          "read_attr": "read, reference (p.x, p.y attributes)",
          "read_xval": "read, xVal-style (p.a, p.e, p.omega, p.f, p.x, p.y)",
          "json": "json.dumps of the record",
          "simulate()": "simulate() total (setup + integrate + bulk read)"}


def _reference_sim(system: System) -> rebound.Simulation:
    sim = rebound.Simulation()
    sim.integrator = "ias15"
    sim.add(m=1.0)
    for m, a, e, theta in zip(system.m, system.a, system.e, system.theta):
        sim.add(primary=sim.particles[0], m=float(m), a=float(a), e=float(e),
                theta=float(theta))
    return sim


def _reference_positions(system: System, steps: int, xval_reads: bool = False) -> list:
    """``[steps][planet][x, y]`` heliocentric, read attribute by attribute from ``sim.particles``.

    ``xval_reads`` also reads ``a, e, omega, f`` of each planet, as the xVal script does.
    """
    sim = _reference_sim(system)
    out = []
    for k in range(steps):
        sim.integrate(k * system.stepsize)
        star = sim.particles[0]
        row = []
        for j, p in enumerate(sim.particles):
            if j == 0:
                continue
            if xval_reads:
                _ = (p.a, p.e, p.omega, p.f)
            row.append([p.x - star.x, p.y - star.y])
        out.append(row)
    return out


def reference_build(path: Path, n: int, seed: int, config: PlanetsConfig) -> int:
    """The plain reference: one process, one JSONL file; returns the number of rejected draws."""
    rejected = 0
    with open(path, "w") as f:
        for i in range(n):
            for attempt in range(config.max_attempts):
                system = draw_system(sample_rng(seed, SPLIT, i, attempt), config, SPLIT)
                try:
                    data = _reference_positions(system, config.steps)
                except (rebound.GenericError, rebound.Escape, rebound.Encounter):
                    rejected += 1
                    continue
                if max(abs(v) for step in data for p in step for v in p) < BOUND:
                    break
                rejected += 1
            desc = {f"planet{j}": {"m": float(system.m[j]) * 1e5, "a": float(system.a[j]),
                                   "e": float(system.e[j]) * 20} for j in range(len(system.m))}
            desc["stepsize"] = float(system.stepsize)
            f.write(json.dumps({"description": desc, "data": data}, separators=(",", ":")) + "\n")
    return rejected


def breakdown(n: int, seed: int, config: PlanetsConfig) -> dict[str, float]:
    """Mean seconds per sample of each phase, one process, the first ``n`` samples."""
    t = dict.fromkeys(PHASES, 0.0)
    for i in range(n):
        c0 = time.perf_counter()
        system = draw_system(sample_rng(seed, SPLIT, i, 0), config, SPLIT)
        c1 = time.perf_counter()
        sims = [_reference_sim(system) for _ in range(3)]
        c2 = time.perf_counter()
        xyz = np.empty((sims[0].N, 3))
        for k in range(config.steps):
            c3 = time.perf_counter()
            for sim in sims:
                sim.integrate(k * system.stepsize)
            c4 = time.perf_counter()
            sims[0].serialize_particle_data(xyz=xyz)
            _ = xyz[1:, :2] - xyz[:1, :2]
            c5 = time.perf_counter()
            _ = [[p.x - sims[1].particles[0].x, p.y - sims[1].particles[0].y]
                 for p in sims[1].particles[1:]]
            c6 = time.perf_counter()
            _ = [[(p.a, p.e, p.omega, p.f), p.x - sims[2].particles[0].x,
                  p.y - sims[2].particles[0].y] for p in sims[2].particles[1:]]
            c7 = time.perf_counter()
            t["integrate"] += (c4 - c3) / 3
            t["read_bulk"] += c5 - c4
            t["read_attr"] += c6 - c5
            t["read_xval"] += c7 - c6
        c8 = time.perf_counter()
        record = to_record(system, simulate(system, config.steps))
        c9 = time.perf_counter()
        json.dumps(record, separators=(",", ":"))
        c10 = time.perf_counter()
        t["draw"] += c1 - c0
        t["setup"] += (c2 - c1) / 3
        t["simulate()"] += c9 - c8
        t["json"] += c10 - c9
    return {k: v / n for k, v in t.items()}


def worker_startup() -> float:
    """Seconds a fresh interpreter needs to import the builder (what each spawned worker pays)."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import simulations.planets"], check=True,
                   cwd=Path(__file__).resolve().parents[1])
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--samples", type=int, default=20000)
    p.add_argument("--steps", type=int, default=PlanetsConfig().steps)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--breakdown-samples", type=int, default=300)
    args = p.parse_args(argv)
    config = PlanetsConfig(steps=args.steps)
    n = args.samples
    shard = max(1, -(-n // (8 * args.workers)))
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        rejected_ref = reference_build(Path(tmp) / "ref.jsonl", n, args.seed, config)
        t_ref = time.perf_counter() - t0
        t0 = time.perf_counter()
        manifest = build(Path(tmp) / "ds", train=n, val=0, test=0, ood=0, seed=args.seed,
                         config=config, workers=args.workers, shard_size=shard)
        t_new = time.perf_counter() - t0
        ours = [json.dumps(r, separators=(",", ":"))
                for r in Dataset(Path(tmp) / "ds").records(SPLIT)]
        ref = (Path(tmp) / "ref.jsonl").read_text().splitlines()
        identical = ours == ref
    startup = worker_startup()
    phases = breakdown(args.breakdown_samples, args.seed, config)
    rate_new, rate_ref = n / t_new, n / t_ref
    print(f"# {n} samples, {args.steps} steps, seed {args.seed}, {args.workers} workers "
          f"(shards of {shard}), {os.cpu_count()} CPUs, REBOUND {rebound.__version__}")
    print(f"# same samples in both: {identical}; rejected draws: project "
          f"{manifest['splits'][SPLIT]['stats'].get('rejected', 0)}, reference {rejected_ref}")
    print(f"{'path':<52}{'seconds':>10}{'samples/s':>12}")
    print(f"{'reference (1 process, sim.particles attribute reads)':<52}{t_ref:>10.2f}"
          f"{rate_ref:>12.1f}")
    print(f"{f'project build() ({args.workers} workers, bulk reads)':<52}{t_new:>10.2f}"
          f"{rate_new:>12.1f}")
    print(f"{'  start-up per spawned worker (import, in parallel)':<52}{startup:>10.2f}")
    print(f"\n# per-sample phases, one process, mean of {args.breakdown_samples} samples (ms)")
    for k, v in phases.items():
        print(f"{PHASES[k]:<52}{v * 1e3:>10.3f}")
    print(f"planets_throughput: {rate_new:.1f} samples/s vs reference {rate_ref:.1f} samples/s "
          f"= {rate_new / rate_ref:.2f}x (target >= 5x)")


if __name__ == "__main__":
    main()
