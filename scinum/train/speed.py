"""Training-speed helpers measured at the quick shapes (``benchmarks/train_step_overhead.py``).

:func:`logs_this_step`: Lightning writes a training step's logged metrics to its loggers only
every ``trainer.log_every_n_steps`` steps (or when the run stops), yet each ``self.log`` call
costs the same on every step (Lightning's result bookkeeping walks the logged values): at the
quick model's batch of 8 that was about a tenth of a step. The training step logs only on the
steps whose metrics are written, so what reaches the logs is unchanged.
"""

from __future__ import annotations

from typing import Any

__all__ = ["logs_this_step"]


def logs_this_step(module: Any) -> bool:
    """Whether the metrics this training step logs reach a logger: Lightning's own test
    (``log_every_n_steps``, or a stop requested before the step ends); True outside a Trainer
    or with a Lightning that lacks the test."""
    trainer = getattr(module, "_trainer", None)
    connector = getattr(trainer, "_logger_connector", None)
    if connector is None:
        return True
    try:
        return bool(connector.should_update_logs)
    except (AttributeError, NotImplementedError):
        return True
