"""Per-step cost of training at the quick shapes: Lightning's fit loop as scinum runs it vs a bare
PyTorch loop over the same model, batches, optimizer and schedule, and ``torch.compile`` in the
bare loop; each as ms per step and as a share of this CPU's one-thread fp32 GEMM peak.

Shapes: the planets quick recipe's model as it was when this was written (d_model 64, 2 layers,
2 heads, xVal; :func:`quick_shapes.quick_config`; the preset now trains four heads) on
planets-shaped records of 12 time steps (about 100-200 tokens), batch 32 (the quick preset's xVal)
and batch 8 (its other models and the ``compare`` preset), one thread as the recipes train.
Paths, each from the same seed (same initial weights, same batches):

* ``lightning``: :func:`scinum.train.fit` (its LightningModule, callbacks, loggers, data module);
* ``bare``: the same data loader, model, AdamW, LR schedule and gradient clipping in a plain loop;
* ``bare fused``: the same with ``AdamW(fused=True)`` (one kernel over all parameters);
* ``compile``: the bare loop with the model's loss ``torch.compile``'d (inductor on CPU);
* ``compile trunk``: only the transformer trunk compiled (the loss's boolean indexing eager).

Timed: the steps after the first ``--skip`` (compile and warm-up excluded), wall clock from one
batch's start to the next (batch drawing included). The loss curves of every path are compared
with the Lightning run's (the same computation: equal within float32 rounding).

Run: ``python benchmarks/train_step_overhead.py [--steps 160 --skip 20] [--smoke]``; last line is the
headline. ``--smoke``: a few steps of the bare path only, a small dataset (checks that it runs).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import lightning as L
import torch

from quick_shapes import fp32_peak_one_thread, make_dataset, quick_config

from scinum import encodings
from scinum.train.config import resolve_normalizer
from scinum.train.data import MLMDataModule
from scinum.train.module import MLMModule
from scinum.train.fit import fit, make_meta


def build(config: dict):
    """The data module and module (model + optimizer + schedule) as :func:`fit` builds them."""
    L.seed_everything(config["seed"], workers=True, verbose=False)
    encoding = encodings.from_config(config["encoding"])
    d = config["data"]
    dm = MLMDataModule(
        d["path"],
        encoding,
        normalizer=resolve_normalizer(config, encoding),
        batch_size=d["batch_size"],
        mask_prob=d["mask_prob"],
        seed=config["seed"],
        pool=d["pool"],
        max_run=d["max_run"],
        structure=config["model"]["positions"] == "structure",
        structure_tokens=config["model"]["structure_tokens"],
        mask_fields=d["mask_fields"],
        mask_fields_prob=d["mask_fields_prob"],
        mask_fields_alone=d["mask_fields_alone"],
    )
    dm.prepare()
    module = MLMModule(make_meta(config, dm, encoding), config["optim"], config["trainer"]["max_steps"])
    return dm, module


class BarePath:
    """One step at a time of the bare loop (``variant``: bare, bare fused, compile, compile trunk)."""

    def __init__(self, config: dict, variant: str):
        dm, module = build(config)
        self.model, self.w = module.model, config["optim"]["number_loss_weight"]
        conf = module.configure_optimizers()
        self.opt, self.sched = conf["optimizer"], conf["lr_scheduler"]["scheduler"]
        if variant == "bare fused":  # the same groups, one fused kernel per step
            groups = [{"params": g["params"], "weight_decay": g["weight_decay"]} for g in self.opt.param_groups]
            self.opt = torch.optim.AdamW(groups, lr=config["optim"]["lr"], betas=tuple(config["optim"]["betas"]), fused=True)
            self.sched = torch.optim.lr_scheduler.LambdaLR(self.opt, self.sched.lr_lambdas[0])
        self.losses = self.model.losses
        if variant == "compile":  # the whole loss (trunk, heads, indexing)
            self.losses = torch.compile(self.model.losses, dynamic=True)
        elif variant == "compile trunk":  # the transformer only, in place (same parameter names)
            self.model.trunk.compile(dynamic=True)
        self.clip = config["optim"]["grad_clip"]
        self.params = [p for g in self.opt.param_groups for p in g["params"]]
        self.batches = iter(dm.train_dataloader())
        self.model.train()

    def step(self) -> tuple[float, int, float]:
        """(seconds, real tokens, loss) of one step, drawing its batch included."""
        t0 = time.perf_counter()
        batch = next(self.batches)
        self.opt.zero_grad(set_to_none=True)
        loss = self.losses(batch, self.w)["loss"]
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.params, self.clip)
        self.opt.step()
        self.sched.step()
        return time.perf_counter() - t0, int(batch["attend"].sum()), loss.item()


class Lockstep(L.Callback):
    """Times Lightning's steps and, between two of them, runs one step of every bare path: the
    paths interleave step by step, so the machine's drifting load falls on all of them alike."""

    def __init__(self, others: dict[str, BarePath]):
        self.others = others
        self.rec = {name: [] for name in ["lightning", *others]}  # (seconds, tokens, loss) per step
        self.last_end = None
        self.pending = None

    def _close(self, now: float) -> None:
        if self.last_end is not None:
            tokens, loss = self.pending
            self.rec["lightning"].append((now - self.last_end, tokens, loss))

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        self._close(time.perf_counter())
        for name, path in self.others.items():
            self.rec[name].append(path.step())
        self.pending = [int(batch["attend"].sum()), None]
        self.last_end = time.perf_counter()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        self.pending[1] = float(outputs["loss"])

    def on_train_end(self, trainer, pl_module):
        self._close(time.perf_counter())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=160, help="steps per path at batch 32 (2x at batch 8)")
    ap.add_argument("--skip", type=int, default=20, help="first steps not timed")
    ap.add_argument("--paths", default="bare,bare fused,compile trunk,compile", help="bare paths run in lockstep with Lightning's")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes: checks that the script runs, measures nothing")
    a = ap.parse_args()
    n_train, peak_seconds = 1200, 0.5
    if a.smoke:
        a.steps, a.skip, a.paths, n_train, peak_seconds = 4, 1, "bare", 64, 0.01
    torch.set_num_threads(1)
    names = [n for n in a.paths.split(",") if n]
    peak, peak_shape = fp32_peak_one_thread(peak_seconds)
    rows, share_of = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        data = make_dataset(Path(tmp) / "data", n_train=n_train, n_val=8)
        for bs in (32, 8):
            steps = a.steps if bs == 32 else 2 * a.steps
            config = quick_config(data, Path(tmp) / f"run-{bs}", bs, steps)
            others = {name: BarePath(config, name) for name in names}
            mlm_cfg = others[names[0]].model.trunk.cfg if names else None
            lock = Lockstep(others)
            fit(config, callbacks=[lock])
            if mlm_cfg is None:
                mlm_cfg = build(config)[1].meta.model
            ref = [r[2] for r in lock.rec["lightning"]]
            for name, rec in lock.rec.items():
                timed = rec[a.skip :]
                sec = sum(r[0] for r in timed)
                toks = sum(r[1] for r in timed)
                ms = 1e3 * sec / len(timed)
                first = sum(r[0] for r in rec[: a.skip]) - a.skip * sec / len(timed)  # compile, warm-up
                flops = toks * mlm_cfg.flops_per_token(toks / (len(timed) * bs)) / sec
                diff = max(abs(r[2] - x) for r, x in zip(rec, ref))
                share_of[(bs, name)] = flops / peak
                rows.append((bs, name, ms, first, flops / 1e9, flops / peak, diff, rec[-1][2]))
    print(
        f"one-thread fp32 GEMM peak: {peak / 1e9:.1f} GFLOP/s ({peak_shape}); threads=1; "
        f"timed steps {a.skip}..{a.steps} (batch 32), {a.skip}..{2 * a.steps} (batch 8)"
    )
    print(
        f"{'batch':>5} {'path':<14} {'ms/step':>8} {'extra s in first steps':>22} {'GFLOP/s':>8} "
        f"{'of peak':>8} {'max |Δloss| vs lightning':>24} {'last loss':>9}"
    )
    for bs, name, ms, first, gf, share, diff, last in rows:
        print(f"{bs:>5} {name:<14} {ms:>8.2f} {first:>22.2f} {gf:>8.2f} {share:>8.1%} {diff:>24.2e} {last:>9.4f}")
    by = {(r[0], r[1]): r[2] for r in rows}
    if "bare" in names:
        for bs in (32, 8):
            print(
                f"batch {bs}: Lightning's own cost {by[(bs, 'lightning')] - by[(bs, 'bare')]:.2f} ms/step "
                f"({1 - by[(bs, 'bare')] / by[(bs, 'lightning')]:.0%} of its step)"
            )
    worst = min(share_of[(bs, "lightning")] for bs in (32, 8))
    print(f"headline: scinum fit at the quick shapes, the worse of batch 32 and 8: {'met' if worst >= 0.5 else 'NOT met'}")
    print(f"train_step_overhead: {worst * peak / 1e9:.2f} GFLOP/s = {worst:.1%} of bound {peak / 1e9:.1f} GFLOP/s (target >= 50%)")


if __name__ == "__main__":
    main()
