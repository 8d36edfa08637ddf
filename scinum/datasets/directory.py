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
import json
import os
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any, Iterator, Mapping

from tqdm.auto import tqdm

from ..errors import DatasetError
from ..util.atomic import write_text_atomic
from ..records.strict import read_jsonl
from .writing import SampleFn, ShardWorkers, _shard_name, _store_shard, _write_shard

__all__ = ["Dataset", "DatasetWriter", "FORMAT", "FORMAT_VERSION", "parse_part", "PART_HELP"]

FORMAT = "scinum-dataset"
FORMAT_VERSION = 1
SPLIT_NAMES = ("train", "val", "test")


#: help text of the builders' ``--part`` flag
PART_HELP = (
    "build only part I of N (0 <= I < N) of the shards, for N machines sharing OUT (e.g. "
    "a SLURM array job: --part $SLURM_ARRAY_TASK_ID/N); then one run with --part finish "
    "verifies every shard and writes the manifest"
)


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
    if split not in SPLIT_NAMES and not (
        isinstance(split, str) and split.startswith("ood_") and re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", split[4:])
    ):
        raise DatasetError(
            f"split name {str(split)[:80]!r} must be one of {SPLIT_NAMES} or "
            "'ood_<name>' (<name>: letters, digits, '_', '-', '.', not a path)"
        )


class DatasetWriter:
    """Writes a dataset directory, resumably. Typical use by a builder::

        w = DatasetWriter(out, builder="planets", version="1", parameters=params, seed=seed)
        w.write_split("train", n_train, make_sample, workers=4)
        ...
        w.finish(scalings={...})

    ``parameters`` must be JSON-able and fully determine the samples (with ``seed``); re-running
    with the same ones resumes, with different ones raises :class:`DatasetError`.
    """

    def __init__(
        self,
        out_dir: str | os.PathLike,
        *,
        builder: str,
        version: str,
        parameters: Mapping[str, Any],
        seed: int,
        shard_size: int = 1000,
        compress: bool = False,
        part: tuple[int, int] | str | None = None,
    ):
        if shard_size < 1:
            raise DatasetError(f"shard_size must be >= 1, got {shard_size}")
        if type(seed) is not int or not 0 <= seed < 2**63:  # numpy's generators take no other
            raise DatasetError(f"{out_dir}: seed must be an integer in [0, 2^63), got {seed!r}")
        if part is not None and part != "finish":
            i, n = part if isinstance(part, tuple) else (None, None)
            if not (isinstance(i, int) and isinstance(n, int) and 0 <= i < n):
                raise DatasetError(f"part must be (i, n) with 0 <= i < n, or 'finish'; got {part!r}")
        self.part = part
        self.out = Path(out_dir)
        self.build_dir = self.out / ".build"
        self.shard_size, self.compress = shard_size, compress
        self.header = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "builder": builder,
            "builder_version": version,
            "seed": seed,
            "parameters": json.loads(json.dumps(parameters)),
            "shard_size": shard_size,
            "compressed": compress,
        }
        self.splits: dict[str, dict] = {}
        manifest = self.out / "manifest.json"
        params_file = self.build_dir / "parameters.json"
        if manifest.exists():
            old = json.loads(manifest.read_text())
            if {k: old.get(k) for k in self.header} != self.header:
                raise DatasetError(f"{self.out} already holds a dataset built with other parameters; choose another directory or delete it")
            self.complete = True
            return
        self.complete = False
        if part == "finish" and not params_file.exists():  # create nothing: there is no build
            raise DatasetError(
                f"{self.out}: no build in progress to finish (no "
                f"{params_file.relative_to(self.out)}): run the parts first, "
                "into this directory"
            )
        if self.out.exists() and any(p.name != ".build" for p in self.out.iterdir()) and not params_file.exists():
            raise DatasetError(f"{self.out} exists, is not empty and is not a scinum build in progress; refusing to write into it")
        if params_file.exists():
            if json.loads(params_file.read_text()) != self.header:
                raise DatasetError(
                    f"{self.out} holds an unfinished build with other parameters; re-run with the same parameters to resume, or delete it"
                )
        else:
            self.build_dir.mkdir(parents=True, exist_ok=True)
            write_text_atomic(params_file, json.dumps(self.header, indent=1))

    def write_split(self, split: str, n: int, make_sample: SampleFn, *, workers: "int | ShardWorkers" = 1, desc: str | None = None) -> dict:
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
        stats: Counter[str] = Counter()
        todo, done, missing = [], 0, []
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
            raise DatasetError(
                f"{self.out}: cannot finish, split {split!r} lacks shard(s) "
                f"{missing[:20]}{' ...' if len(missing) > 20 else ''} of {n_shards}: "
                "run the parts that build them (or run without a part to build "
                "them here)"
            )
        with tqdm(total=n, initial=done, desc=desc or split, unit="sample", dynamic_ncols=True, disable=None) as bar:
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
            with gzip.open(path, "rb") if self.compress else open(path, "rb") as f:
                data = f.read()
        except (OSError, EOFError) as e:
            raise DatasetError(f"{path}: unreadable shard ({e}); delete it and run its part again") from None
        lines = data.count(b"\n")
        if sidecar.get("count") != count or lines != count or not data.endswith(b"\n"):
            raise DatasetError(f"{path}: holds {lines} records, expected {count}; delete it and run its part again")

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

    def write_shard(self, split: str, shard: int, records: list[dict], stats: Mapping[str, int] | None = None) -> None:
        """Write shard ``shard`` of ``split`` (atomically) from ``records``."""
        _store_shard(self.out / split, shard, records, stats or {}, self.compress)

    def close_split(self, split: str, count: int, n_shards: int, stats: Mapping[str, int], **extra: Any) -> dict:
        """Record a written split for the manifest: ``{"count", "shards", "stats", **extra}``."""
        entry = {"count": count, "shards": n_shards, "stats": dict(sorted(stats.items())), **json.loads(json.dumps(extra))}
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
            hint = " (its build did not finish: re-run it to resume)" if (self.path / ".build").exists() else ""
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
