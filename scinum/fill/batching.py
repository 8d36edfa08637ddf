"""How :class:`scinum.fill.model.Model` spreads prediction over the CPU: sequences cut into batches
of similar length and a cache-sized token count (:func:`length_batches`), whole batches run on one
intra-op thread each (:func:`batch_threads`; work of one batch on the calling thread, as one of
those threads would run it: :func:`one_thread`), the garbage collector paused meanwhile
(:func:`no_gc`)."""

from __future__ import annotations

import contextlib
import gc
from concurrent.futures import ThreadPoolExecutor
from typing import Iterator

import torch

__all__ = ["length_batches", "batch_threads", "one_thread", "no_gc"]


#: a batch is cut where the next (longer) sequence would make padding more than this share of
#: its tokens, once it holds at least :data:`_MIN_CUT` sequences
_PAD_SHARE, _MIN_CUT = 0.1, 8
#: and where it would hold more than this many (padded) tokens: a forward pass whose activations
#: stay in the CPU's caches costs less per record than one over a batch ten times the size
#: (benchmarks/fill_throughput.py)
MAX_TOKENS = 4096


def length_batches(order: list[int], lengths: list[int], size: int, max_tokens: int | None = None) -> list[list[int]]:
    """Sequence indices ``order`` (ascending length) cut into batches of at most ``size``,
    each also ending where the next sequence would pad it by more than :data:`_PAD_SHARE` or
    make it longer than ``max_tokens`` padded tokens (a sequence longer than that is a batch
    of its own; None: :data:`MAX_TOKENS`)."""
    max_tokens = MAX_TOKENS if max_tokens is None else max_tokens
    groups: list[list[int]] = []
    cur: list[int] = []
    tokens = 0
    for i in order:
        n = lengths[i]
        if cur and (
            len(cur) >= size
            or n * (len(cur) + 1) > max_tokens
            or (len(cur) >= _MIN_CUT and n * (len(cur) + 1) > (1 + _PAD_SHARE) * (tokens + n))
        ):
            groups.append(cur)
            cur, tokens = [], 0
        cur.append(i)
        tokens += n
    if cur:
        groups.append(cur)
    return groups


@contextlib.contextmanager
def no_gc() -> Iterator[None]:
    """Python's cyclic garbage collector paused (if it was running), restarted on exit. Preparing
    records makes many small containers, each allocation counting towards a collection that walks
    every container alive (the records and jobs of the whole call): paused, preparing took about
    half the time (benchmarks/fill_throughput.py). Reference counting still frees everything
    that is not in a cycle; cycles wait for the next collection after the call."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """torch on one intra-op thread in the calling thread, as on each thread of
    :func:`batch_threads` (so a batch gives the same floats either way); the setting is restored
    on exit. For work that is one batch, whose pool of threads would cost more than it saves
    (experiments/fill-throughput)."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(n)


@contextlib.contextmanager
def batch_threads(device: torch.device) -> Iterator[tuple[ThreadPoolExecutor | None, int]]:
    """``(pool, n)``: n = ``torch.get_num_threads()`` threads that each run whole batches on one
    intra-op thread (None, 1 when n is 1 or the model is not on the CPU): small models use
    several cores better so than by splitting each matrix product (and a core taken by another
    process stalls one batch, not every operation). The thread setting is restored on exit."""
    n = torch.get_num_threads()
    if n <= 1 or device.type != "cpu":
        yield None, 1
        return
    torch.set_num_threads(1)
    try:
        with ThreadPoolExecutor(n, thread_name_prefix="scinum-fill", initializer=torch.set_num_threads, initargs=(1,)) as pool:
            yield pool, n
    finally:
        torch.set_num_threads(n)
