"""The evaluation task of the temperature dataset and its non-learned baselines.

Task (xVal paper, seed 002, §3.2): predict the next time step of every station, i.e. mask the
last value of each station's series. As a field path pattern (DESIGN.md path syntax) that is
:data:`NEXT_STEP_MASK` = ``data[*][-1]``: any station, last time step.

Baselines, computed on the very samples the model sees, all in normalised units:

* persistence: the station's previous value, ``data[s][-2]``;
* per-station climatology: the mean of the station's visible values at the same time of day as
  the target (every ``steps_per_day``-th step back; 3 for 8-hourly series), i.e. the station's
  own diurnal-cycle climatology within the sample.

``python -m era5.tasks DATASET [--split test]`` prints both MSEs (normalised and in K²).
"""
from __future__ import annotations

import argparse
from typing import Iterable

import numpy as np

__all__ = ["NEXT_STEP_MASK", "targets", "persistence", "climatology", "baseline_mse"]

#: Field path pattern of the masked values: the last step of every station.
NEXT_STEP_MASK = "data[*][-1]"


def targets(record: dict) -> np.ndarray:
    """float64[P]: the values the task masks, one per station."""
    return np.array([series[-1] for series in record["data"]], dtype=np.float64)


def persistence(record: dict) -> np.ndarray:
    """float64[P]: each station's last visible value as its prediction."""
    return np.array([series[-2] for series in record["data"]], dtype=np.float64)


def climatology(record: dict, steps_per_day: int = 3) -> np.ndarray:
    """float64[P]: mean of each station's visible values at the target's time of day
    (steps ``L-1-k*steps_per_day``, k >= 1), or of all visible values if there are none."""
    out = []
    for series in record["data"]:
        visible = np.asarray(series[:-1], dtype=np.float64)
        first = len(series) - 1 - steps_per_day
        same_hour = visible[first::-steps_per_day] if first >= 0 else visible[:0]
        out.append((same_hour if same_hour.size else visible).mean())
    return np.array(out)


def baseline_mse(records: Iterable[dict], steps_per_day: int = 3) -> dict[str, float]:
    """Mean squared error over all masked values of ``records`` for each baseline (normalised
    units), and ``n`` the number of masked values."""
    sq = {"persistence": 0.0, "climatology": 0.0}
    n = 0
    for r in records:
        y = targets(r)
        sq["persistence"] += float(((persistence(r) - y) ** 2).sum())
        sq["climatology"] += float(((climatology(r, steps_per_day) - y) ** 2).sum())
        n += y.size
    if n == 0:
        raise ValueError("no records: cannot compute baseline errors")
    return {**{k: v / n for k, v in sq.items()}, "n": n}


def main(argv: list[str] | None = None) -> int:
    from scinum.datasets import Dataset

    p = argparse.ArgumentParser(description="next-step baselines of an ERA5 dataset")
    p.add_argument("dataset")
    p.add_argument("--split", default="test")
    a = p.parse_args(argv)
    ds = Dataset(a.dataset)
    std = ds.manifest["normalization"]["std"]
    steps_per_day = 24 // ds.manifest["task"]["step_hours"]
    res = baseline_mse(ds.records(a.split), steps_per_day)
    print(f"{'baseline':<12} {'MSE (normalised)':>17} {'MSE (K^2)':>10}   n={res['n']}")
    for k in ("persistence", "climatology"):
        print(f"{k:<12} {res[k]:>17.4f} {res[k] * std ** 2:>10.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
