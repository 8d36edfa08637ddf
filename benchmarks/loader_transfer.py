"""What a batch from a data-loader worker costs the training process: sent by value (as scinum
sends it, :mod:`scinum.train.worker_batches`) against torch's default sharing (each tensor's
storage moved to a shared-memory file whose descriptor crosses a fresh socket connection), in
one run.

The batches are the planets ``best`` preset's (batches of 64, structure positions, the values
alone, e₁ asked in half the records besides the MLM masking) over planets-shaped records
(:mod:`quick_shapes`), one worker each way. For each path, after ``--skip`` batches, ``--batches``
batches are read with nothing else done: the training process's CPU milliseconds a batch (what a
step pays for it) and the wall milliseconds a batch (how fast the worker delivers). The paths
take turns in rounds of ``--batches`` so a drifting load falls on both.

    python benchmarks/loader_transfer.py [--batches 200 --skip 10 --rounds 3] [--smoke]

The last line is the headline: the training process's CPU a batch by value against torch's
sharing (target: at most as much).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import torch
from torch.utils.data import DataLoader

from quick_shapes import make_dataset

#: the planets best preset's data options (recipes/planets.yaml) that shape a batch
BEST_DATA = {
    "batch_size": 64,
    "mask_prob": 0.2,
    "mask_fields": ["description.planet0.e"],
    "mask_fields_prob": 0.5,
    "mask_fields_alone": False,
    "structure": True,
    "structure_tokens": False,
}


def loaders(data: Path) -> dict[str, DataLoader]:
    """Two loaders of the same batches, one worker each: ``by value`` as :class:`MLMDataModule`
    makes it, ``torch's sharing`` with the collate function unwrapped."""
    from scinum import encodings
    from scinum.train.data import MLMDataModule

    made = []
    for _ in range(2):
        dm = MLMDataModule(str(data), encodings.get("xval"), num_workers=1, seed=0, **BEST_DATA)  # type: ignore[arg-type]
        dm.prepare()
        made.append(dm.train_dataloader())
    plain = made[1]
    shared = DataLoader(
        plain.dataset,
        batch_sampler=plain.batch_sampler,
        collate_fn=plain.collate_fn.collate,  # type: ignore[union-attr]
        num_workers=1,
        persistent_workers=True,
    )
    return {"by value": made[0], "torch's sharing": shared}


def read(stream, batches: int) -> tuple[float, float, int]:
    """Read ``batches`` from ``stream``: (CPU ms, wall ms) a batch and the bytes of the last one."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(batches):
        batch = next(stream)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    size = sum(t.numel() * t.element_size() for t in batch.values() if isinstance(t, torch.Tensor))
    return 1e3 * cpu / batches, 1e3 * wall / batches, size


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, default=200, help="batches read a round and path")
    ap.add_argument("--skip", type=int, default=10, help="batches read first, not timed (the worker's start)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds, the paths in turn")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes: checks that the script runs, measures nothing")
    a = ap.parse_args(argv)
    n_train = 1200
    if a.smoke:
        a.batches, a.skip, a.rounds, n_train = 3, 1, 1, 200
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        data = make_dataset(Path(tmp) / "data", n_train=n_train, n_val=8)
        streams = {name: iter(loader) for name, loader in loaders(data).items()}
        for stream in streams.values():
            read(stream, a.skip)
        rec: dict[str, list[tuple[float, float, int]]] = {name: [] for name in streams}
        for _ in range(a.rounds):
            for name, stream in streams.items():
                rec[name].append(read(stream, a.batches))
    print(f"{a.rounds} rounds of {a.batches} batches a path, one worker each, one thread")
    cpu = {}
    for name, rows in rec.items():
        cpu[name] = statistics.median(r[0] for r in rows)
        wall = statistics.median(r[1] for r in rows)
        print(f"  {name}: {cpu[name]:.2f} CPU ms a batch in the training process, a batch every {wall:.2f} ms, {rows[-1][2]:,} bytes")
    new, ref = cpu["by value"], cpu["torch's sharing"]
    print(f"loader_transfer: {new:.2f} CPU ms a batch vs reference {ref:.2f} CPU ms a batch = {new / ref:.2f}x (target <= 1x)")


if __name__ == "__main__":
    main()
