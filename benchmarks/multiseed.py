"""Several seeds of the quick model trained at once (:mod:`scinum.multiseed`: stacked weights,
``vmap`` of ``functional_call``, one AdamW step over the stacked tensors) vs the same seeds
trained one after another (the bare PyTorch loop that computes what ``scinum fit`` computes).

Both sides start from the same initial weights (seed s: ``seed_everything(s)`` then build, as
fit does) and take the same batches (seed s's data stream); they alternate step by step in one
process (one thread), so the machine's load falls on both alike. Printed per seed count N:
samples/s of each side and their ratio, and the largest loss difference between seed s trained
stacked and seed s trained alone over the first ``--check`` steps (float32 rounding: the stacked
side pads the seeds' batches to a common length and sums losses with masks).

Run: ``python benchmarks/multiseed.py [--seeds 3,4,8 --batch 8 --steps 60]``; last line is the headline.
"""
from __future__ import annotations

import argparse
import copy
import tempfile
import time
from pathlib import Path

import torch

from quick_shapes import make_dataset, quick_config
from train_step_overhead import build

from scinum.multiseed import StackedModels, stack_batches
from scinum.training import lr_factor


def single(model, module, config):
    conf = module.configure_optimizers()
    opt, sched = conf["optimizer"], conf["lr_scheduler"]["scheduler"]
    params = [p for g in opt.param_groups for p in g["params"]]
    w, clip = config["optim"]["number_loss_weight"], config["optim"]["grad_clip"]

    def step(batch):
        opt.zero_grad(set_to_none=True)
        loss = model.losses(batch, w)["loss"]
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, clip)
        opt.step()
        sched.step()
        return loss.item()
    return step


def compare(data: Path, tmp: Path, n: int, bs: int, steps: int, check: int, skip: int) -> dict:
    streams, singles, models = [], [], []
    for s in range(n):
        config = quick_config(data, tmp / f"s{s}", bs, steps, seed=s)
        dm, module = build(config)
        models.append(copy.deepcopy(module.model))  # the same initial weights for the stacked side
        singles.append(single(module.model, module, config))
        streams.append(iter(dm.train_dataloader()))
    o = config["optim"]
    stacked = StackedModels(models, o, lambda k: lr_factor(k, o["warmup_steps"], steps, o["min_lr_ratio"]))
    pad_id, neutral = dm.vocab.pad_id, 1.0 if module.meta.model.combine == "multiply" else 0.0
    t_single = t_stacked = 0.0
    samples = 0
    diff = 0.0
    for k in range(steps):
        batches = [next(it) for it in streams]
        t0 = time.perf_counter()
        alone = [step(b) for step, b in zip(singles, batches)]
        t1 = time.perf_counter()
        together = stacked.step(stack_batches(batches, pad_id, neutral)).tolist()
        t2 = time.perf_counter()
        if k < check:
            diff = max(diff, max(abs(a - b) / abs(a) for a, b in zip(alone, together)))
        if k >= skip:
            t_single, t_stacked = t_single + t1 - t0, t_stacked + t2 - t1
            samples += sum(b["ids"].shape[0] for b in batches)
    return {"single": samples / t_single, "stacked": samples / t_stacked, "diff": diff,
            "ms_single": 1e3 * t_single / (steps - skip), "ms_stacked": 1e3 * t_stacked / (steps - skip)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="3,4,8", help="seed counts N to compare")
    ap.add_argument("--batch", type=int, default=8, help="batch size (compare preset: 8)")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--check", type=int, default=20, help="steps whose losses are compared")
    ap.add_argument("--skip", type=int, default=5, help="first steps not timed")
    a = ap.parse_args()
    torch.set_num_threads(1)
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        data = make_dataset(Path(tmp) / "data")
        for n in (int(x) for x in a.seeds.split(",")):
            rows[n] = compare(data, Path(tmp), n, a.batch, a.steps, a.check, a.skip)
    print(f"batch {a.batch}, quick model (d 64, 2 layers, 2 heads, xVal), one thread, "
          f"steps {a.skip}..{a.steps} timed; loss check over steps 0..{a.check}")
    print(f"{'N':>3} {'sequential samples/s':>21} {'stacked samples/s':>18} {'ratio':>6} "
          f"{'ms/step seq':>11} {'ms/step stacked':>15} {'max rel |Δloss| per seed':>25}")
    for n, r in rows.items():
        print(f"{n:>3} {r['single']:>21.1f} {r['stacked']:>18.1f} {r['stacked'] / r['single']:>6.2f} "
              f"{r['ms_single']:>11.1f} {r['ms_stacked']:>15.1f} {r['diff']:>25.2e}")
    n, r = max(rows.items(), key=lambda kv: kv[1]["stacked"] / kv[1]["single"])
    print(f"multiseed: {r['stacked']:.1f} samples/s vs reference {r['single']:.1f} samples/s = "
          f"{r['stacked'] / r['single']:.2f}x (N={n} stacked vs sequential; target >= 1.3x)")


if __name__ == "__main__":
    main()
