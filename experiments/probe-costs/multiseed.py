"""Several seeds of the quick model trained at once (stacked weights, batched GEMMs, the number
head through ``vmap`` of ``functional_call``, one AdamW step over the stacked tensors) vs the same seeds
trained one after another (the bare PyTorch loop that computes what ``scinum fit`` computes).

Both sides start from the same initial weights (seed s: ``seed_everything(s)`` then build, as
fit does) and take the same batches (seed s's data stream); they alternate step by step in one
process (one thread), so the machine's load falls on both alike. Printed per seed count N:
samples/s of each side and their ratio, and the largest loss difference between seed s trained
stacked and seed s trained alone over the first ``--check`` steps (float32 rounding: the stacked
side pads the seeds' batches to a common length and sums losses with masks).

Stacked side (kept here, not in the library: it measured slower, see the last line): each
seed computes what its own run computes — its own initial weights, its own batches, the same loss
(token cross-entropy over hidden tokens + weight · number loss, each a mean over that seed's
hidden positions), gradient clipping by *its own* global norm, the same AdamW update (elementwise,
so stacking does not mix seeds) and LR schedule. The trunk runs stacked by hand
(:func:`stacked_losses`: batched GEMMs; attention with the seeds' rows folded into its batch, so
it keeps its fused kernel, which has no ``vmap`` batching rule: under ``vmap`` it falls back to a
loop, measured 0.75x); the number head through ``vmap`` of ``functional_call``. What differs from
the single runs is float32 rounding: the seeds' batches are padded to a common length (masked out
as keys, no loss) and the losses are masked sums over every position instead of gathers.

Run: ``python experiments/probe-costs/multiseed.py [--seeds 3,4,8 --batch 8 --steps 60]``; last line is the headline.
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

import torch
import torch.nn.functional as F
from torch.func import functional_call, stack_module_state, vmap

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # quick_shapes, train_step_overhead
from quick_shapes import make_dataset, quick_config  # noqa: E402
from train_step_overhead import build  # noqa: E402

from scinum.model.mlm import NumberMLM  # noqa: E402
from scinum.model.trunk import _rope  # noqa: E402
from scinum.train.module import lr_factor  # noqa: E402


def _lin(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """Each seed's linear map (no bias): x [S, ..., in], w [S, out, in] -> [S, ..., out]."""
    S = x.shape[0]
    return torch.bmm(x.reshape(S, -1, x.shape[-1]), w.transpose(1, 2)).reshape(*x.shape[:-1], w.shape[1])


def _ln(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """Each seed's bias-free LayerNorm: x [S, B, L, d], w [S, d]."""
    return F.layer_norm(x, x.shape[-1:]) * w[:, None, None, :]


def stacked_losses(
    params: dict[str, torch.Tensor], model: NumberMLM, head_call, stacked: dict[str, torch.Tensor], number_loss_weight: float = 1.0
) -> torch.Tensor:
    """float32[S]: each seed's training loss, as :meth:`NumberMLM.losses
    <scinum.model.mlm.NumberMLM.losses>` computes it, for weights ``params`` (the model's parameter
    names, a leading seed dimension) and a :func:`stack_batches` batch. The trunk runs stacked
    (batched GEMMs; attention over the seeds' rows folded into one batch, so it keeps its fused
    kernel); the number head through ``head_call`` (a vmapped functional call)."""
    cfg = model.trunk.cfg
    if cfg.dropout:
        raise ValueError("stacked training supports dropout 0 only")
    if cfg.value_path != "layernorm":
        raise ValueError("stacked training supports the pre-LN trunk only (model.value_path: layernorm)")
    ids, feats, attend = stacked["ids"], stacked["feats"], stacked["attend"]
    S, B, L = ids.shape
    d, H = cfg.d_model, cfg.n_heads
    tok_w = params["trunk.tok.weight"]  # [S, V, d]
    V = tok_w.shape[1]
    offset = (torch.arange(S) * V)[:, None, None]
    x = F.embedding(ids + offset, tok_w.reshape(S * V, d))
    if cfg.combine == "multiply":
        x = x * feats[..., :1].to(x.dtype)
    elif cfg.combine == "add":
        x = x + _lin(feats.to(x.dtype), params["trunk.num_proj.weight"])
    elif cfg.combine == "replace":
        at = feats.ne(0).any(-1, keepdim=True)
        f = feats.to(x.dtype) * (d / cfg.num_dim) ** 0.5
        x = torch.where(at, F.pad(f, (0, d - cfg.num_dim)), x)
    if cfg.positions != "rope":
        if L > cfg.max_positions:
            raise ValueError(f"sequence of {L} tokens is longer than the learned position table ({cfg.max_positions})")
        x = x + params["trunk.pos.weight"][:, None, :L]
    rope = None
    if cfg.positions != "learned":
        ang = torch.outer(torch.arange(L, dtype=torch.float32), model.trunk.inv_freq)
        rope = (ang.cos().to(x.dtype), ang.sin().to(x.dtype))
    mask = attend.reshape(S * B, 1, 1, L)
    for n in range(cfg.n_layers):
        p = {k: params[f"trunk.blocks.{n}.{k}.weight"] for k in ("ln1", "qkv", "proj", "ln2", "fc", "fc_out")}
        q, k, v = _lin(_ln(x, p["ln1"]), p["qkv"]).view(S * B, L, 3, H, d // H).permute(2, 0, 3, 1, 4)
        if rope is not None:
            q, k = _rope(q, *rope), _rope(k, *rope)
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        x = x + _lin(a.transpose(1, 2).reshape(S, B, L, d), p["proj"])
        x = x + _lin(F.gelu(_lin(_ln(x, p["ln2"]), p["fc"])), p["fc_out"])
    h = _ln(x, params["trunk.ln_f.weight"])
    logits = _lin(h, tok_w).float()  # tied token head, [S, B, L, V]
    targets = stacked["targets"]
    ce = F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), ignore_index=-100, reduction="none").view(S, -1).sum(1)
    ce = ce / targets.ne(-100).view(S, -1).sum(1).clamp(min=1)
    head = {k[5:]: v for k, v in params.items() if k.startswith("head.")}
    per = head_call(head, h, logits, stacked["num_dense"])
    num = stacked["num_hidden"]
    on = num.reshape(num.shape + (1,) * (per.dim() - num.dim()))
    number = torch.where(on, per, 0).reshape(S, -1).sum(1) / num.view(S, -1).sum(1).clamp(min=1)
    return ce + number_loss_weight * number


def stack_batches(batches: Sequence[dict[str, torch.Tensor]], pad_id: int, neutral: float) -> dict[str, torch.Tensor]:
    """One :func:`~scinum.tokens.batch.make_batch` batch per seed -> tensors with a leading seed
    dimension, padded to the longest batch (``[PAD]`` tokens, ``neutral`` features, no loss) and
    to the largest batch size (rows of padding that attend only to themselves). ``num_dense``
    float64[S, B, L]: each hidden number's target at its position, 0 elsewhere."""
    B = max(b["ids"].shape[0] for b in batches)
    L = max(b["ids"].shape[1] for b in batches)
    D = batches[0]["feats"].shape[-1]
    S = len(batches)
    out = {
        "ids": torch.full((S, B, L), pad_id, dtype=torch.int64),
        "feats": torch.full((S, B, L, D), neutral, dtype=batches[0]["feats"].dtype),
        "attend": torch.zeros((S, B, L), dtype=torch.bool),
        "targets": torch.full((S, B, L), -100, dtype=torch.int64),
        "num_hidden": torch.zeros((S, B, L), dtype=torch.bool),
        "num_dense": torch.zeros((S, B, L), dtype=torch.float64),
    }
    for s, b in enumerate(batches):
        n, l = b["ids"].shape
        for k in ("ids", "feats", "attend", "targets", "num_hidden"):
            out[k][s, :n, :l] = b[k]
        out["attend"][s, n:, 0] = True  # a padding row attends to its first position only (no NaN)
        dense = torch.zeros((n, l), dtype=torch.float64)
        dense[b["num_hidden"]] = b["num_target"].to(torch.float64)
        out["num_dense"][s, :n, :l] = dense
    return out


class StackedModels:
    """``len(models)`` models of one architecture trained as one: parameters stacked
    ([S, ...] leaves with ``.grad``), a step = vmapped :class:`DenseLoss` forward, one backward of
    the seeds' summed losses (the seeds' graphs are disjoint: each gets its own gradient), clipping
    by each seed's own norm, then ``optimizer.step()``.

    ``optim``: the config's ``optim`` section; ``lr_lambda(step)``: the schedule's multiplier."""

    def __init__(self, models: Sequence[NumberMLM], optim: dict[str, Any], lr_lambda):
        self.n = len(models)
        self.params, self.buffers = stack_module_state(list(models))
        self.shapes = dict(models[0].named_parameters())
        self.model = copy.deepcopy(models[0]).to("meta")
        self.weight = optim["number_loss_weight"]
        decay = [p for k, p in self.params.items() if self.shapes[k].dim() >= 2]
        no_decay = [p for k, p in self.params.items() if self.shapes[k].dim() < 2]
        self.opt = torch.optim.AdamW(
            [{"params": decay, "weight_decay": optim["weight_decay"]}, {"params": no_decay, "weight_decay": 0.0}],
            lr=optim["lr"],
            betas=tuple(optim["betas"]),
        )
        self.sched = torch.optim.lr_scheduler.LambdaLR(self.opt, lr_lambda)
        self.clip = optim["grad_clip"]

        head = self.model.head

        def head_loss(params, h, logits, target):
            out = functional_call(head, params, (h, logits))
            return head.loss(out, target)

        self._head_call = vmap(head_loss)

    def losses(self, stacked: dict[str, torch.Tensor]) -> torch.Tensor:
        """float32[S]: each seed's training loss on its batch."""
        return stacked_losses(self.params, self.model, self._head_call, stacked, self.weight)

    def step(self, stacked: dict[str, torch.Tensor]) -> torch.Tensor:
        """One training step of every seed; returns their losses float32[S] (detached)."""
        self.opt.zero_grad(set_to_none=True)
        losses = self.losses(stacked)
        losses.sum().backward()
        if self.clip:
            self._clip_per_seed(self.clip)
        self.opt.step()
        self.sched.step()
        return losses.detach()

    @torch.no_grad()
    def _clip_per_seed(self, max_norm: float) -> None:
        """:func:`torch.nn.utils.clip_grad_norm_` of each seed's own gradients."""
        grads = [p.grad for p in self.params.values() if p.grad is not None]
        norms = torch.stack([g.reshape(self.n, -1).pow(2).sum(1) for g in grads]).sum(0).sqrt()
        coef = (max_norm / (norms + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.reshape((self.n,) + (1,) * (g.dim() - 1)))

    def state_dict(self, s: int) -> dict[str, torch.Tensor]:
        """Seed ``s``'s weights, as its own model's ``state_dict`` (persistent buffers included)."""
        out = {k: p[s].detach().clone() for k, p in self.params.items()}
        return out


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
        # the stacked trunk is written for the paper's trunk: flat positions, pre-LN value path
        config["model"].update(positions="learned", value_path="layernorm")
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
    return {
        "single": samples / t_single,
        "stacked": samples / t_stacked,
        "diff": diff,
        "ms_single": 1e3 * t_single / (steps - skip),
        "ms_stacked": 1e3 * t_stacked / (steps - skip),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="3,4,8", help="seed counts N to compare")
    ap.add_argument("--batch", type=int, default=8, help="batch size (compare preset: 8)")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--check", type=int, default=20, help="steps whose losses are compared")
    ap.add_argument("--skip", type=int, default=5, help="first steps not timed")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes: checks that the script runs, measures nothing")
    a = ap.parse_args()
    n_train = 1200
    if a.smoke:
        a.seeds, a.steps, a.check, a.skip, n_train = "2", 4, 2, 1, 64
    torch.set_num_threads(1)
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        data = make_dataset(Path(tmp) / "data", n_train=n_train, n_val=8)
        for n in (int(x) for x in a.seeds.split(",")):
            rows[n] = compare(data, Path(tmp), n, a.batch, a.steps, a.check, a.skip)
    print(
        f"batch {a.batch}, quick model (d 64, 2 layers, 2 heads, xVal), one thread, "
        f"steps {a.skip}..{a.steps} timed; loss check over steps 0..{a.check}"
    )
    print(
        f"{'N':>3} {'sequential samples/s':>21} {'stacked samples/s':>18} {'ratio':>6} "
        f"{'ms/step seq':>11} {'ms/step stacked':>15} {'max rel |Δloss| per seed':>25}"
    )
    for n, r in rows.items():
        print(
            f"{n:>3} {r['single']:>21.1f} {r['stacked']:>18.1f} {r['stacked'] / r['single']:>6.2f} "
            f"{r['ms_single']:>11.1f} {r['ms_stacked']:>15.1f} {r['diff']:>25.2e}"
        )
    n, r = max(rows.items(), key=lambda kv: kv[1]["stacked"] / kv[1]["single"])
    print(f"headline: N={n} stacked vs sequential")
    print(
        f"multiseed: {r['stacked']:.1f} samples/s vs reference {r['single']:.1f} samples/s = "
        f"{r['stacked'] / r['single']:.2f}x (target >= 1.3x)"
    )


if __name__ == "__main__":
    main()
