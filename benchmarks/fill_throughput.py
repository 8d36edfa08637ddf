"""Fill throughput: ``Model.fill_many`` (batched) vs filling one record at a time, on CPU.

The model has the planets quick preset's size (recipes/planets.yaml: d_model 64, 2 layers,
xVal); its weights are freshly initialised — throughput does not depend on them. Records are
real planets samples (2–4 planets, 12 steps) from the builder. The task masks
``description.stepsize`` in every record (one forward pass per record).

    python benchmarks/fill_throughput.py [--records 2000] [--batch-size 256]
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import yaml

from scinum.checkpoint import CheckpointMeta
from scinum.codec import Codec, Vocabulary
from scinum.datasets import Dataset
from scinum.infer import Model
from scinum.model import ModelConfig
from scinum.normalize import Normalizer
from simulations.planets import PlanetsConfig, build

from peak_flops import gemm_flops  # benchmarks/ is on sys.path when run as a script

ROOT = Path(__file__).resolve().parent.parent


def quick_model(records: list[dict]) -> Model:
    preset = yaml.safe_load((ROOT / "recipes" / "planets.yaml").read_text())["quick"]
    vocab = Vocabulary.build(records)
    codec = Codec(vocab)
    encoded = [codec.encode(r) for r in records]
    norm = Normalizer.fit(vocab.fields, [(e.fields, e.values) for e in encoded], "minmax")
    cfg = ModelConfig(vocab_size=len(vocab), num_dim=1, combine="multiply", **preset["train"]["model"])
    meta = CheckpointMeta(model=cfg, encoding={"name": "xval"}, vocab=vocab, normalizer=norm)
    torch.manual_seed(0)
    return Model(meta, meta.build_model())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", type=int, default=2000)
    p.add_argument("--single", type=int, default=200, help="records timed one at a time")
    p.add_argument("--batch-size", type=int, default=256)
    a = p.parse_args()
    torch.set_num_threads(torch.get_num_threads())
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp) / "d", train=a.records, val=0, test=0, ood=0, seed=0,
              config=PlanetsConfig(steps=12), workers=2)
        records = list(Dataset(Path(tmp) / "d").records("train"))
    model = quick_model(records)
    mask = ["description.stepsize"]
    model.fill_many(records[:64], mask, batch_size=a.batch_size)  # warm-up

    t = time.perf_counter()
    jobs = [model.prepare(r, mask) for r in records]
    t_prep = time.perf_counter() - t
    t = time.perf_counter()
    batched = model.run_jobs(jobs, batch_size=a.batch_size)
    t_batched = time.perf_counter() - t + t_prep
    t = time.perf_counter()
    single = [model.fill(r, mask) for r in records[:a.single]]
    t_single = time.perf_counter() - t
    diff = max(abs(b.record["description"]["stepsize"] - s["description"]["stepsize"])
               for b, s in zip(batched, single))
    lengths = [len(j.encoded) for j in jobs]
    rate_b, rate_s = len(records) / t_batched, a.single / t_single
    print(f"{len(records)} planets records, {np.mean(lengths):.0f} tokens on average "
          f"(min {min(lengths)}, max {max(lengths)}), {torch.get_num_threads()} threads")
    print(f"{'path':<34} {'records/s':>10} {'ms/record':>10}")
    print(f"{'fill_many (batch ' + str(a.batch_size) + ')':<34} {rate_b:>10.0f} {1000 / rate_b:>10.3f}")
    print(f"{'  of which prepare (parse/encode)':<34} {len(records) / t_prep:>10.0f} {1000 * t_prep / len(records):>10.3f}")
    print(f"{'fill, one record at a time':<34} {rate_s:>10.0f} {1000 / rate_s:>10.3f}")
    print(f"max |batched - single| stepsize prediction: {diff:.2e}")
    # the machine's limit in the same run: FLOPs of a forward pass per record (the last block
    # computes only the hidden rows: counted in full, an upper bound) against GEMM peak
    cfg = model.model.trunk.cfg
    per_record = float(np.mean([cfg.flops_per_token(n, training=False) * n for n in lengths]))
    threads = torch.get_num_threads()
    peak = gemm_flops(2048, 2048, 2048, torch.float32, threads, seconds=1.0)
    achieved = rate_b * per_record
    print(f"model FLOP/s: {achieved / 1e9:.1f} GFLOP/s ({per_record / 1e6:.1f} MFLOP a record) = "
          f"{achieved / peak:.1%} of the fp32 GEMM peak {peak / 1e9:.1f} GFLOP/s on {threads} threads")
    print(f"fill_throughput: {rate_b:.0f} records/s vs reference {rate_s:.0f} records/s = "
          f"{rate_b / rate_s:.1f}x (target >= 2000 records/s batched)")


if __name__ == "__main__":
    main()
