"""Why the first hundred steps on the H200 were slow: the last block's row count.

The GPU runs recorded every step's batch length and GPU time but not how many rows the last
block computed (M: the most hidden tokens of any record in the batch,
:func:`scinum.tokens.batch.hidden_rows`). The batch stream is a function of the seed, so this
script makes the same batches on the CPU: the benchmark's records, the ``tuned`` variant's data
settings, and a tiny model, since only the batches matter. It writes each step's length and M to
``rows.csv``, checking each length against the GPU run's. Then it prints, for each GPU run, the
GPU milliseconds of the steps whose (M, length) pair was new to the process against those on a
pair seen before, and how many pairs 500 steps meet when M is rounded up to a multiple.

    python experiments/gpu-check-h200/rows.py            # makes the batches (about a minute), writes rows.csv
    python experiments/gpu-check-h200/rows.py --read     # only the analysis, from rows.csv
"""

from __future__ import annotations

import csv
import json
import statistics
import sys
import tempfile
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RUNS = ("paper_tuned.json", "tuned_expandable.json", "paper_tuned_compile.json")
STEPS = 524  # the longest of RUNS


def make_rows(steps: int = STEPS) -> list[dict]:
    """Each training step's batch length and last-block row count M, for the benchmark's tuned
    variant on its records (a tiny model on the CPU: the batches do not depend on it)."""
    import lightning as L

    sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT)]
    import paper_gpu_throughput as bench
    from recipes.runner import load_preset
    from scinum.train.config import load_config
    from scinum.train.fit import fit

    out: list[dict] = []

    class Record(L.Callback):
        def on_train_batch_start(self, trainer, module, batch, batch_idx):
            hidden = batch["targets"] != -100
            out.append({"step": len(out), "length": int(hidden.shape[1]), "rows": int(hidden.sum(1).max())})

    preset = load_preset(bench.RECIPE, "paper")
    with tempfile.TemporaryDirectory() as tmp:
        bench.write_records(Path(tmp) / "d", 4096, tuple(preset["build"]["steps"]))
        cfg = bench.run_config(preset, "xval", "tuned", Path(tmp) / "d", Path(tmp) / "o", steps, smoke=True)
        cfg["data"]["batch_size"] = preset["train"]["data"]["batch_size"]  # the preset's batches, not the smoke's
        fit(load_config(overrides=cfg), callbacks=[Record()])
    return out


def gpu_steps(name: str) -> list[dict]:
    (steps,) = json.loads((HERE / name).read_text())["per_step"].values()
    return steps


def pairs(rows: list[dict], multiple: int) -> list[tuple[int, int]]:
    """(M rounded up to ``multiple``, at most the length; length) of each step."""
    from scinum.tokens.batch import row_count

    return [(row_count(r["rows"], r["length"], multiple), r["length"]) for r in rows]


def analysis(rows: list[dict]) -> list[str]:
    lines = []
    for name in RUNS:
        gpu = gpu_steps(name)
        assert all(r["length"] == g["length"] for r, g in zip(rows, gpu)), f"{name}: the batches differ from the GPU run's"
        each = pairs(rows, 1)
        seen = {each[0]}  # step 0 pays for the process's first step whatever its shapes
        new, old = [], []
        for pair, g in zip(each[1:], gpu[1:]):
            (old if pair in seen else new).append(g["gpu_ms"])
            seen.add(pair)
        counts = [f"{len(ms)}, median {statistics.median(ms):.0f} ms, {sum(m > 100 for m in ms)} over 100 ms" for ms in (new, old)]
        lines.append(f"{name}: steps 1-{min(len(gpu), len(rows)) - 1} on a new (M, length) pair: {counts[0]}; on a seen pair: {counts[1]}")
    for multiple in (1, 16, 32):
        lines.append(f"M rounded up to a multiple of {multiple}: {len(set(pairs(rows[:500], multiple)))} pairs in the first 500 steps")
    ms = [r["rows"] for r in rows]
    lines.append(f"M: {min(ms)}-{max(ms)}, mean {statistics.mean(ms):.1f}")
    return lines


def main(argv: list[str]) -> None:
    path = HERE / "rows.csv"
    if "--read" not in argv:
        torch.manual_seed(0)
        rows = make_rows()
        with path.open("w", newline="") as f:
            w = csv.DictWriter(f, ["step", "length", "rows"])
            w.writeheader()
            w.writerows(rows)
    rows = [{k: int(v) for k, v in r.items()} for r in csv.DictReader(path.open())]
    print("\n".join(analysis(rows)))


if __name__ == "__main__":
    main(sys.argv[1:])
