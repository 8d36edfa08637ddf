"""Training cost per sample of the trunk's position encodings, side by side: ``structure`` (JSON-
structure positions, computed from the token ids at batch time) vs ``learned`` (the flat table,
the reference: what the planets presets trained with before).

Both train the compare preset's model (xVal, d_model 64, 2 layers, batches of 8, one thread) on
the same planets-shaped records (:mod:`quick_shapes`) through :func:`scinum.train.fit.fit`, A B A B;
the figure is each run's training seconds (``training.json``: steps only, no validation or
checkpoints) per sample seen, median over the rounds.

Run: ``python experiments/probe-costs/positions_cost.py [--steps 400 --rounds 3] [--smoke]``; the last line is the
headline (issue target: structure at most 1.3x the reference's cost per sample).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # quick_shapes, peak_flops
from quick_shapes import make_dataset, quick_config  # noqa: E402

from scinum.train.fit import fit  # noqa: E402

TARGET = 1.3


def seconds_per_sample(data: Path, out: Path, sections: dict[str, dict], steps: int, batch_size: int) -> float:
    """Training seconds per sample of the quick config with ``sections`` (``{"model": {...},
    "optim": {...}}``) merged into its sections."""
    config = quick_config(data, out, batch_size, steps, limit_val_batches=0)
    for section, keys in sections.items():
        config[section].update(keys)
    fit(config)
    trained = json.loads((out / "training.json").read_text())
    return trained["train_seconds"] / (trained["steps"] * batch_size)


def ab_costs(variants: dict[str, dict], headline: str, target: float = TARGET) -> None:
    """Train ``variants`` (name -> config sections to merge, ``{"model": {...}}``; the first is
    the reference, the others are ours) A B A B on the same data and print each one's ms/sample (median over rounds, and each
    round) and, per variant after the first, the ratio ``ours / reference`` against ``target``
    (the last line: the last variant's)."""
    ap = argparse.ArgumentParser(description=headline)
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--smoke", action="store_true", help="tiny sizes: checks that the script runs, measures nothing")
    args = ap.parse_args()
    n_train = 1200
    if args.smoke:
        args.steps, args.rounds, args.batch_size, n_train = 2, 1, 4, 32
    torch.set_num_threads(1)
    times: dict[str, list[float]] = {name: [] for name in variants}
    with tempfile.TemporaryDirectory() as tmp:
        data = make_dataset(Path(tmp) / "data", n_train=n_train, n_val=8)
        for r in range(args.rounds):
            for name, sections in variants.items():
                times[name].append(seconds_per_sample(data, Path(tmp) / f"{name}-{r}", sections, args.steps, args.batch_size))
    print(f"{'variant':<10} {'ms/sample (median)':>20} {'rounds':>40}")
    for name, t in times.items():
        print(f"{name:<10} {1e3 * statistics.median(t):>20.3f} {str([round(1e3 * x, 3) for x in t]):>40}")
    (ref_name, ref), *ours = ((n, statistics.median(t)) for n, t in times.items())
    for name, cost in ours:
        print(
            f"{name} training cost: {1e3 * cost:.3f} ms/sample vs reference "
            f"{1e3 * ref:.3f} ms/sample ({ref_name}) = {cost / ref:.2f}x (target <= {target}x)"
        )


def main() -> None:
    ab_costs({"learned": {"model": {"positions": "learned"}}, "structure": {"model": {"positions": "structure"}}}, __doc__.splitlines()[0])


if __name__ == "__main__":
    main()
