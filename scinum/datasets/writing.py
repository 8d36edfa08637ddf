"""Writing a dataset's shards: each stored atomically, by this process or a pool of helpers.

:class:`ShardWorkers` is one set of helper processes for every split of a build (started while
this process already builds, so start-up is off the critical path); work goes out in chunks to
whichever process is free and each shard is assembled in sample order and written by the build's
own process (:class:`scinum.datasets.directory.DatasetWriter` drives it).
"""

from __future__ import annotations

import gzip
import io
import json
import pickle
import threading
from collections import Counter, deque
from concurrent.futures import FIRST_COMPLETED, wait
from pathlib import Path
from typing import Any, Callable, Mapping

from ..util.atomic import write_bytes_atomic, write_text_atomic
from ..errors import DatasetError
from ..util.processes import worker_pool
from ..records.strict import dumps

__all__ = ["ShardWorkers", "SampleFn"]

#: ``make_sample(i) -> (record, stats)``: a picklable callable building sample ``i`` of a split
#: deterministically; ``stats`` counts events such as rejected draws (``{"rejected": 2}``).
SampleFn = Callable[[int], "tuple[dict, Mapping[str, int]]"]


def _shard_name(shard: int, compress: bool) -> str:
    return f"part-{shard:05d}.jsonl" + (".gz" if compress else "")


def _store_shard(split_dir: Path, shard: int, records: list[dict], stats: Mapping[str, int], compress: bool) -> None:
    """Write one shard atomically: its stats sidecar, then the shard (its presence = done)."""
    _store_text(split_dir, shard, "".join(dumps(r) + "\n" for r in records), len(records), stats, compress)


def _store_text(split_dir: Path, shard: int, text: str, count: int, stats: Mapping[str, int], compress: bool) -> None:
    """:func:`_store_shard` of a shard's ``count`` records already serialized (one per line)."""
    data = text.encode("utf-8")
    if compress:
        buf = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as gz:
            gz.write(data)
        data = buf.getvalue()
    build_dir = split_dir.parent / ".build"
    write_text_atomic(build_dir / f"{split_dir.name}.{shard:05d}.stats.json", json.dumps({"count": count, "stats": dict(stats)}))
    write_bytes_atomic(split_dir / _shard_name(shard, compress), data)


def _write_shard(args: tuple) -> tuple[int, int, dict]:
    """Build and atomically write one shard; returns (shard index, n samples, stats)."""
    split_dir, shard, start, stop, make_sample, compress = args
    text, stats = _chunk_text(make_sample, start, stop)
    _store_text(Path(split_dir), shard, text, stop - start, stats, compress)
    return shard, stop - start, dict(stats)


def _chunk_text(make_sample: SampleFn, start: int, stop: int) -> tuple[str, Counter]:
    """Samples ``start..stop-1`` serialized one per line, and their summed stats."""
    stats: Counter = Counter()
    lines = []
    for i in range(start, stop):
        record, sample_stats = make_sample(i)
        stats.update(sample_stats)
        lines.append(dumps(record) + "\n")
    return "".join(lines), stats


#: a helper's sample functions, unpickled once per process (key: the pickle's hash)
_MAKERS: dict[int, SampleFn] = {}


def _helper_chunk(args: tuple) -> tuple[str, Counter]:
    """:func:`_chunk_text` in a helper process; ``args = (key, pickled make_sample, start, stop)``."""
    key, payload, start, stop = args
    make_sample = _MAKERS.get(key)
    if make_sample is None:
        if len(_MAKERS) > 8:
            _MAKERS.clear()
        make_sample = _MAKERS[key] = pickle.loads(payload)
    return _chunk_text(make_sample, start, stop)


def _ready() -> None:
    """A helper's first job: nothing (submitting it starts the helper processes)."""


#: samples per unit of work that :class:`ShardWorkers` hands out (a sample function's
#: ``chunk_size`` attribute replaces it: e.g. the block its draws are vectorised over)
CHUNK = 100


class ShardWorkers:
    """``workers`` processes that build shards: this one and ``workers - 1`` spawned helpers
    (:func:`~scinum.util.processes.worker_pool`: they die with this process). Use as a context
    manager around every :meth:`DatasetWriter.write_split` of a build: the helpers start once
    (an interpreter and the builder's imports, ~0.5 s), and while they start this process
    already builds samples, so their start-up is off the critical path.

    Work goes out in chunks of :data:`CHUNK` samples (aligned to multiples of it) to whichever
    process is free next, so that all end together; a shard is written (atomically, by this
    process) once its chunks are in, byte-identical to one written by a single process."""

    def __init__(self, workers: int):
        if workers < 1:
            raise DatasetError(f"workers must be >= 1, got {workers}")
        self.workers = workers
        self._pool = worker_pool(workers - 1) if workers > 1 else None
        if self._pool is not None:
            self._pool.submit(_ready)  # from this thread: the helpers' death signal follows it

    def __enter__(self) -> "ShardWorkers":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close(cancel=exc[0] is not None)

    def close(self, cancel: bool = False) -> None:
        """Stop the helpers (after their current chunk; ``cancel``: dropping queued ones)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=cancel)
            self._pool = None

    def run(self, jobs: list[tuple], stats: Counter, bar: Any) -> None:
        """Build and write the shards of ``jobs`` (:func:`_write_shard` arguments), adding
        their stats to ``stats`` and their sample counts to ``bar``. Raises what a sample
        raised (``BrokenProcessPool`` if a helper died), after this process's current chunk."""
        units: deque[tuple[int, int, int]] = deque()  # (job, start, stop)
        payloads: dict[int, tuple[int, bytes]] = {}
        for j, (_, _, start, stop, make_sample, _) in enumerate(jobs):
            size = max(1, int(getattr(make_sample, "chunk_size", CHUNK)))
            if self._pool is not None and id(make_sample) not in payloads:
                payload = pickle.dumps(make_sample)  # before this process uses (and caches in) it
                payloads[id(make_sample)] = (hash(payload), payload)
            a = start
            while a < stop:
                b = min(stop, (a // size + 1) * size)
                units.append((j, a, b))
                a = b
        parts: list[dict[int, tuple[str, Counter]]] = [{} for _ in jobs]
        left = [stop - start for _, _, start, stop, _, _ in jobs]
        lock = threading.Lock()

        def take() -> tuple | None:
            with lock:
                return units.popleft() if units else None

        def arrived(unit: tuple, text: str, unit_stats: Counter) -> None:
            j, a, b = unit
            with lock:
                parts[j][a] = (text, unit_stats)
                left[j] -= b - a
                complete = left[j] == 0
            if complete:  # every chunk of the shard is in: write it, in sample order
                split_dir, shard, start, stop, _, compress = jobs[j]
                shard_stats: Counter = Counter()
                for a in sorted(parts[j]):
                    shard_stats.update(parts[j][a][1])
                text = "".join(parts[j][a][0] for a in sorted(parts[j]))
                parts[j] = {}
                _store_text(Path(split_dir), shard, text, stop - start, shard_stats, compress)
                with lock:
                    stats.update(shard_stats)
                    bar.update(stop - start)

        def here() -> None:  # this process's share, in a thread (the main one only waits)
            while (unit := take()) is not None:
                _, a, b = unit
                arrived(unit, *_chunk_text(jobs[unit[0]][4], a, b))

        errors: list[BaseException] = []
        local = threading.Thread(target=_in_thread(here, errors), name="shards-here")
        local.start()
        running: dict = {}
        try:
            while not errors:
                # two chunks in flight per helper (one running, one queued: no idle gap), one
                # near the end (a queued chunk there could keep this process waiting)
                cap = (2 if len(units) > 2 * self.workers else 1) * (self.workers - 1)
                while self._pool is not None and len(running) < cap and (unit := take()) is not None:
                    key, payload = payloads[id(jobs[unit[0]][4])]
                    running[self._pool.submit(_helper_chunk, (key, payload, unit[1], unit[2]))] = unit
                if not running:
                    break
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    arrived(running.pop(fut), *fut.result())
        except BaseException:
            with lock:
                units.clear()  # this process stops after its current chunk
            for fut in running:
                fut.cancel()
            raise
        finally:
            local.join()
        if errors:
            raise errors[0]


def _in_thread(fn: Callable[[], None], errors: list) -> Callable[[], None]:
    """``fn`` for a thread: what it raises goes to ``errors`` (re-raised by the caller)."""

    def run() -> None:
        try:
            fn()
        except BaseException as e:  # noqa: BLE001 - handed to the main thread
            errors.append(e)

    return run
