"""Early stopping and the best weights of a ``scinum fit`` run (``trainer.early_stopping_patience``).

:class:`BestWeights` watches the validation loss (``val/loss``, reduced over every rank, so every
rank decides alike) after each validation: a lower loss keeps a CPU copy of the weights and the
step it came from; ``patience`` validations in a row without a lower loss stop the run, though
not before step ``min_steps`` (``trainer.early_stopping_min_steps``: a budget's floor). After
training, :func:`scinum.train.fit.fit` restores the kept weights into the model it writes and
records ``{"step", "val_loss", "last_step", "stopped_early"}`` as ``run["best"]`` in the
checkpoint and in ``training.json``, and says so on stderr. The copy travels in the callback's
state, so a resumed run keeps the best of before the interruption.
"""

from __future__ import annotations

import math
from typing import Any

import lightning as L
import torch

__all__ = ["MONITOR", "BestWeights"]

#: the metric watched: the validation loss (token CE + weighted number loss)
MONITOR = "val/loss"


class BestWeights(L.Callback):
    """Keep the weights of the lowest ``val/loss``; stop after ``patience`` validations without
    improvement (``patience`` None or 0: never stop, only keep the best), at step ``min_steps``
    at the earliest."""

    def __init__(self, patience: int | None, min_steps: int = 0):
        self.patience, self.min_steps = patience or 0, min_steps
        self.best_loss, self.bad = math.inf, 0
        self.best_step: int | None = None
        self.weights: dict[str, torch.Tensor] | None = None
        self.stopped_early = False

    def on_validation_end(self, trainer, pl_module) -> None:
        if trainer.sanity_checking:
            return
        loss = trainer.callback_metrics.get(MONITOR)
        if loss is None or not math.isfinite(float(loss)):
            return
        if float(loss) < self.best_loss:
            self.best_loss, self.best_step, self.bad = float(loss), int(trainer.global_step), 0
            self.weights = {k: v.detach().to("cpu", copy=True) for k, v in pl_module.model.state_dict().items()}
        else:
            self.bad += 1
            if self.patience and self.bad >= self.patience and trainer.global_step >= self.min_steps:
                trainer.should_stop = self.stopped_early = True

    def summary(self, last_step: int) -> dict[str, Any] | None:
        """The run entry ``best`` (module docstring); None when no validation ran."""
        if self.best_step is None:
            return None
        return {"step": self.best_step, "val_loss": self.best_loss, "last_step": int(last_step), "stopped_early": self.stopped_early}

    def state_dict(self) -> dict[str, Any]:
        return {
            "best_loss": self.best_loss,
            "best_step": self.best_step,
            "bad": self.bad,
            "weights": self.weights,
            "stopped_early": self.stopped_early,
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.best_loss, self.best_step = state_dict["best_loss"], state_dict["best_step"]
        self.bad, self.weights = state_dict["bad"], state_dict["weights"]
        self.stopped_early = state_dict["stopped_early"]
