"""Several seeds of one small model trained at once: their weights stacked along a new first
dimension (:func:`torch.func.stack_module_state`), one step of all of them through
:func:`torch.func.vmap` of :func:`torch.func.functional_call` — the quick models' small GEMMs
become batched ones — and one AdamW step over the stacked tensors.

Each seed computes what its own run computes: its own initial weights (``seed_everything(s)``
before building, as :func:`scinum.training.fit` does), its own batches (the data stream of seed
``s``), the same loss (token cross-entropy over hidden tokens + weight · number loss, each a mean
over that seed's hidden positions), gradient clipping by *its own* global norm, the same AdamW
update (elementwise, so stacking does not mix seeds) and LR schedule. What differs is float32
rounding: the seeds' batches are padded to a common length (padding is masked out as keys and
carries no loss), and the losses are taken over every position with masks instead of by
gathering the hidden ones.

:func:`stacked_losses` runs the trunk stacked by hand (batched GEMMs; attention with the seeds'
rows folded into its batch, so it keeps its fused kernel, which has no ``vmap`` rule) and the
number head through ``vmap``; it needs a head loss that is elementwise per position (every head
here is) and dropout 0.
"""
from __future__ import annotations

import copy
from typing import Any, Sequence

import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, stack_module_state, vmap

from .model import NumberMLM, _rope

__all__ = ["StackedModels", "stack_batches", "stacked_losses"]


def _lin(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """Each seed's linear map (no bias): x [S, ..., in], w [S, out, in] -> [S, ..., out]."""
    S = x.shape[0]
    return torch.bmm(x.reshape(S, -1, x.shape[-1]), w.transpose(1, 2)).reshape(*x.shape[:-1], w.shape[1])


def _ln(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """Each seed's bias-free LayerNorm: x [S, B, L, d], w [S, d]."""
    return F.layer_norm(x, x.shape[-1:]) * w[:, None, None, :]


def stacked_losses(params: dict[str, torch.Tensor], model: NumberMLM, head_call, stacked: dict[str, torch.Tensor],
                   number_loss_weight: float = 1.0) -> torch.Tensor:
    """float32[S]: each seed's training loss, as :meth:`NumberMLM.losses
    <scinum.model.NumberMLM.losses>` computes it, for weights ``params`` (the model's parameter
    names, a leading seed dimension) and a :func:`stack_batches` batch. The trunk runs stacked
    (batched GEMMs; attention over the seeds' rows folded into one batch, so it keeps its fused
    kernel); the number head through ``head_call`` (a vmapped functional call)."""
    cfg = model.trunk.cfg
    if cfg.dropout:
        raise ValueError("stacked training supports dropout 0 only")
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
            raise ValueError(f"sequence of {L} tokens is longer than the learned position table "
                             f"({cfg.max_positions})")
        x = x + params["trunk.pos.weight"][:, None, :L]
    rope = None
    if cfg.positions != "learned":
        ang = torch.outer(torch.arange(L, dtype=torch.float32), model.trunk.inv_freq)
        rope = tuple(t.to(x.dtype)[:, None, None, :] for t in (ang.cos(), ang.sin()))
    mask = attend.reshape(S * B, 1, 1, L)
    for n in range(cfg.n_layers):
        p = {k: params[f"trunk.blocks.{n}.{k}.weight"] for k in ("ln1", "qkv", "proj", "ln2", "fc", "fc_out")}
        qkv = _lin(_ln(x, p["ln1"]), p["qkv"]).view(S * B, L, 3, H, d // H)
        qk = qkv[:, :, :2] if rope is None else _rope(qkv[:, :, :2], *rope)
        q, k = qk.transpose(1, 3).unbind(2)
        v = qkv[:, :, 2].transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        x = x + _lin(a.transpose(1, 2).reshape(S, B, L, d), p["proj"])
        x = x + _lin(F.gelu(_lin(_ln(x, p["ln2"]), p["fc"])), p["fc_out"])
    h = _ln(x, params["trunk.ln_f.weight"])
    logits = _lin(h, tok_w).float()  # tied token head, [S, B, L, V]
    targets = stacked["targets"]
    ce = F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), ignore_index=-100,
                         reduction="none").view(S, -1).sum(1)
    ce = ce / targets.ne(-100).view(S, -1).sum(1).clamp(min=1)
    head = {k[5:]: v for k, v in params.items() if k.startswith("head.")}
    per = head_call(head, h, logits, stacked["num_dense"])
    num = stacked["num_hidden"]
    on = num.reshape(num.shape + (1,) * (per.dim() - num.dim()))
    number = torch.where(on, per, 0).reshape(S, -1).sum(1) / num.view(S, -1).sum(1).clamp(min=1)
    return ce + number_loss_weight * number


def stack_batches(batches: Sequence[dict[str, torch.Tensor]], pad_id: int, neutral: float
                  ) -> dict[str, torch.Tensor]:
    """One :func:`~scinum.batch.make_batch` batch per seed -> tensors with a leading seed
    dimension, padded to the longest batch (``[PAD]`` tokens, ``neutral`` features, no loss) and
    to the largest batch size (rows of padding that attend only to themselves). ``num_dense``
    float64[S, B, L]: each hidden number's target at its position, 0 elsewhere."""
    B = max(b["ids"].shape[0] for b in batches)
    L = max(b["ids"].shape[1] for b in batches)
    D = batches[0]["feats"].shape[-1]
    S = len(batches)
    out = {"ids": torch.full((S, B, L), pad_id, dtype=torch.int64),
           "feats": torch.full((S, B, L, D), neutral, dtype=batches[0]["feats"].dtype),
           "attend": torch.zeros((S, B, L), dtype=torch.bool),
           "targets": torch.full((S, B, L), -100, dtype=torch.int64),
           "num_hidden": torch.zeros((S, B, L), dtype=torch.bool),
           "num_dense": torch.zeros((S, B, L), dtype=torch.float64)}
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
        self.opt = torch.optim.AdamW([{"params": decay, "weight_decay": optim["weight_decay"]},
                                      {"params": no_decay, "weight_decay": 0.0}],
                                     lr=optim["lr"], betas=tuple(optim["betas"]))
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
