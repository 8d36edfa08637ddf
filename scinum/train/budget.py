"""Training budgets: how much a model may learn from, declared once for every model of a comparison.

A budget is the ``budget`` key of a ``scinum fit`` config (``null``: train ``trainer.max_steps``
steps, as before) and takes one of three forms — the xVal paper's Table 4 columns:

* ``{samples: N}`` — N training records seen: the first step count whose batches hold N records
  (ceil(N / data.batch_size) when every batch is full; the sampler's last batch of a pass over a
  training set that the batch size does not divide is short, and the stream is counted exactly
  when the records' lengths are at hand, as in ``scinum fit`` and comparisons).
* ``{tokens: N}`` — N real (non-padding) tokens seen, counted in the encoding's own spelling (a
  text encoding spends 3-5 tokens per number, so it sees fewer records; the records' tokens as
  written, brackets and keys included where the trunk reads the values alone,
  ``model.structure_tokens: false``). The batch stream of
  :class:`scinum.train.sampler.BucketBatchSampler` is a pure function of ``(seed, step)`` and the records'
  token lengths, so the steps are computed exactly before training: the first step count whose
  cumulative real tokens reach N (the stream of a single-device run; with several devices each
  step takes world-size batches, which this count does not model).
* ``{seconds: S}`` — S seconds of training wall time (forward, backward, optimiser step and
  drawing the batch; validation and checkpointing do not count), measured by
  :class:`TimeBudget`, which stops the run there. The LR schedule then runs on time: warmup over
  ``optim.warmup_steps`` steps, cosine decay over the fraction of S spent. Optional
  ``max_steps`` (default 10⁹) caps the steps. Wall time depends on the machine and its load: a
  seconds budget is reproducible only on the same, otherwise idle, machine, one thread per model.

The same budget for every model of a comparison makes the models comparable whatever their batch
size; ``trainer.max_steps`` is then ignored (the resolved steps are written to ``config.json``).
"""

from __future__ import annotations

import math
import time
from typing import Any, Iterable, Sequence

import lightning as L
import numpy as np

from .config import DataConfig, RunConfig, check_budget
from ..errors import ConfigError

__all__ = ["steps_for_samples", "steps_for_tokens", "steps_in_stream", "TimeBudget"]


def steps_for_samples(samples: int, batch_size: int) -> int:
    """Steps that see ``samples`` training records in batches of ``batch_size``: ceil(N / B)
    (the last batch may overshoot by fewer than B records)."""
    return max(1, math.ceil(samples / batch_size))


def steps_for_tokens(tokens: int, batch_lengths: Iterable[Sequence[int]], kind: str = "tokens") -> int:
    """The first step count whose cumulative real tokens reach ``tokens``; ``batch_lengths``
    yields, per step, the token lengths of the batch's records (a stream long enough to reach
    ``tokens``; an infinite sampler's is). ``kind="samples"`` counts records instead."""
    seen = 0
    for step, lengths in enumerate(batch_lengths, start=1):
        seen += len(lengths) if kind == "samples" else int(sum(lengths))
        if seen >= tokens:
            return step
    raise ConfigError(f"budget.{kind}: the batch stream ended after {seen} {kind}, short of {tokens}")


def token_stream(lengths: np.ndarray, batch_size: int, seed: int, pool: int, start: int = 0):
    """Per-step record lengths of the training stream of a single-device run (the same
    :class:`~scinum.train.sampler.BucketBatchSampler` the data module uses), from step ``start``."""
    from .sampler import BucketBatchSampler

    for batch in BucketBatchSampler(lengths, batch_size, seed=seed, pool=pool, start=start):
        yield [int(lengths[i]) for i, _ in batch]


def steps_in_stream(amount: int, lengths: np.ndarray, batch_size: int, seed: int, pool: int, kind: str = "tokens") -> int:
    """:func:`steps_for_tokens` of the training stream, in time independent of ``amount``: a pass
    of the sampler holds every record once (``len(lengths)`` samples, ``sum(lengths)`` tokens),
    so the whole passes before ``amount`` is reached are counted, and only the last one walked."""
    from .sampler import BucketBatchSampler

    per_pass = int(len(lengths)) if kind == "samples" else int(np.sum(lengths, dtype=np.int64))
    steps_per_pass = BucketBatchSampler(lengths, batch_size, seed=seed, pool=pool).per_pass
    passes = max(0, (amount - 1) // per_pass) if per_pass > 0 else 0
    rest = amount - passes * per_pass
    return passes * steps_per_pass + steps_for_tokens(
        rest, token_stream(lengths, batch_size, seed, pool, start=passes * steps_per_pass), kind
    )


def resolve_steps(
    budget: dict[str, Any] | None,
    *,
    batch_size: int,
    max_steps: int,
    lengths: np.ndarray | None = None,
    seed: int = RunConfig.seed,
    pool: int = DataConfig.pool,
    accumulate: int = 1,
) -> int:
    """The ``trainer.max_steps`` a budget gives (``max_steps`` itself when ``budget`` is None).
    Tokens need the training records' token ``lengths`` and the sampler's ``seed``/``pool``.
    With gradient accumulation a step takes ``accumulate`` batches."""
    if budget is None:
        return max_steps
    budget = check_budget(budget)
    if "seconds" in budget:
        return int(budget.get("max_steps", 10**9))
    if "samples" in budget and lengths is None:
        return steps_for_samples(int(budget["samples"]), batch_size * accumulate)
    kind = "samples" if "samples" in budget else "tokens"
    if lengths is None:
        raise ConfigError("budget.tokens: needs the training records' token lengths")
    batches = steps_in_stream(int(budget[kind]), lengths, batch_size, seed, pool, kind)
    return max(1, math.ceil(batches / accumulate))


class TimeBudget(L.Callback):
    """Stop training once ``seconds`` of training time have passed (module docstring: what
    counts). ``elapsed`` (s) survives a resume through the checkpoint; ``fraction`` is
    elapsed / seconds, capped at 1 (the LR schedule's clock)."""

    def __init__(self, seconds: float, clock=time.perf_counter):
        self.seconds, self.elapsed, self.clock = float(seconds), 0.0, clock
        self._started: float | None = None
        self._paused = False

    @property
    def fraction(self) -> float:
        return min(1.0, self.elapsed / self.seconds)

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        if self._started is None or self._paused:  # first batch, or after validation/checkpoint:
            self._started, self._paused = self.clock(), False  # the batch was drawn during the pause

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        now = self.clock()
        self.elapsed += now - self._started
        self._started = now  # the next batch's drawing counts from here
        if self.elapsed >= self.seconds:
            trainer.should_stop = True

    def on_validation_start(self, trainer, pl_module) -> None:
        self._paused = True  # validation does not count

    def on_save_checkpoint(self, trainer, pl_module, checkpoint) -> None:
        self._paused = True  # nor writing checkpoints

    def state_dict(self) -> dict[str, float]:
        return {"elapsed": self.elapsed, "seconds": self.seconds}

    def load_state_dict(self, state_dict: dict[str, float]) -> None:
        self.elapsed = float(state_dict["elapsed"])
