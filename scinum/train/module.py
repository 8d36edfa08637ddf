"""The Lightning module: logging, the optimiser and its schedule, checkpoints around a
:class:`~scinum.model.mlm.NumberMLM` (which owns its loss and its optimiser's parameter groups).

Loss = token cross-entropy over hidden tokens + λ · number loss over hidden number tokens
(``optim.number_loss_weight``); each term is a mean over its hidden positions and 0 (not NaN)
when a batch hides none. AdamW (:meth:`NumberMLM.configure_optimizers
<scinum.model.mlm.NumberMLM.configure_optimizers>`: weight decay on matrices only), linear warmup
then cosine decay to ``min_lr_ratio · lr`` (xVal: 0.1) at ``max_steps``.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import lightning as L
import torch

from ..tokens.batch import Batch
from ..model.checkpoint import CheckpointMeta, digest
from ..model.curvature import Curvature
from .config import OptimConfig
from .distributed import MetricSums
from ..model.mlm import LOSS_NAMES, NumberMLM
from .speed import logs_this_step

__all__ = ["MLMModule", "lr_factor"]


def lr_factor(step: int, warmup: int, total: int, min_ratio: float, fraction: float | None = None) -> float:
    """Multiplier of the base LR: linear warmup over ``warmup`` steps, cosine to ``min_ratio``
    at step ``total`` — or, with a time budget, at ``fraction`` (of the budget's seconds) 1."""
    if step < warmup:
        return (step + 1) / warmup
    t = fraction if fraction is not None else min(1.0, (step - warmup) / max(1, total - warmup))
    return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * t))


class MLMModule(L.LightningModule):
    """Lightning's view of a :class:`~scinum.model.mlm.NumberMLM` built from checkpoint metadata
    (the model owns its losses; this adds logging, the optimiser and checkpoints)."""

    def __init__(
        self,
        meta: CheckpointMeta | None,
        optim: OptimConfig | dict[str, Any],
        max_steps: int,
        watch: dict[int, str] | None = None,
        plan: Callable[[Any], tuple[CheckpointMeta, NumberMLM, dict[int, str]]] | None = None,
        clock: Any = None,
        compile: bool = False,
    ):
        """``meta``: build the model now; or None and ``plan``: Lightning's
        :meth:`configure_model` makes it once the datamodule is set up, as
        ``plan(datamodule) -> (meta, model, watch)``. ``optim``: the ``optim:`` section (a dict is read as
        :class:`~scinum.train.config.OptimConfig`). ``watch``: field id -> field name whose validation
        error is logged on its own (``val/err/<field>``: the training curves of the fields a
        dataset is evaluated on). ``clock``: a :class:`~scinum.train.budget.TimeBudget` whose
        ``fraction`` drives the cosine decay (a seconds budget) instead of the step count.
        ``compile`` (``trainer.compile``): ``torch.compile`` the trunk once training starts on a
        CUDA device (nothing on the CPU)."""
        super().__init__()
        self.clock, self.compile_trunk = clock, compile
        if meta is None and plan is None:
            raise ValueError("MLMModule needs meta or a plan to make it from the data")
        self.optim = optim if isinstance(optim, OptimConfig) else OptimConfig(**optim)
        self.meta, self.max_steps, self.plan = meta, max_steps, plan
        self.watch = dict(watch or {})
        self.model = meta.build_model() if meta is not None else None
        self.curvature: Curvature | None = None  # set in configure_model, once the model is built

    def configure_model(self) -> None:
        if self.model is None:
            assert self.plan is not None  # __init__ takes meta or a plan
            # Lightning sets trainer.datamodule at fit (its data connector) but its Trainer class does not declare it
            self.meta, self.model, self.watch = self.plan(self.trainer.datamodule)  # type: ignore[attr-defined]
        self.curvature = None
        o = self.optim
        if o.curvature_weight:  # the encoding and head were checked with the config (validate_config)
            assert self.meta is not None  # made with the model
            encoding = self.meta.make_encoding()
            self.curvature = Curvature(o.curvature_weight, o.curvature_step, o.curvature_share, encoding, o.curvature_reach)

    def on_fit_start(self) -> None:
        # in place (nn.Module.compile): parameter names, the state dict and checkpoints unchanged
        if self.compile_trunk and self.device.type == "cuda":
            assert self.model is not None  # made in configure_model
            self.model.trunk.compile(dynamic=True)  # one compile for every batch length

    def losses(self, batch: Batch) -> dict[str, Any]:
        """:meth:`NumberMLM.losses <scinum.model.mlm.NumberMLM.losses>` with the configured number
        loss weight (and, in validation, the watched fields' errors)."""
        assert self.model is not None  # made in configure_model
        return self.model.losses(
            batch,
            self.optim.number_loss_weight,
            None if self.training else self.watch,
            mean_over=self.optim.number_loss_mean,
            curvature=self.curvature,
        )

    def training_step(self, batch: Batch, batch_idx: int) -> torch.Tensor:
        res = self.losses(batch)
        if self.clock is None and not logs_this_step(self):  # metrics no logger writes (scinum.train.speed)
            return res["loss"]
        bs = batch["ids"].shape[0]
        self.log("train/loss", res["loss"], prog_bar=True, batch_size=bs)
        self.log_dict({f"train/{k}": v for k, v in res.items() if k != "loss"}, batch_size=bs)
        self.log("train/tokens", batch["attend"].sum().float(), reduce_fx="sum", batch_size=bs)
        return res["loss"]

    def on_validation_epoch_start(self) -> None:
        # the same names on every rank, whatever its batches hide: one matched all_reduce at the end
        self.val_sums = MetricSums([*LOSS_NAMES, *(f"err/{f}" for f in self.watch.values())])

    def validation_step(self, batch: Batch, batch_idx: int) -> None:
        res = self.losses(batch)
        for k, v in res.items():
            if k.startswith("err/"):  # mean over the field's numbers, not over batches
                self.val_sums.add(k, *v)
            else:
                self.val_sums.add(k, v, batch["ids"].shape[0])

    def on_validation_epoch_end(self) -> None:
        for k, v in self.val_sums.reduce(self.device).items():
            self.log(f"val/{k}", v)  # already reduced over ranks: no sync_dist

    def configure_optimizers(self):
        o = self.optim
        opt = self.model.configure_optimizers(o.lr, o.weight_decay, o.betas)
        if self._fused():  # the same groups, one fused kernel per step
            groups = [{"params": g["params"], "weight_decay": g["weight_decay"]} for g in opt.param_groups]
            opt = torch.optim.AdamW(groups, lr=o.lr, betas=tuple(o.betas), fused=True)
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: lr_factor(s, o.warmup_steps, self.max_steps, o.min_lr_ratio, None if self.clock is None else self.clock.fraction)
        )
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}

    def _fused(self) -> bool:
        """Whether AdamW runs fused (``optim.fused``): on a CUDA device, and not under 16-mixed,
        whose gradient scaler would leave the gradients scaled when they are clipped."""
        precision = str(self.trainer.precision) if self._trainer is not None else ""
        return self.optim.fused and self.device.type == "cuda" and precision not in ("16-mixed", "16")

    def configure_gradient_clipping(self, optimizer, gradient_clip_val=None, gradient_clip_algorithm=None) -> None:
        # Lightning's mixed-precision plugin refuses to clip for a fused optimizer (it would
        # unscale the gradients itself); under bf16-mixed or 32-true there is no scaler, so the
        # gradients are as computed and clipping them here is what Lightning does otherwise
        if gradient_clip_val and getattr(optimizer, "defaults", {}).get("fused"):
            torch.nn.utils.clip_grad_norm_(self.parameters(), gradient_clip_val)
            return
        self.clip_gradients(optimizer, gradient_clip_val=gradient_clip_val, gradient_clip_algorithm=gradient_clip_algorithm)

    def on_save_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        assert self.meta is not None  # made in configure_model
        checkpoint["scinum"] = self.meta.to_dict()
        checkpoint["digest"] = digest(checkpoint["scinum"], checkpoint["state_dict"])
