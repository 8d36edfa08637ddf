"""The evaluation task of the temperature dataset and its non-learned baselines.

Task (xVal paper, seed 002, §3.2): predict the next time step of every station, i.e. mask the
last value of each station's series. As a field path pattern (DESIGN.md path syntax) that is
:data:`NEXT_STEP_MASK` = ``data[*][-1]``: any station, last time step.

Baselines, computed on the very samples the model sees, all in normalised units:

* persistence: the station's previous value, ``data[s][-2]``;
* per-station climatology: the mean of the station's visible values at the same time of day as
  the target (every ``steps_per_day``-th step back; 3 for 8-hourly series), i.e. the station's
  own diurnal-cycle climatology within the sample.

``python -m scinum_era5.tasks DATASET [--split test]`` prints both MSEs (normalised and in K²);
:func:`comparison_baselines` gives them, with a bootstrap interval over records, to a comparison
(``baselines: scinum_era5.tasks:comparison_baselines`` in a comparison preset, recipes/compare.py).
"""

from __future__ import annotations

import argparse
from typing import Iterable

import numpy as np

__all__ = ["NEXT_STEP_MASK", "targets", "persistence", "climatology", "baseline_mse", "comparison_baselines"]

#: bootstrap resamples of the records behind :func:`comparison_baselines`' intervals
BOOTSTRAP = 2000

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


def comparison_baselines(
    data, split: str = "test", limit: int | None = None, steps_per_day: int | None = None, seed: int = 0
) -> list[dict]:
    """Persistence and climatology on the first ``limit`` records of ``split`` (the records a
    comparison evaluates), as report rows ``model, field, split, metric, mean, ci95_low,
    ci95_high, n_records, interval`` for ``mse``, ``mse_K2`` (× the dataset's std²) and ``r2``
    over every masked value (as
    :func:`scinum.analysis.metrics.summarize` pools them). A baseline has no seed: its interval is
    a 95 % percentile bootstrap over the records (``BOOTSTRAP`` resamples, seeded), the spread the
    choice of test records alone would give."""
    from itertools import islice

    from scinum.datasets.directory import Dataset

    ds = Dataset(data)
    steps_per_day = steps_per_day or 24 // ds.manifest["task"]["step_hours"]
    var = ds.manifest["normalization"]["std"] ** 2
    records = list(islice(ds.records(split), limit))
    if not records:
        raise ValueError(f"{data}: split {split!r} holds no records: no baselines")
    y = [targets(r) for r in records]
    preds = {"persistence": [persistence(r) for r in records], "climatology": [climatology(r, steps_per_day) for r in records]}
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(records), size=(BOOTSTRAP, len(records)))
    n = np.array([v.size for v in y], dtype=np.float64)
    s1, s2 = np.array([v.sum() for v in y]), np.array([(v**2).sum() for v in y])
    rows = []
    for name, p in preds.items():
        sse = np.array([((a - b) ** 2).sum() for a, b in zip(p, y)])

        def scores(idx):  # pooled MSE, in K², R² (1 - SSE/SST) of the records idx (rows of draws)
            nn, e, t1, t2 = n[idx].sum(-1), sse[idx].sum(-1), s1[idx].sum(-1), s2[idx].sum(-1)
            return e / nn, e / nn * var, 1.0 - e / (t2 - t1**2 / nn)

        point = scores(np.arange(len(records)))
        boot = scores(draws)
        for k, metric in enumerate(("mse", "mse_K2", "r2")):
            lo, hi = np.percentile(boot[k], [2.5, 97.5])
            rows.append(
                {
                    "model": name,
                    "field": NEXT_STEP_MASK,
                    "split": split,
                    "metric": metric,
                    "mean": float(point[k]),
                    "ci95_low": float(lo),
                    "ci95_high": float(hi),
                    "n_records": len(records),
                    "interval": f"95 % bootstrap over the {len(records)} {split} records",
                }
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    from scinum.datasets.directory import Dataset

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
        print(f"{k:<12} {res[k]:>17.4f} {res[k] * std**2:>10.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
