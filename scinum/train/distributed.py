"""Distributed runs that cannot hang: matched collectives, a collective timeout, stop on signal.

Three rules keep every rank of a run in step (``experiments/training-on-gpus.md``):

* **Every rank enters every collective.** Metrics that a rank may lack (a field hidden in no
  number of its validation batches) are never logged with ``sync_dist``; they are summed as
  ``(sum, count)`` pairs that every rank holds for every metric, zeros when absent, and reduced
  with one ``all_reduce`` at the end of validation (:class:`MetricSums`).
* **A collective has a timeout** (``trainer.collective_timeout_s``): a desynchronised run fails
  with a message naming the cause instead of waiting forever (:func:`make_strategy`,
  :func:`explain_failure`).
* **A signal stops every rank.** SIGTERM/SIGINT (SLURM's ``scancel``, preemption, Ctrl-C) only
  set a flag; at the end of each training step the ranks agree on it with one ``all_reduce``,
  save ``last.ckpt`` and stop together. A rank that cannot reach a step boundary (blocked in a
  collective, where Python signal handlers never run) is ended by a watchdog thread, woken
  through :func:`signal.set_wakeup_fd`, ``grace_s`` seconds after the signal — child ranks
  first (:class:`StopOnSignal`).
"""

from __future__ import annotations

import inspect
import os
import signal
import socket
import sys
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import lightning as L
import torch

__all__ = ["MetricSums", "make_strategy", "StopOnSignal", "explain_failure", "StoppedBySignal", "end_child_ranks"]

#: signals that stop a run gracefully
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class StoppedBySignal(SystemExit):
    """A run stopped by SIGTERM/SIGINT after saving its last checkpoint (exit status 128 + signal)."""

    code: int  # always 128 + signum

    def __init__(self, signum: int, step: int, checkpoint: Path):
        name = signal.Signals(signum).name
        self.signum, self.step, self.checkpoint = signum, step, checkpoint
        super().__init__(128 + signum)
        self.message = f"scinum fit: stopped by {name} at step {step}; {checkpoint} holds the run, the same command resumes it"


def _dist() -> bool:
    return torch.distributed.is_available() and torch.distributed.is_initialized() and torch.distributed.get_world_size() > 1


class MetricSums:
    """Weighted sums of named metrics that reduce across ranks with one collective.

    ``names`` is fixed and the same on every rank, so each rank contributes a full
    ``float64[len(names), 2]`` tensor of ``(sum of value * weight, sum of weight)`` — zeros for
    metrics it never saw — and every rank enters the same single ``all_reduce``.
    """

    def __init__(self, names: list[str]):
        self.names = list(names)
        self.index = {n: i for i, n in enumerate(self.names)}
        self.sums = torch.zeros(len(self.names), 2, dtype=torch.float64)

    def add(self, name: str, value: torch.Tensor | float, weight: float) -> None:
        """Add ``value`` (a mean over ``weight`` items) to metric ``name``; non-finite values
        count in the weight and make the mean non-finite, as they should."""
        i = self.index[name]
        self.sums[i, 0] += float(value) * weight
        self.sums[i, 1] += weight

    def reduce(self, device: torch.device | str = "cpu") -> dict[str, float]:
        """The mean of every metric over all ranks (one ``all_reduce`` when distributed, entered
        by every rank); metrics with zero weight everywhere are left out."""
        sums = self.sums.to(device)
        if _dist():
            torch.distributed.all_reduce(sums)
        sums = sums.cpu()
        return {n: float(sums[i, 0] / sums[i, 1]) for n, i in self.index.items() if sums[i, 1] > 0}


def make_strategy(strategy: Any, world_size: int, timeout_s: float) -> Any:
    """``strategy`` (a Lightning strategy name or object) with its collectives timing out after
    ``timeout_s`` seconds: a named strategy whose class takes ``timeout`` (DDP, FSDP...) is
    built with it; ``"auto"`` with several processes is DDP. Anything else is returned as is."""
    from lightning.pytorch.strategies import DDPStrategy, StrategyRegistry

    if not isinstance(strategy, str) or world_size <= 1:
        return strategy
    timeout = timedelta(seconds=timeout_s)
    if strategy == "auto":
        return DDPStrategy(timeout=timeout)
    if strategy in StrategyRegistry:
        entry = StrategyRegistry[strategy]
        if "timeout" in inspect.signature(entry["strategy"]).parameters:
            return entry["strategy"](**{**entry["init_params"], "timeout": timeout})
    return strategy


def explain_failure(error: BaseException, timeout_s: float) -> str | None:
    """A one-line explanation of a distributed failure (a collective that timed out, a peer
    rank that died), or None when ``error`` is not one."""
    text = str(error)
    rank = os.environ.get("RANK", os.environ.get("LOCAL_RANK", "0"))
    if "timed out" in text.lower() or "timeout" in text.lower():
        return (
            f"scinum fit: rank {rank}: a collective operation did not complete within "
            f"{timeout_s:g} s (trainer.collective_timeout_s): the ranks are out of step — one "
            f"is waiting in an operation the others never entered, or a rank is stuck or "
            f"gone. First line of the error: {text.splitlines()[0][:300] if text else type(error).__name__}"
        )
    if any(s in text for s in ("Connection closed by peer", "Connection reset by peer", "Broken pipe")):
        return f"scinum fit: rank {rank}: another rank of the run has exited (its own error, a signal or a kill); see its message above"
    return None


def child_ranks(trainer: L.Trainer | None) -> list:
    """The processes of the other ranks that this (launching) process started, as
    :class:`subprocess.Popen` objects; empty in a child rank or a one-process run."""
    launcher = getattr(getattr(trainer, "strategy", None), "launcher", None)
    return list(getattr(launcher, "procs", None) or [])


def end_child_ranks(trainer: L.Trainer | None) -> None:
    """Kill the child ranks (a failed or stopped run must not leave them waiting in a
    collective until its timeout)."""
    for p in child_ranks(trainer):
        try:
            p.kill()
        except OSError:
            pass


class StopOnSignal(L.Callback):
    """Stop every rank of a run at one training step on SIGTERM/SIGINT, leaving a resumable
    ``last_ckpt``; end ranks that cannot reach a step boundary after ``grace_s`` seconds.

    Installed at ``on_train_start`` (after Lightning's own handlers, which it replaces: those
    broadcast inside the signal handler, a collective no other rank is in) and removed at
    ``teardown``. On the launching rank the signal is forwarded to the child ranks.
    """

    def __init__(self, last_ckpt: Path, grace_s: float = 20.0):
        self.last_ckpt, self.grace_s = Path(last_ckpt), float(grace_s)
        self.signum: int | None = None
        self.stopped_at: int | None = None
        self._previous: dict[int, Any] = {}
        self._wakeup: tuple[socket.socket, socket.socket] | None = None
        self._old_fd = -1
        self._done = threading.Event()
        self._trainer: L.Trainer | None = None

    # --- installing and removing -------------------------------------------------------
    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        self._trainer = trainer
        for s in STOP_SIGNALS:
            self._previous[s] = signal.signal(s, self._on_signal)
        r, w = socket.socketpair()
        r.setblocking(True)
        w.setblocking(False)
        self._wakeup = (r, w)
        self._old_fd = signal.set_wakeup_fd(w.fileno(), warn_on_full_buffer=False)
        threading.Thread(target=self._watch, args=(r,), daemon=True, name="scinum-stop-watchdog").start()

    def teardown(self, trainer: L.Trainer, pl_module: L.LightningModule, stage: str) -> None:
        self.release()

    def release(self) -> None:
        """Restore the previous handlers and stop the watchdog (idempotent)."""
        self._done.set()
        if self._wakeup is None:
            return
        signal.set_wakeup_fd(self._old_fd)
        for s, h in self._previous.items():
            # only where ours is still installed: Lightning's teardown, which runs before the
            # callbacks' and restores the handlers from before the fit, has replaced it (putting
            # Lightning's back would keep its handler, and through it the trainer, data and
            # model, alive for the rest of the process)
            if signal.getsignal(s) == self._on_signal:
                signal.signal(s, h if h is not None else signal.SIG_DFL)
        self._previous = {}
        r, w = self._wakeup
        self._wakeup = None
        try:
            w.send(b"\0")  # wake the watchdog so it sees _done and ends
        except OSError:
            pass
        w.close()

    # --- the signal ----------------------------------------------------------------------
    def _on_signal(self, signum: int, frame: Any) -> None:
        """Python-level handler (runs only when the main thread is in the interpreter)."""
        if self.signum is None:
            self.signum = signum

    def _watch(self, r: socket.socket) -> None:
        """The watchdog: woken by the C-level signal handler even while the main thread is
        blocked in native code; forwards the signal to child ranks and, if the run has not
        ended ``grace_s`` seconds later, kills the child ranks and exits."""
        try:
            while True:
                data = r.recv(64)
                if self._done.is_set() or not data:
                    return
                signums = [b for b in data if b in {int(s) for s in STOP_SIGNALS}]
                if signums:
                    break
        except OSError:
            return
        signum = signums[0]
        if self.signum is None:
            self.signum = signum
        for p in self._children():
            try:
                p.send_signal(signum)
            except OSError:
                pass
        if self._done.wait(self.grace_s):
            r.close()
            return
        print(
            f"scinum fit: no step boundary reached {self.grace_s:g} s after "
            f"{signal.Signals(signum).name} (blocked in a collective or a long step): ending every "
            f"rank now; {self.last_ckpt} is the last checkpoint written",
            file=sys.stderr,
            flush=True,
        )
        end_child_ranks(self._trainer)
        os._exit(128 + signum)

    def _children(self) -> list:
        return child_ranks(self._trainer)

    # --- the agreement at each step -------------------------------------------------------
    def on_train_batch_end(self, trainer: L.Trainer, pl_module: L.LightningModule, outputs: Any, batch: Any, batch_idx: int) -> None:
        flag = torch.tensor([self.signum or 0], dtype=torch.int64, device=pl_module.device)
        if _dist():
            torch.distributed.all_reduce(flag, op=torch.distributed.ReduceOp.MAX)
        if int(flag) == 0:
            return
        if self.signum is None:
            self.signum = int(flag)
        trainer.save_checkpoint(self.last_ckpt, weights_only=False)
        self.stopped_at = trainer.global_step
        trainer.should_stop = True

    def raise_if_stopped(self) -> None:
        """After ``trainer.fit``: raise :class:`StoppedBySignal` if the run stopped on a signal."""
        if self.stopped_at is not None:
            assert self.signum is not None  # set before stopped_at
            raise StoppedBySignal(self.signum, self.stopped_at, self.last_ckpt)
