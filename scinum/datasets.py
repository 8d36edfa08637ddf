"""Dataset directories: ``manifest.json`` + ``<split>/part-NNNNN.jsonl[.gz]``.

Builders (planets, ERA5, yours) produce one through :class:`DatasetWriter`, which guarantees:

* sample ``i`` of a split depends only on ``(seed, i)``: shard ``k`` holds samples
  ``[k*shard_size, (k+1)*shard_size)`` whatever the number of worker processes;
* every shard is written under a temporary name and renamed, so a killed build leaves no
  half-written shard, and running the same build again resumes where it stopped and ends
  byte-identical to an uninterrupted build;
* the manifest is written last; its presence means the dataset is complete;
* several machines can build one dataset (``part=(i, n)``: only shards ``k`` with
  ``k % n == i``, into one shared directory, no manifest), then one finishing run
  (``part="finish"``) verifies every shard against its record count and writes the manifest:
  the result is byte-identical to a one-process build (SLURM array jobs: see the builders'
  READMEs).

Readers use :class:`Dataset` (``Dataset(path).records("train")``).
"""
from __future__ import annotations

import gzip
import io
import json
import os
import pickle
import re
import shutil
import threading
from collections import Counter, deque
from concurrent.futures import FIRST_COMPLETED, wait
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from tqdm.auto import tqdm

from .errors import DatasetError
from .atomic import write_bytes_atomic, write_text_atomic
from .processes import worker_pool
from .records import dumps, read_jsonl

__all__ = ["Dataset", "DatasetWriter", "ShardWorkers", "SampleFn", "FORMAT", "FORMAT_VERSION", "parse_part", "PART_HELP"]

FORMAT = "scinum-dataset"
FORMAT_VERSION = 1
SPLIT_NAMES = ("train", "val", "test")

#: ``make_sample(i) -> (record, stats)``: a picklable callable building sample ``i`` of a split
#: deterministically; ``stats`` counts events such as rejected draws (``{"rejected": 2}``).
SampleFn = Callable[[int], "tuple[dict, Mapping[str, int]]"]


#: help text of the builders' ``--part`` flag
PART_HELP = ("build only part I of N (0 <= I < N) of the shards, for N machines sharing OUT (e.g. "
             "a SLURM array job: --part $SLURM_ARRAY_TASK_ID/N); then one run with --part finish "
             "verifies every shard and writes the manifest")


def parse_part(text: str | None) -> tuple[int, int] | str | None:
    """``"I/N"`` -> ``(I, N)``; ``"finish"`` -> ``"finish"``; None -> None (the whole build)."""
    if text is None or text == "finish":
        return text
    i, sep, n = text.partition("/")
    try:
        part = (int(i), int(n))
    except ValueError:
        part = None
    if not sep or part is None or not 0 <= part[0] < part[1]:
        raise DatasetError(f"--part takes I/N with 0 <= I < N (e.g. 0/4), or 'finish'; got {text!r}")
    return part


def _check_split_name(split: str) -> None:
    """A split is a directory of OUT: a name, never a path (``ood_../x`` would write outside)."""
    if split not in SPLIT_NAMES and not (isinstance(split, str) and split.startswith("ood_")
                                         and re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", split[4:])):
        raise DatasetError(f"split name {str(split)[:80]!r} must be one of {SPLIT_NAMES} or "
                           "'ood_<name>' (<name>: letters, digits, '_', '-', '.', not a path)")


def _shard_name(shard: int, compress: bool) -> str:
    return f"part-{shard:05d}.jsonl" + (".gz" if compress else "")


def _store_shard(split_dir: Path, shard: int, records: list[dict], stats: Mapping[str, int],
                 compress: bool) -> None:
    """Write one shard atomically: its stats sidecar, then the shard (its presence = done)."""
    _store_text(split_dir, shard, "".join(dumps(r) + "\n" for r in records), len(records), stats,
                compress)


def _store_text(split_dir: Path, shard: int, text: str, count: int, stats: Mapping[str, int],
                compress: bool) -> None:
    """:func:`_store_shard` of a shard's ``count`` records already serialized (one per line)."""
    data = text.encode("utf-8")
    if compress:
        buf = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as gz:
            gz.write(data)
        data = buf.getvalue()
    build_dir = split_dir.parent / ".build"
    write_text_atomic(build_dir / f"{split_dir.name}.{shard:05d}.stats.json",
                      json.dumps({"count": count, "stats": dict(stats)}))
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
    (:func:`~scinum.processes.worker_pool`: they die with this process). Use as a context
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
        units = deque()  # (job, start, stop)
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


class DatasetWriter:
    """Writes a dataset directory, resumably. Typical use by a builder::

        w = DatasetWriter(out, builder="planets", version="1", parameters=params, seed=seed)
        w.write_split("train", n_train, make_sample, workers=4)
        ...
        w.finish(scalings={...})

    ``parameters`` must be JSON-able and fully determine the samples (with ``seed``); re-running
    with the same ones resumes, with different ones raises :class:`DatasetError`.
    """

    def __init__(self, out_dir: str | os.PathLike, *, builder: str, version: str,
                 parameters: Mapping[str, Any], seed: int, shard_size: int = 1000,
                 compress: bool = False, part: tuple[int, int] | str | None = None):
        if shard_size < 1:
            raise DatasetError(f"shard_size must be >= 1, got {shard_size}")
        if part is not None and part != "finish":
            i, n = part
            if not (isinstance(i, int) and isinstance(n, int) and 0 <= i < n):
                raise DatasetError(f"part must be (i, n) with 0 <= i < n, or 'finish'; got {part!r}")
        self.part = part
        self.out = Path(out_dir)
        self.build_dir = self.out / ".build"
        self.shard_size, self.compress = shard_size, compress
        self.header = {"format": FORMAT, "format_version": FORMAT_VERSION, "builder": builder,
                       "builder_version": version, "seed": seed,
                       "parameters": json.loads(json.dumps(parameters)),
                       "shard_size": shard_size, "compressed": compress}
        self.splits: dict[str, dict] = {}
        manifest = self.out / "manifest.json"
        params_file = self.build_dir / "parameters.json"
        if manifest.exists():
            old = json.loads(manifest.read_text())
            if {k: old.get(k) for k in self.header} != self.header:
                raise DatasetError(f"{self.out} already holds a dataset built with other "
                                   "parameters; choose another directory or delete it")
            self.complete = True
            return
        self.complete = False
        if part == "finish" and not params_file.exists():  # create nothing: there is no build
            raise DatasetError(f"{self.out}: no build in progress to finish (no "
                               f"{params_file.relative_to(self.out)}): run the parts first, "
                               "into this directory")
        if self.out.exists() and any(p.name != ".build" for p in self.out.iterdir()) \
                and not params_file.exists():
            raise DatasetError(f"{self.out} exists, is not empty and is not a scinum build "
                               "in progress; refusing to write into it")
        if params_file.exists():
            if json.loads(params_file.read_text()) != self.header:
                raise DatasetError(f"{self.out} holds an unfinished build with other parameters; "
                                   "re-run with the same parameters to resume, or delete it")
        else:
            self.build_dir.mkdir(parents=True, exist_ok=True)
            write_text_atomic(params_file, json.dumps(self.header, indent=1))

    def write_split(self, split: str, n: int, make_sample: SampleFn, *,
                    workers: "int | ShardWorkers" = 1, desc: str | None = None) -> dict:
        """Write ``n`` samples of ``split``, skipping shards a previous run finished.

        ``workers``: processes building shards (this one included), or a :class:`ShardWorkers`
        that lives across the splits of a build (its processes start once).

        Returns ``{"count": n, "shards": k, "stats": {...}}`` (summed sample stats).
        """
        if n < 0:
            raise DatasetError(f"split {split!r}: sample count must be >= 0, got {n}")
        if not isinstance(workers, ShardWorkers) and workers < 1:
            raise DatasetError(f"workers must be >= 1, got {workers}")
        if self.complete:
            return json.loads((self.out / "manifest.json").read_text())["splits"][split]
        split_dir = self.open_split(split)
        n_shards = -(-n // self.shard_size)
        todo, stats, done, missing = [], Counter(), 0, []
        for k in range(n_shards):
            start, stop = k * self.shard_size, min(n, (k + 1) * self.shard_size)
            finished = self.finished_shard(split, k)
            if finished is not None:
                if self.part == "finish":
                    self._verify(split, k, stop - start, finished)
                stats.update(finished["stats"])
                done += stop - start
            elif self.part == "finish":
                missing.append(k)
            elif self._mine(k):
                todo.append((str(split_dir), k, start, stop, make_sample, self.compress))
        if missing:
            raise DatasetError(f"{self.out}: cannot finish, split {split!r} lacks shard(s) "
                               f"{missing[:20]}{' ...' if len(missing) > 20 else ''} of {n_shards}: "
                               "run the parts that build them (or run without a part to build "
                               "them here)")
        with tqdm(total=n, initial=done, desc=desc or split, unit="sample", dynamic_ncols=True,
                  disable=None) as bar:
            if isinstance(workers, ShardWorkers):
                workers.run(todo, stats, bar)
            elif workers == 1 or len(todo) <= 1:
                for _, count, shard_stats in map(_write_shard, todo):
                    stats.update(shard_stats)
                    bar.update(count)
            else:
                with ShardWorkers(min(workers, len(todo))) as pool:
                    pool.run(todo, stats, bar)
        return self.close_split(split, n, n_shards, stats)

    def _mine(self, shard: int) -> bool:
        """Whether this run builds ``shard`` (every shard, unless it is one part of several)."""
        return not isinstance(self.part, tuple) or shard % self.part[1] == self.part[0]

    def _verify(self, split: str, shard: int, count: int, sidecar: dict) -> None:
        """Raise :class:`DatasetError` unless shard ``shard`` holds ``count`` complete records."""
        path = self.out / split / _shard_name(shard, self.compress)
        try:
            with (gzip.open(path, "rb") if self.compress else open(path, "rb")) as f:
                data = f.read()
        except (OSError, EOFError) as e:
            raise DatasetError(f"{path}: unreadable shard ({e}); delete it and run its part again") from None
        lines = data.count(b"\n")
        if sidecar.get("count") != count or lines != count or not data.endswith(b"\n"):
            raise DatasetError(f"{path}: holds {lines} records, expected {count}; delete it and "
                               "run its part again")

    # Streaming builders (records arrive in order, e.g. read from a file) write shard by shard:
    # open_split, then finished_shard / write_shard for k = 0, 1, ..., then close_split.

    def open_split(self, split: str) -> Path:
        """Create ``split``'s directory (removing temporaries a killed build left in this run's
        shards; those of other parts building at the same time are theirs); returns it."""
        _check_split_name(split)
        split_dir = self.out / split
        split_dir.mkdir(parents=True, exist_ok=True)
        if self.part != "finish":
            for stale in split_dir.glob(".part-*.tmp*"):
                if self._mine(int(stale.name[6:11])):
                    stale.unlink(missing_ok=True)
        return split_dir

    def finished_shard(self, split: str, shard: int) -> dict | None:
        """``{"count", "stats"}`` of shard ``shard`` if a previous run wrote it, else None."""
        sidecar = self.build_dir / f"{split}.{shard:05d}.stats.json"
        if (self.out / split / _shard_name(shard, self.compress)).exists() and sidecar.exists():
            return json.loads(sidecar.read_text())
        return None

    def write_shard(self, split: str, shard: int, records: list[dict],
                    stats: Mapping[str, int] | None = None) -> None:
        """Write shard ``shard`` of ``split`` (atomically) from ``records``."""
        _store_shard(self.out / split, shard, records, stats or {}, self.compress)

    def close_split(self, split: str, count: int, n_shards: int, stats: Mapping[str, int],
                    **extra: Any) -> dict:
        """Record a written split for the manifest: ``{"count", "shards", "stats", **extra}``."""
        entry = {"count": count, "shards": n_shards, "stats": dict(sorted(stats.items())),
                 **json.loads(json.dumps(extra))}
        self.splits[split] = entry
        return entry

    def finish(self, **extra: Any) -> dict | None:
        """Write ``manifest.json`` (header, splits, ``extra`` e.g. scalings) and drop build state.
        One part of a multi-part build writes nothing and returns None (``part="finish"`` does)."""
        if self.complete:
            return json.loads((self.out / "manifest.json").read_text())
        if isinstance(self.part, tuple):
            return None
        manifest = {**self.header, "splits": self.splits, **json.loads(json.dumps(extra))}
        write_text_atomic(self.out / "manifest.json", json.dumps(manifest, indent=1) + "\n")
        shutil.rmtree(self.build_dir, ignore_errors=True)
        self.complete = True
        return manifest


class Dataset:
    """A complete dataset directory, read-only."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        mf = self.path / "manifest.json"
        if not mf.exists():
            hint = " (its build did not finish: re-run it to resume)" if (
                self.path / ".build").exists() else ""
            raise DatasetError(f"{self.path}: no manifest.json, not a complete dataset{hint}")
        try:
            self.manifest = json.loads(mf.read_text())
        except json.JSONDecodeError as e:
            raise DatasetError(f"{mf}: unreadable manifest ({e})") from None
        if self.manifest.get("format") != FORMAT:
            raise DatasetError(f"{mf}: not a {FORMAT} manifest")

    @property
    def splits(self) -> list[str]:
        """Split names present, in manifest order."""
        return list(self.manifest.get("splits", {}))

    def files(self, split: str) -> list[Path]:
        """The shard files of a split, in sample order."""
        if split not in self.manifest.get("splits", {}):
            raise DatasetError(f"{self.path}: no split {split!r} (has {self.splits})")
        return sorted((self.path / split).glob("part-*.jsonl*"))

    def records(self, split: str) -> Iterator[dict]:
        """Iterate the records of a split in order."""
        for _, _, record in self.located_records(split):
            yield record

    def located_records(self, split: str) -> Iterator[tuple[Path, int, dict]]:
        """Iterate ``(file, line, record)``: the location to name in an error about the record."""
        for f in self.files(split):
            for line, record in read_jsonl(f):
                yield f, line, record

    def count(self, split: str) -> int:
        return int(self.manifest["splits"][split]["count"])
