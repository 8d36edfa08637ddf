"""Planets dataset builder: REBOUND (IAS15) orbit simulations into JSON samples (xVal, seed 002).

``scinum build planets OUT --train N --val N --test N --ood N --seed S --workers W [...]``
writes a dataset directory (see :mod:`scinum.datasets.directory`) with splits ``train``, ``val``,
``test`` (training prior), ``ood_stepsize`` and ``ood_a1`` (``--ood`` samples each). Priors and
OOD constructions: :mod:`scinum_simulations.planets_prior`; the integration: :mod:`scinum_simulations.orbits`;
user docs: ``simulations/README.md``.

A sample::

    {"description": {"planet0": {"m": 2.38, "a": 2.96, "e": 1.73}, ..., "stepsize": 0.2},
     "data": [[[x, y] per planet] per output time]}

``m`` is reported ×1e5, ``e`` ×20 (as in the paper; the manifest says how to undo it), ``a`` and
``stepsize`` as is. ``data[k][j]`` is planet j's heliocentric position at ``t = k·stepsize``
(so ``data[0]`` is the initial state), all float64 written in shortest round-trip form.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import rebound

from scinum.datasets.directory import PART_HELP, DatasetWriter, parse_part
from scinum.datasets.writing import ShardWorkers
from scinum.errors import DatasetError

from .orbits import new_simulation, trajectory
from .planets_prior import ANGLE_HALF_WIDTH, BLOCK, ECC_RANGE, MASS_RANGE, ZERO_ANGLE_PROB, Draws, PlanetsConfig, StepCounts, System

__all__ = [
    "PlanetsConfig",
    "SampleMaker",
    "new_simulation",
    "trajectory",
    "simulate",
    "to_record",
    "build",
    "add_arguments",
    "run",
    "BOUND",
    "MASS_SCALE",
    "ECC_SCALE",
]

BUILDER_VERSION = "2"  #: 2: draws vectorised per block of samples (other samples than 1)
BOUND = 10.0  #: a system is unstable once any |x| or |y| reaches this (length units)
MASS_SCALE = 1e5  #: masses are reported multiplied by this
ECC_SCALE = 20.0  #: eccentricities are reported multiplied by this
_REBOUND_ERRORS = (rebound.GenericError, rebound.Escape, rebound.Encounter, rebound.Collision, rebound.NoParticles)


def simulate(system: System, steps: int) -> np.ndarray:
    """Heliocentric positions of ``system``, float64 ``[steps, n_planets, 2]`` (reported order)
    at ``t_k = k·stepsize``: :func:`trajectory` of :func:`new_simulation`."""
    return trajectory(new_simulation(system), system.stepsize, steps)


def to_record(system: System, positions: np.ndarray) -> dict:
    """The JSON record of a system and its ``[steps, n, 2]`` positions (scaled ``m`` and ``e``)."""
    description: dict[str, Any] = {
        f"planet{j}": {"m": float(system.m[j]) * MASS_SCALE, "a": float(system.a[j]), "e": float(system.e[j]) * ECC_SCALE}
        for j in range(len(system.m))
    }
    description["stepsize"] = float(system.stepsize)
    return {"description": description, "data": positions.tolist()}


class SampleMaker:
    """``make_sample(i) -> (record, stats)`` for one split; picklable (spawned workers).

    Draw ``attempt = 0, 1, ...`` is :class:`~scinum_simulations.planets_prior.Draws`' draw of
    ``(seed, split, i, attempt)``; the first
    stable draw is written (the record is made from the very positions that were checked).
    ``stats`` counts rejected draws: ``rejected`` = ``rejected_bound`` (some ``|x|`` or ``|y|``
    >= :data:`BOUND`, or a non-finite value) + ``rejected_rebound`` (REBOUND raised).
    """

    #: samples per unit of parallel work (:class:`~scinum.datasets.directory.ShardWorkers`): the block
    #: the draws are vectorised over, so no two processes draw one block
    chunk_size = BLOCK

    def __init__(self, config: PlanetsConfig, seed: int, split: str):
        self._draws = Draws(config, seed, split)  # raises DatasetError for an unknown split
        self._steps = StepCounts(config, seed, split)
        self.config, self.seed, self.split = config, seed, split

    def __call__(self, i: int) -> tuple[dict, dict[str, int]]:
        stats = {"rejected": 0, "rejected_bound": 0, "rejected_rebound": 0}
        steps = self._steps(i)
        for attempt in range(self.config.max_attempts):
            system = self._draws(i, attempt)
            try:
                positions = simulate(system, steps)
            except _REBOUND_ERRORS:
                stats["rejected_rebound"] += 1
            else:
                if np.all(np.abs(positions) < BOUND):  # False for NaN too
                    stats["rejected"] = attempt
                    return to_record(system, positions), stats
                stats["rejected_bound"] += 1
        raise DatasetError(
            f"planets: split {self.split!r} sample {i}: "
            f"{self.config.max_attempts} draws in a row were unstable "
            f"(seed {self.seed}); check the priors"
        )


#: what ``scinum evaluate`` scores on a planets dataset by default (the manifest's
#: ``evaluation``): the masked fields, which field each OOD split is about, and their units
EVALUATION = {
    "fields": ["description.stepsize", "description.planet0.a", "description.planet0.e", "description.planet0.m"],
    "ood_fields": {"ood_stepsize": "description.stepsize", "ood_a1": "description.planet0.a"},
    "units": {
        "description.stepsize": "time (G = M = 1)",
        "description.planet0.a": "length (a of the innermost orbit = 1)",
        "description.planet0.e": "eccentricity × 20",
        "description.planet0.m": "mass × 1e5 (central mass = 1)",
    },
}


def manifest_notes(config: PlanetsConfig) -> dict[str, Any]:
    """The manifest's ``scalings``, ``units``, ``priors``, ``ood`` and ``evaluation`` sections.
    ``evaluation.train_ranges`` gives the training prior's range of the fields an OOD split
    draws outside it: ``scinum evaluate`` then scores the ``interp`` (true value inside) and
    ``extrap`` (outside) predictions of a split separately."""
    gap = config.a1_gap_end()
    ranges = {"description.stepsize": [min(config.stepsizes), max(config.stepsizes)]}
    return {
        "evaluation": {**EVALUATION, "train_ranges": ranges},
        "scalings": {
            "description.*.m": {"factor": MASS_SCALE, "undo": "divide by 1e5 to get the planet mass in central masses"},
            "description.*.e": {"factor": ECC_SCALE, "undo": "divide by 20 to get the eccentricity"},
        },
        "units": {
            "G": 1.0,
            "central_mass": 1.0,
            "a": "length unit (innermost training orbit a = 1)",
            "stepsize": "time unit (orbital period at a = 1 is 2*pi)",
            "data": "data[k][j] = heliocentric [x, y] of planet j at t = k*stepsize",
            "unstable": f"draws with any |x| or |y| >= {BOUND} or a REBOUND error are rejected and re-drawn (counts in splits.*.stats)",
        },
        "priors": {
            "mass": list(MASS_RANGE),
            "eccentricity": list(ECC_RANGE),
            "zero_start_angle_probability": ZERO_ANGLE_PROB,
            "start_angle": [-ANGLE_HALF_WIDTH, ANGLE_HALF_WIDTH],
            "planet_order": "random permutation",
        },
        "ood": {
            "ood_stepsize": "training prior except stepsize ~ uniform over "
            f"{[list(iv) for iv in config.ood_stepsize_intervals()]}: "
            f"{list(config.ood_stepsize_range)} minus "
            f"+-{config.ood_stepsize_margin} around the training step sizes "
            f"{list(config.stepsizes)}",
            "ood_a1": f"planet0 is the innermost planet with a ~ U{tuple(config.ood_a1_range)}"
            "; the others are equally spaced from it to a_f (training prior) and "
            "permuted over planet1...; the training prior gives a = 1 or "
            f"a >= {gap:.6g}, never a value in between",
        },
    }


def build(
    out: str | os.PathLike,
    *,
    train: int = 1000,
    val: int = 100,
    test: int = 100,
    ood: int = 100,
    seed: int = 0,
    config: PlanetsConfig | None = None,
    workers: int = 1,
    shard_size: int = 1000,
    compress: bool = False,
    part: tuple[int, int] | str | None = None,
    steps: int | None = None,
    planets: Sequence[int] | None = None,
    stepsizes: Sequence[float] | None = None,
    a_final: Sequence[float] | None = None,
    ood_stepsize_range: Sequence[float] | None = None,
    ood_stepsize_margin: float | None = None,
    ood_a1_range: Sequence[float] | None = None,
    max_attempts: int | None = None,
) -> dict | None:
    """Build (or resume) the planets dataset in ``out``; returns the manifest (the builder
    protocol, :mod:`scinum.datasets.builders`). The defaults are ``scinum build planets``'s; ``steps`` ...
    ``max_attempts`` are :class:`PlanetsConfig` fields that, where given (not None), replace
    those of ``config``.

    ``part=(i, n)`` builds only shards ``k % n == i`` of each split and returns None;
    ``part="finish"`` verifies that every shard exists and writes the manifest
    (:class:`~scinum.datasets.directory.DatasetWriter`).

    ``ood`` is the sample count of each OOD split. Raises :class:`DatasetError` for impossible
    parameters before anything is written.
    """
    given = dict(
        steps=steps,
        planets=planets,
        stepsizes=stepsizes,
        a_final=a_final,
        ood_stepsize_range=ood_stepsize_range,
        ood_stepsize_margin=ood_stepsize_margin,
        ood_a1_range=ood_a1_range,
        max_attempts=max_attempts,
    )
    options = {k: v for k, v in given.items() if v is not None}
    config = dataclasses.replace(config or PlanetsConfig(), **{k: tuple(v) if isinstance(v, list) else v for k, v in options.items()})
    counts = {"train": train, "val": val, "test": test, "ood_stepsize": ood, "ood_a1": ood}
    for name, n in counts.items():
        if int(n) != n or n < 0:
            raise DatasetError(f"planets: --{name.split('_')[0]} count must be an integer >= 0, got {n}")
    if train < 1:
        raise DatasetError("planets: --train 0: a dataset needs training samples (the vocabulary and normalizers are fitted on them)")
    if int(seed) != seed or seed < 0:
        raise DatasetError(f"planets: seed must be an integer >= 0, got {seed}")
    if workers < 1:
        raise DatasetError(f"planets: workers must be >= 1, got {workers}")
    params = {**config.to_json(), "counts": counts}
    writer = DatasetWriter(
        out, builder="planets", version=BUILDER_VERSION, parameters=params, seed=seed, shard_size=shard_size, compress=compress, part=part
    )
    idle = workers == 1 or writer.complete or part == "finish"  # nothing to spread out
    with contextlib.nullcontext(workers) if idle else ShardWorkers(workers) as pool:
        for split, n in counts.items():  # one set of processes for every split
            writer.write_split(split, n, SampleMaker(config, seed, split), workers=pool, desc=f"planets {split}")
    return writer.finish(**manifest_notes(config))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags of ``scinum build planets``."""
    d = PlanetsConfig()
    parser.add_argument("out", type=Path, help="output dataset directory")
    for split, n in (("train", 1000), ("val", 100), ("test", 100), ("ood", 100)):
        parser.add_argument(
            f"--{split}",
            type=int,
            default=n,
            metavar="N",
            help=f"samples in {split}" + (" (each OOD split)" if split == "ood" else "") + f" [{n}]",
        )
    parser.add_argument("--seed", type=int, default=0, help="base seed [0]")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="worker processes [all CPUs]")
    parser.add_argument(
        "--steps",
        type=int,
        nargs="+",
        default=[d.steps],
        metavar="T",
        help=f"output times per sample, t = 0, dt, ...: T, or MIN MAX to draw each sample's count uniformly from MIN..MAX [{d.steps}]",
    )
    parser.add_argument(
        "--planets", type=int, nargs=2, default=list(d.planets), metavar=("MIN", "MAX"), help=f"planet count range {d.planets}"
    )
    parser.add_argument(
        "--stepsizes", type=float, nargs="*", default=list(d.stepsizes), metavar="DT", help=f"training step sizes {d.stepsizes}"
    )
    parser.add_argument(
        "--a-final",
        type=float,
        nargs=2,
        default=list(d.a_final),
        metavar=("MIN", "MAX"),
        help=f"outermost semi-major axis range {d.a_final}",
    )
    parser.add_argument(
        "--ood-stepsize-range",
        type=float,
        nargs=2,
        default=list(d.ood_stepsize_range),
        metavar=("MIN", "MAX"),
        help=f"ood_stepsize interval {d.ood_stepsize_range}",
    )
    parser.add_argument(
        "--ood-stepsize-margin",
        type=float,
        default=d.ood_stepsize_margin,
        help=f"ood_stepsize excludes +-this around training steps [{d.ood_stepsize_margin}]",
    )
    parser.add_argument(
        "--ood-a1-range",
        type=float,
        nargs=2,
        default=list(d.ood_a1_range),
        metavar=("MIN", "MAX"),
        help=f"ood_a1 planet0 a interval {d.ood_a1_range}",
    )
    parser.add_argument("--shard-size", type=int, default=1000, help="samples per shard [1000]")
    parser.add_argument("--compress", action="store_true", help="write .jsonl.gz shards")
    parser.add_argument("--part", metavar="I/N|finish", help=PART_HELP)


def run(args: argparse.Namespace) -> int:
    """Entry point of ``scinum build planets``."""
    if len(args.steps) > 2:
        raise DatasetError(f"planets: --steps takes T or MIN MAX, got {args.steps}")
    steps = args.steps[0] if len(args.steps) == 1 else tuple(args.steps)
    config = PlanetsConfig(
        steps=steps,
        planets=args.planets,
        stepsizes=args.stepsizes,
        a_final=args.a_final,
        ood_stepsize_range=args.ood_stepsize_range,
        ood_stepsize_margin=args.ood_stepsize_margin,
        ood_a1_range=args.ood_a1_range,
    )
    manifest = build(
        args.out,
        train=args.train,
        val=args.val,
        test=args.test,
        ood=args.ood,
        seed=args.seed,
        config=config,
        workers=args.workers,
        shard_size=args.shard_size,
        compress=args.compress,
        part=parse_part(args.part),
    )
    if manifest is None:
        print(f"planets: wrote part {args.part} of {args.out}; when every part is done: the same command with --part finish")
        return 0
    rejected = {s: v["stats"].get("rejected", 0) for s, v in manifest["splits"].items()}
    print(f"planets: wrote {args.out} ({ {s: v['count'] for s, v in manifest['splits'].items()} } samples, rejected draws {rejected})")
    return 0
