"""Planets builder throughput vs a plain reference, side by side in one run.

* project: :func:`simulations.planets.build` (``--workers`` processes, bulk position reads with
  ``serialize_particle_data``, sharded atomic writes), timed wall-clock from the call to the
  manifest, worker start-up included;
* reference: one process, a Python loop over ``sim.particles`` at each output time reading
  ``x``/``y`` attribute by attribute (as the xVal reference script does), same priors, same
  sub-seeds, same rejection rule, ``json.dumps`` of each sample to one file.

Both produce the same samples (checked line by line, bit for bit). A per-phase breakdown
(single process) says where the time goes. Usage::

    python benchmarks/planets_throughput.py [--samples 20000] [--rounds 2] [--steps 20] [--workers 2]

The last line is the headline: ``planets_throughput: A samples/s vs reference B samples/s = Rx``.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
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


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and its finished (joined) children."""
    me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def worker_startup() -> float:
    """Seconds a fresh interpreter needs to import the builder (what each spawned worker pays)."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import simulations.planets"], check=True,
                   cwd=Path(__file__).resolve().parents[1])
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--samples", type=int, default=20000, help="samples per path, all rounds")
    p.add_argument("--rounds", type=int, default=2, help="interleaved rounds")
    p.add_argument("--steps", type=int, default=PlanetsConfig().steps)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--breakdown-samples", type=int, default=300)
    args = p.parse_args(argv)
    config = PlanetsConfig(steps=args.steps)
    n = args.samples // args.rounds
    shard = max(1, -(-n // (4 * args.workers)))
    load = os.getloadavg()[0]
    paths = {"reference": "reference (1 process, sim.particles attribute reads)",
             "project": f"project build() ({args.workers} workers, bulk reads)",
             "project1": "project build() (1 worker, bulk reads)"}
    seconds, cpu = dict.fromkeys(paths, 0.0), dict.fromkeys(paths, 0.0)
    identical, rejected = True, dict.fromkeys(paths, 0)
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):  # interleaved: the machine may be shared
            seed, ref_file = args.seed + r, Path(tmp) / f"ref{r}.jsonl"
            t0, c0 = time.perf_counter(), cpu_seconds()
            rejected["reference"] += reference_build(ref_file, n, seed, config)
            seconds["reference"] += time.perf_counter() - t0
            cpu["reference"] += cpu_seconds() - c0
            for key, workers in (("project", args.workers), ("project1", 1)):
                out = Path(tmp) / f"{key}{r}"
                t0, c0 = time.perf_counter(), cpu_seconds()
                manifest = build(out, train=n, val=0, test=0, ood=0, seed=seed, config=config,
                                 workers=workers, shard_size=shard)
                seconds[key] += time.perf_counter() - t0
                cpu[key] += cpu_seconds() - c0
                rejected[key] += manifest["splits"][SPLIT]["stats"].get("rejected", 0)
                ours = [json.dumps(rec, separators=(",", ":"))
                        for rec in Dataset(out).records(SPLIT)]
                identical &= ours == ref_file.read_text().splitlines()
    startup = worker_startup()
    phases = breakdown(args.breakdown_samples, args.seed, config)
    total = n * args.rounds
    rate = {k: total / v for k, v in seconds.items()}
    print(f"# {total} samples per path in {args.rounds} interleaved rounds, {args.steps} steps, "
          f"{args.workers} workers (shards of {shard}), {os.cpu_count()} CPUs, "
          f"REBOUND {rebound.__version__}; 1-min load average {load:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after")
    print(f"# same samples in every path: {identical}; rejected draws: {rejected}")
    print(f"{'path':<56}{'wall s':>8}{'samples/s':>11}{'vs ref':>8}{'CPU s':>8}")
    for k, label in paths.items():
        print(f"{label:<56}{seconds[k]:>8.2f}{rate[k]:>11.1f}"
              f"{rate[k] / rate['reference']:>7.2f}x{cpu[k]:>8.2f}")
    print(f"{'start-up of one spawned worker (imports), per split':<56}{startup:>8.2f}")
    print(f"\n# per-sample phases, one process, mean of {args.breakdown_samples} samples (ms)")
    for k, v in phases.items():
        print(f"{PHASES[k]:<56}{v * 1e3:>9.3f}")
    print(f"planets_throughput: {rate['project']:.1f} samples/s vs reference "
          f"{rate['reference']:.1f} samples/s = {rate['project'] / rate['reference']:.2f}x "
          f"(target >= 5x)")


if __name__ == "__main__":
    main()
