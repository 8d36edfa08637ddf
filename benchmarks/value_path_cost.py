"""Training cost per sample of the trunk's value paths, side by side: ``linear`` (attention values
and the number head read the residual stream) vs ``layernorm`` (the paper's pre-LN trunk, the
reference), both with structure positions.

Both train the compare preset's model (xVal, d_model 64, 2 layers, batches of 8, one thread) on
the same planets-shaped records (:mod:`quick_shapes`) through :func:`scinum.train.fit.fit`, A B A B;
the figure is each run's training seconds (``training.json``: steps only) per sample seen, median
over the rounds.

Run: ``python benchmarks/value_path_cost.py [--steps 400 --rounds 3]``; the last line is the
headline (issue target: at most 1.3x the reference's cost per sample).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

import torch

from positions_cost import TARGET, seconds_per_sample
from quick_shapes import make_dataset


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=8)
    args = ap.parse_args()
    torch.set_num_threads(1)
    times: dict[str, list[float]] = {"layernorm": [], "linear": []}
    with tempfile.TemporaryDirectory() as tmp:
        data = make_dataset(Path(tmp) / "data")
        for r in range(args.rounds):
            for path in times:
                model = {"positions": "structure", "value_path": path}
                times[path].append(seconds_per_sample(data, Path(tmp) / f"{path}-{r}", model, args.steps, args.batch_size))
    print(f"{'value path':<10} {'ms/sample (median)':>20} {'rounds':>40}")
    for path, t in times.items():
        print(f"{path:<10} {1e3 * statistics.median(t):>20.3f} {str([round(1e3 * x, 3) for x in t]):>40}")
    ours, ref = statistics.median(times["linear"]), statistics.median(times["layernorm"])
    print(
        f"linear value path training cost: {1e3 * ours:.3f} ms/sample vs reference "
        f"{1e3 * ref:.3f} ms/sample (layernorm) = {ours / ref:.2f}x (target <= {TARGET}x)"
    )


if __name__ == "__main__":
    main()
