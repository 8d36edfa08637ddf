"""``scinum build era5 OUT --source PATH|synthetic``: ERA5 2 m temperature → station samples.

Builds the xVal paper's temperature dataset (seed 002, §3.2 and App. B.1; record layout in
:mod:`scinum_era5.sampling`). Splits are disjoint time periods (train / val / test, by default the
first 80 % / next 10 % / last 10 % of the source's 8-hourly series); every window lies wholly
inside its split's period. By default stations are drawn from every grid point, as in the paper.
The out-of-distribution split ``ood_south`` is opt-in (``--ood-south-of LAT --ood N``, e.g. -60°:
Antarctica and the Southern Ocean): it takes its stations south of LAT during the test period,
while train/val/test stations then all lie north of it, so the model meets colder temperatures
than any it was trained on (the Antarctic plateau) and station coordinates outside the training
range, which is where number encodings differ most. Note that this changes the training
distribution: the paper's has all latitudes.

Normalisation (mean/std in K) is fitted on the train period only, from an orthogonal sample of
64 train times × 32 rows × 64 columns of allowed grid points (never the whole grid); the manifest
records it and how to undo it. Everything is written through :class:`scinum.datasets.directory.DatasetWriter`
(parallel, deterministic in (seed, split, i), atomic shards, resumable).
"""

from __future__ import annotations

import argparse
import contextlib
import os
from pathlib import Path
from typing import Sequence

import numpy as np

from scinum.datasets.directory import PART_HELP, DatasetWriter, parse_part
from scinum.datasets.writing import ShardWorkers
from scinum.errors import DatasetError

from . import synthetic
from .sampling import SampleConfig, SampleMaker, fit_normalization, fraction_periods, runs_remaining, series_index, split_periods
from .source import open_view, units_offset
from .tasks import NEXT_STEP_MASK

__all__ = ["build", "add_arguments", "run", "BUILDER_VERSION"]

BUILDER_VERSION = "1"
OOD_SPLIT = "ood_south"


def _period(text: str) -> tuple[str | None, str | None]:
    a, sep, b = text.partition("/")
    if not sep:
        raise argparse.ArgumentTypeError(f"period {text!r} must be START/END (ISO dates, END exclusive, either may be empty)")
    return a or None, b or None


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Flags of ``scinum build era5``."""
    p.add_argument("out", help="output dataset directory")
    p.add_argument("--source", required=True, help="NetCDF file, folder of *.nc, glob, Zarr store, or 'synthetic'")
    p.add_argument("--variable", default=None, help="temperature variable (default: t2m, 2m_temperature or 2t, whichever exists)")
    for split, n in (("train", 1000), ("val", 100), ("test", 100)):
        p.add_argument(f"--{split}", type=int, default=n, help=f"{split} samples (default {n})")
    p.add_argument("--ood", type=int, default=0, help="ood_south samples (default 0; needs --ood-south-of)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--workers", type=int, default=1, help="build processes (default 1)")
    p.add_argument("--shard-size", type=int, default=1000, help="records per shard (default 1000)")
    p.add_argument("--compress", action="store_true", help="gzip the shards")
    p.add_argument("--part", metavar="I/N|finish", help=PART_HELP)
    for split in ("train", "val", "test"):
        p.add_argument(
            f"--{split}-period",
            type=_period,
            default=None,
            metavar="START/END",
            help=f"{split} period, ISO dates, END exclusive (default: 80/10/10 %% of the source's time range)",
        )
    p.add_argument(
        "--ood-south-of",
        type=float,
        default=None,
        metavar="LAT",
        help="opt-in latitude OOD split: ood_south stations lie south of LAT (degrees, "
        "e.g. -60), all others north of it (default: no OOD split, stations "
        "from every latitude as in the paper)",
    )
    p.add_argument("--stations", type=int, nargs=2, default=(60, 90), metavar=("MIN", "MAX"), help="stations per sample (default 60 90)")
    p.add_argument("--steps", type=int, nargs=2, default=(8, 16), metavar=("MIN", "MAX"), help="time steps per sample (default 8 16)")
    p.add_argument("--step-hours", type=int, default=8, help="series spacing (default 8 h)")
    p.add_argument("--decimals", type=int, default=4, help="round numbers to this many decimals; -1 keeps full float64 (default 4)")
    g = p.add_argument_group("--source synthetic")
    g.add_argument("--synthetic-days", type=float, default=365, help="length of the field in days (default 365)")
    g.add_argument("--synthetic-resolution", type=float, default=2.0, help="grid spacing in degrees (default 2)")
    g.add_argument("--synthetic-seed", type=int, default=0, help="seed of the field (default 0)")
    g.add_argument("--synthetic-start", default="2020-01-01", help="first date (default 2020-01-01)")


def _parameters(a: argparse.Namespace) -> dict:
    params = {k: getattr(a, k) for k in ("source", "variable", "ood_south_of", "step_hours", "decimals", "shard_size")}
    params.update(
        stations=list(a.stations),
        steps=list(a.steps),
        periods={s: getattr(a, f"{s}_period") and list(getattr(a, f"{s}_period")) for s in ("train", "val", "test")},
    )
    if a.source == "synthetic":
        params["synthetic"] = {
            "days": a.synthetic_days,
            "resolution": a.synthetic_resolution,
            "seed": a.synthetic_seed,
            "start": a.synthetic_start,
        }
    else:
        params["source"] = str(Path(a.source).resolve()) if Path(a.source).exists() else a.source
    return params


def build(
    out: str | os.PathLike,
    *,
    source: str,
    variable: str | None = None,
    train: int = 1000,
    val: int = 100,
    test: int = 100,
    ood: int = 0,
    seed: int = 0,
    workers: int = 1,
    shard_size: int = 1000,
    compress: bool = False,
    part: str | tuple[int, int] | None = None,
    train_period: str | Sequence[str | None] | None = None,
    val_period: str | Sequence[str | None] | None = None,
    test_period: str | Sequence[str | None] | None = None,
    ood_south_of: float | None = None,
    stations: Sequence[int] = (60, 90),
    steps: Sequence[int] = (8, 16),
    step_hours: int = 8,
    decimals: int = 4,
    synthetic_days: float = 365,
    synthetic_resolution: float = 2.0,
    synthetic_seed: int = 0,
    synthetic_start: str = "2020-01-01",
) -> dict | None:
    """Build (or resume) the ERA5 dataset in ``out`` from ``source`` (a NetCDF/Zarr path or
    ``"synthetic"``); returns the manifest (None for a ``part="I/N"`` build). The Python form of
    ``scinum build era5 OUT --source SOURCE ...``: the flags' names as keywords, with the same
    defaults (the quick preset's build, for one: ``train=3000, stations=[12, 20],
    synthetic_days=240``); periods as ``"START/END"`` text or ``(start, end)``."""
    a = argparse.Namespace(**locals())
    a.out = str(out)
    for split in ("train", "val", "test"):
        given = getattr(a, f"{split}_period")
        if isinstance(given, str):
            setattr(a, f"{split}_period", _period(given))
    a.stations, a.steps = [int(v) for v in stations], [int(v) for v in steps]
    a.synthetic_days, a.synthetic_resolution = float(synthetic_days), float(synthetic_resolution)
    a.ood_south_of = None if ood_south_of is None else float(ood_south_of)  # as the flags parse them
    if isinstance(part, (tuple, list)):
        a.part = f"{part[0]}/{part[1]}"
    return _build(a)


def run(a: argparse.Namespace) -> int:
    """Entry point of ``scinum build era5``: builds the dataset the parsed flags describe."""
    _build(a)
    return 0


def _build(a: argparse.Namespace) -> dict | None:
    """Build the dataset described by the parsed flags ``a``; returns the manifest."""
    if a.stations[0] < 1 or a.stations[0] > a.stations[1]:
        raise DatasetError(f"--stations {a.stations}: need 1 <= MIN <= MAX")
    if a.steps[0] < 2 or a.steps[0] > a.steps[1]:
        raise DatasetError(f"--steps {a.steps}: need 2 <= MIN <= MAX")
    if a.train < 1:
        raise DatasetError("era5: --train 0: a dataset needs training samples (the vocabulary and normalizers are fitted on them)")
    if a.ood > 0 and a.ood_south_of is None:
        raise DatasetError(
            f"--ood {a.ood}: the ood_south split needs --ood-south-of LAT (e.g. -60); without it every split draws from all latitudes"
        )
    params = _parameters(a)
    writer = DatasetWriter(
        a.out,
        builder="era5",
        version=BUILDER_VERSION,
        parameters=params,
        seed=a.seed,
        shard_size=a.shard_size,
        compress=a.compress,
        part=parse_part(getattr(a, "part", None)),
    )
    if writer.complete:
        print(f"{a.out}: already complete")
        return writer.finish()
    source = params["source"]
    if a.source == "synthetic":
        source = str(writer.build_dir / "synthetic.nc")
        if not Path(source).exists():
            synthetic.write_netcdf(
                source, start=a.synthetic_start, days=a.synthetic_days, resolution=a.synthetic_resolution, seed=a.synthetic_seed
            )
    view = open_view(source, a.variable)
    sidx = series_index(view.times, a.step_hours)
    if len(sidx) == 0:
        raise DatasetError(f"{view.source}: no times on the {a.step_hours}-hourly grid (00 UTC anchored)")
    stamps = view.times[sidx]
    given = {s: getattr(a, f"{s}_period") for s in ("train", "val", "test")}
    if all(v is None for v in given.values()):
        given = fraction_periods(stamps, (0.8, 0.1, 0.1), a.step_hours)
    elif any(v is None for v in given.values()):
        raise DatasetError("give all of --train-period, --val-period, --test-period or none")
    positions = split_periods(stamps, given)
    if a.ood_south_of is None:
        north, south = np.arange(len(view.lat)), np.zeros(0, np.int64)
    else:
        north = np.flatnonzero(view.lat >= a.ood_south_of)
        south = np.flatnonzero(view.lat < a.ood_south_of)
    plan = [
        ("train", a.train, "train", north),
        ("val", a.val, "val", north),
        ("test", a.test, "test", north),
        (OOD_SPLIT, a.ood, "test", south),
    ]
    for split, n, period, rows in plan:
        runs = runs_remaining(stamps[positions[period]], a.step_hours)
        if n > 0 and (len(runs) == 0 or runs.max() < a.steps[1]):
            raise DatasetError(
                f"{view.source}: the {period} period {given[period]} holds at most "
                f"{int(runs.max()) if len(runs) else 0} consecutive {a.step_hours}-hourly times; "
                f"a sample needs up to {a.steps[1]} (time range shorter than one sample)"
            )
        if n > 0 and len(rows) * len(view.lon) < a.stations[1]:
            raise DatasetError(f"{view.source}: split {split!r} has only {len(rows) * len(view.lon)} grid points to draw stations from")
    raw, fit_nans = fit_normalization(view, sidx[positions["train"]], north, a.seed)
    offset, units_note = units_offset(view.units, raw, view.source)
    kelvin = raw + offset
    mean, std = float(kelvin.mean()), float(kelvin.std())
    if not std > 0:
        raise DatasetError(f"{view.source}: train-period temperatures have zero variance")
    idle = a.workers == 1 or writer.complete or writer.part == "finish"  # nothing to spread out
    with contextlib.nullcontext(a.workers) if idle else ShardWorkers(a.workers) as pool:
        for split, n, period, rows in plan:  # one set of processes for every split
            pos = positions[period]
            cfg = SampleConfig(
                source=source,
                variable=a.variable,
                split=split,
                seed=a.seed,
                times=sidx[pos],
                starts_ok=runs_remaining(stamps[pos], a.step_hours),
                stamps=stamps[pos],
                rows=rows,
                offset=offset,
                mean=mean,
                std=std,
                stations=tuple(a.stations),
                steps=tuple(a.steps),
                decimals=None if a.decimals < 0 else a.decimals,
            )
            if split != OOD_SPLIT or a.ood_south_of is not None:
                writer.write_split(split, n, SampleMaker(cfg, view), workers=pool, desc=f"era5 {split}")
    manifest = writer.finish(
        synthetic=a.source == "synthetic",
        source={
            "path": source if a.source != "synthetic" else "synthetic",
            "description": view.source,
            "grid": [len(view.lat), len(view.lon)],
            "times": [str(view.times[0]), str(view.times[-1])],
            "units": units_note,
        },
        periods={s: [str(x) if x is not None else None for x in given[s]] for s in ("train", "val", "test")},
        ood={}
        if a.ood_south_of is None
        else {
            OOD_SPLIT: f"stations south of {a.ood_south_of}° (all other splits north of it), "
            "test period: colder temperatures and coordinates unseen in training"
        },
        normalization={
            "field": "t2m",
            "unit": "K",
            "mean": mean,
            "std": std,
            "fitted_on": f"train period, {raw.size} values at 64 times x 32 rows x 64 columns of grid points ({fit_nans} NaN dropped)",
        },
        scalings={"data[*][*]": {"kind": "affine", "mean": mean, "std": std, "unit": "K", "undo": "t2m_K = value * std + mean"}},
        task={"next_step_mask": NEXT_STEP_MASK, "step_hours": a.step_hours},
        evaluation={
            "fields": [NEXT_STEP_MASK],
            "ood_fields": {} if a.ood_south_of is None else {OOD_SPLIT: NEXT_STEP_MASK},
            "units": {NEXT_STEP_MASK: "temperature, σ units (MSE × std² = K²)"},
        },
    )
    if manifest is None:
        print(f"{a.out}: wrote part {a.part}; when every part is done: the same command with --part finish")
        return None
    print(f"{a.out}: done ({'synthetic' if a.source == 'synthetic' else source})")
    return manifest
