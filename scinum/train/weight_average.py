"""An exponential moving average of the weights (``optim.weight_average``): validated, kept and
written in place of the last step's weights.

After every optimiser step each parameter's average moves toward it:
``avg ← avg + (1 − d) · (w − avg)`` with ``d = min(decay, (1 + n) / (10 + n))`` after ``n``
updates, so the first steps' weights (the initialisation) fade fast instead of lingering for
``1 / (1 − decay)`` steps. Validation reads the averaged weights (the run's ``val/loss``, and so
:class:`~scinum.train.early_stopping.BestWeights`, judge the model that is written); at the end
of training the averages replace the weights. Checkpoints keep both: the weights training goes on
from in ``state_dict``, the averages in this callback's state, so a resumed run averages on as if
never stopped. Buffers (none learnt) are left as they are.
"""

from __future__ import annotations

from typing import Any

import lightning as L
import torch
from torch import nn

__all__ = ["WeightAverage"]


class WeightAverage(L.Callback):
    """The moving average of ``pl_module.model``'s parameters with ``decay`` in (0, 1); list it after
    :class:`~scinum.train.early_stopping.BestWeights` so that the best weights kept are the averages
    a validation judged."""

    def __init__(self, decay: float):
        if not 0 < decay < 1:
            raise ValueError(f"weight average decay {decay!r}: a number in (0, 1)")
        self.decay = decay
        self.updates = 0
        self.averages: list[torch.Tensor] | None = None
        self.swapped = False

    def _params(self, pl_module: L.LightningModule) -> list[torch.Tensor]:
        model = pl_module.model
        assert isinstance(model, nn.Module)  # scinum's MLMModule, its model built
        return list(model.parameters())

    def on_fit_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        params = self._params(pl_module)
        if self.averages is None:  # not restored from a checkpoint
            self.averages = [p.detach().clone() for p in params]
        else:
            self.averages = [a.to(p.device, p.dtype) for a, p in zip(self.averages, params, strict=True)]

    @torch.no_grad()
    def on_train_batch_end(self, trainer: L.Trainer, pl_module: L.LightningModule, outputs: Any, batch: Any, batch_idx: int) -> None:
        if trainer.global_step <= self.updates:  # no optimiser step this batch (gradient accumulation)
            return
        self.updates = trainer.global_step
        d = min(self.decay, (1 + self.updates) / (10 + self.updates))
        assert self.averages is not None  # made in on_fit_start
        torch._foreach_lerp_(self.averages, [p.detach() for p in self._params(pl_module)], 1 - d)

    @torch.no_grad()
    def _swap(self, pl_module: L.LightningModule) -> None:
        assert self.averages is not None  # made in on_fit_start
        for a, p in zip(self.averages, self._params(pl_module), strict=True):
            kept = p.detach().clone()
            p.copy_(a)
            a.copy_(kept)
        self.swapped = not self.swapped

    def on_validation_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if trainer.state.fn == "fit" and self.averages is not None and not self.swapped:
            self._swap(pl_module)  # validate the averages

    def on_validation_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if self.swapped:
            self._swap(pl_module)  # train on from the weights

    @torch.no_grad()
    def on_train_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        assert self.averages is not None  # made in on_fit_start
        for a, p in zip(self.averages, self._params(pl_module), strict=True):
            p.copy_(a)

    def state_dict(self) -> dict[str, Any]:
        averages = None if self.averages is None else [a.detach().cpu() for a in self.averages]
        return {"decay": self.decay, "updates": self.updates, "averages": averages}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.updates, self.averages = state_dict["updates"], state_dict["averages"]
