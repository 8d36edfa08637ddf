"""Slices of a fill shared between this process and forked copies of it.

Preparing a record and the Python around each of torch's operations hold the GIL, so two
threads of one process filled 1.2–1.5× one thread's records where two processes filled 1.9×
(experiments/fill-throughput/contention.py). :func:`forked_slices` runs numbered slices of work
on this process and ``workers - 1`` copies made with ``fork``: each copy starts with this
process's memory as it is (the model, the records; nothing is pickled on the way in) and sends
its results back pickled when no slice is left.

``fork`` is what torch's own data loader uses on Linux; elsewhere (macOS, Windows) a copy would
start afresh and load everything again, so :data:`CAN_FORK` is False there and fills stay on
threads (:func:`scinum.fill.batching.batch_threads`).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import multiprocessing
import os
import pickle
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Generic, Iterator, TypeVar

import torch

from ..errors import ScinumError
from ..util.processes import die_with_parent
from .batching import one_thread

__all__ = ["CAN_FORK", "can_fork", "forked_slices"]

#: whether the system lets fills run on forked copies of a process (Linux)
CAN_FORK = sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def can_fork() -> bool:
    """Whether this process may fill on forked copies: the system forks (:data:`CAN_FORK`) and
    this process is not a daemonic one (``multiprocessing.Pool``'s workers are), which may have
    no children."""
    return CAN_FORK and not multiprocessing.current_process().daemon


T = TypeVar("T")
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt's parameters (glibc's malloc.h)


class _Slices(Generic[T]):
    """Slice numbers 0..n-1 handed out in order to whichever process asks (a counter in shared
    memory), and the count of items finished in every process."""

    def __init__(self, ctx: Any, work: Callable[[int], list[T]], n: int):
        self.work, self.n = work, n
        self.lock = ctx.Lock()
        self.next, self.finished = ctx.RawValue("l", 0), ctx.RawValue("l", 0)

    def claim(self) -> int | None:
        with self.lock:
            k = self.next.value
            if k >= self.n:
                return None
            self.next.value = k + 1
            return k

    def stop(self) -> None:
        """No slice starts after this (those already taken finish)."""
        with self.lock:
            self.next.value = self.n

    def run(self, results: dict[int, Any], after: Callable[[], None] = lambda: None) -> None:
        """Take slices until none is left or one raised: ``results[k]`` is its list, or what it
        raised (then every process stops taking slices); ``after()`` each finished slice."""
        while (k := self.claim()) is not None:
            try:
                part = self.work(k)
            except BaseException as e:  # noqa: BLE001 - raised by forked_slices in slice order
                results[k] = e
                self.stop()
                return
            results[k] = part
            with self.lock:
                self.finished.value += len(part)
            after()


def forked_slices(work: Callable[[int], list[T]], n: int, workers: int, progress: Callable[[int], None] = lambda done: None) -> list[T]:
    """``work(0) + work(1) + ... + work(n - 1)``, computed by this process and ``workers - 1``
    forked copies, each on one torch thread, each taking the next slice number in turn.
    ``progress(done)`` is called here with the items finished so far by every process.

    Errors: when ``work(k)`` raises, no slice after ``k`` starts, the slices before it finish and
    the error of the first slice that raised is raised here (as a loop over the slices in order
    would raise it). A copy that ends without sending its results (killed) leaves its slices to
    this process, with a ``RuntimeWarning`` naming its exit code. Interrupted here
    (KeyboardInterrupt), the copies are ended at once; they are reaped whatever happens, and die
    with this process."""
    if workers < 2 or n < 2:
        with one_thread():
            return [x for k in range(n) for x in work(k)]
    if not CAN_FORK:
        raise ScinumError(f"filling on worker processes needs fork, which {sys.platform} does not offer; fill on threads instead")
    if not can_fork():
        raise ScinumError(
            "filling on worker processes: this is a daemonic process (a multiprocessing.Pool worker?), "
            "which may start none; fill on threads instead"
        )
    ctx = multiprocessing.get_context("fork")
    slices = _Slices(ctx, work, n)
    results: dict[int, Any] = {}
    procs, conns = [], []
    try:
        with _quiet_fork():
            sys.stdout.flush(), sys.stderr.flush()  # a copy must not write this process's buffered output again
            for _ in range(workers - 1):
                recv, send = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_child, args=(slices, send, os.getpid()), daemon=True)
                proc.start()
                send.close()  # the copy's exit now reads as the end of its pipe
                procs.append(proc)
                conns.append(recv)
        # this process's share runs on a thread of its own: a thread's malloc arena keeps its
        # pages where the main thread's heap, shared with the copies, faulted them in again and
        # again (experiments/fill-throughput)
        with one_thread(), ThreadPoolExecutor(1, thread_name_prefix="scinum-fill") as pool:
            share = pool.submit(slices.run, results, lambda: progress(slices.finished.value))
            try:
                share.result()
            except BaseException:  # interrupted while waiting: the thread stops after its slice
                slices.stop()
                raise
        for proc, conn in zip(procs, conns):
            with conn:
                try:
                    results.update(pickle.loads(conn.recv_bytes()))
                except EOFError:
                    proc.join()
                    warnings.warn(
                        f"a fill worker process ended without its results (exit code {proc.exitcode}); this process fills its slices",
                        RuntimeWarning,
                        stacklevel=2,
                    )
    finally:
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
            proc.join()
    errors = sorted((k, v) for k, v in results.items() if isinstance(v, BaseException))
    if errors:
        raise errors[0][1]
    missing = [k for k in range(n) if k not in results]  # taken by a copy that did not report
    if missing:
        with one_thread():
            for k in missing:
                results[k] = work(k)
    progress(sum(len(results[k]) for k in range(n)))
    return [x for k in range(n) for x in results[k]]


def _child(slices: _Slices, send: Any, parent: int) -> None:
    """A forked copy: slices on one torch thread, then every result (or error) sent at once
    (sending as it goes would block on the pipe while this process is busy with its own slices)."""
    die_with_parent(parent)
    torch.set_num_threads(1)
    _steady_malloc()
    results: dict[int, Any] = {}
    slices.run(results)
    try:
        data = pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # an error that does not pickle goes back as its text
        text = {k: ScinumError(f"{type(v).__name__}: {v}") if isinstance(v, BaseException) else v for k, v in results.items()}
        data = pickle.dumps(text, protocol=pickle.HIGHEST_PROTOCOL)
    send.send_bytes(data)
    send.close()


def _steady_malloc() -> None:
    """glibc's malloc, as it is by default, hands the main heap's free top back to the system and
    takes it again batch after batch: each page taken again is a fault, about 50 a record in a
    forked copy (experiments/fill-throughput). The copy lives for one fill: its heap may stay."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, 64 << 20)
        libc.mallopt(_M_TRIM_THRESHOLD, 1 << 30)
    except (OSError, AttributeError):  # not glibc: its malloc as it is
        pass


@contextlib.contextmanager
def _quiet_fork() -> Iterator[None]:
    """Python 3.12+ warns at a fork of a process with threads (torch's pool has them); the copies
    run torch on one thread and touch nothing those threads hold."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*use of fork\(\) may lead to deadlocks", category=DeprecationWarning)
        yield
