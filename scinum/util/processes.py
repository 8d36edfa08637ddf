"""Worker processes that never outlive the process that started them.

Builders and recipes run their work in a pool of spawned processes. If the parent is killed
(``kill -9``, an OOM kill), the workers would be re-parented and go on writing shards or
training; :func:`worker_pool` makes each worker exit when its parent is gone (and a fill's forked
copies, :mod:`scinum.fill.forked`, through :func:`die_with_parent`): on Linux the kernel
sends it SIGKILL (``PR_SET_PDEATHSIG``), elsewhere a watcher thread notices the new parent id
within a second.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import sys
import threading
import time
from concurrent.futures import CancelledError, ProcessPoolExecutor
from typing import Any, Callable

__all__ = ["worker_pool", "die_with_parent"]

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """End this process (a worker) when ``parent`` (the process that started it) dies."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, 9, 0, 0, 0)  # SIGKILL when the parent thread exits
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    if os.getppid() != parent:  # the parent died before the death signal was armed
        os._exit(1)
    threading.Thread(target=watch, daemon=True, name="die-with-parent").start()


#: set in a worker when its pool is stopping: it starts no further task
_STOPPING: Any = None


def _init_worker(parent: int, stopping: Any) -> None:
    global _STOPPING
    _STOPPING = stopping
    die_with_parent(parent)


def _unless_stopping(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    if _STOPPING is not None and _STOPPING.is_set():
        raise CancelledError("the pool is stopping")
    return fn(*args, **kwargs)


class _Pool(ProcessPoolExecutor):
    """:func:`worker_pool`'s executor: leaving its ``with`` block by an exception stops it."""

    def __init__(self, workers: int):
        ctx = multiprocessing.get_context("spawn")
        self._stopping = ctx.Event()
        super().__init__(workers, mp_context=ctx, initializer=_init_worker, initargs=(os.getpid(), self._stopping))

    def submit(self, fn, /, *args, **kwargs):
        return super().submit(_unless_stopping, fn, *args, **kwargs)

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            return super().__exit__(exc_type, exc, tb)
        self._stopping.set()  # a task already handed to a worker's queue is not started
        manager, procs = self._executor_manager_thread, list((self._processes or {}).values())
        self.shutdown(wait=False, cancel_futures=True)
        for proc in procs:
            if proc.is_alive():
                proc.terminate()  # SIGTERM: a training run saves its last checkpoint and stops
        if manager is not None:
            manager.join()  # the running tasks' futures are done (their result or the error)
        return False


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A spawn-context process pool whose workers exit when this process dies. A worker that
    dies makes pending futures raise ``BrokenProcessPool`` (never a hang). Used as a context
    manager, it ends normally by waiting for its tasks; left by an exception (Ctrl-C's
    ``KeyboardInterrupt``, the ``SystemExit`` of SIGTERM or of a run stopped by a signal, an
    error), the tasks not started are cancelled and the running ones sent SIGTERM (a training
    run leaves a resumable checkpoint), so nothing goes on after it."""
    return _Pool(workers)
