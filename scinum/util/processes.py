"""Worker processes that never outlive the process that started them.

Builders and recipes run their work in a pool of spawned processes. If the parent is killed
(``kill -9``, an OOM kill), the workers would be re-parented and go on writing shards or
training; :func:`worker_pool` makes each worker exit when its parent is gone: on Linux the kernel
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
from concurrent.futures import ProcessPoolExecutor

__all__ = ["worker_pool"]

_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """Worker initializer: end this process when ``parent`` (the pool's creator) dies."""
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


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A spawn-context process pool whose workers exit when this process dies. A worker that
    dies makes pending futures raise ``BrokenProcessPool`` (never a hang)."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_die_with_parent, initargs=(os.getpid(),))
