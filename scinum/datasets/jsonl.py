"""``scinum build jsonl``: your own JSONL records (or CSV / Parquet tables) as a dataset directory.

A ``.csv``, ``.csv.gz`` or ``.parquet`` input is a table: each row is a record, each column a
top-level key of the same name (``Solar.R`` is one key, path ``["Solar.R"]``), an empty cell
leaves its key out (:mod:`scinum.datasets.tables`); Parquet needs pyarrow. A CSV is read as
written, never guessed into another shape (:func:`~scinum.datasets.tables.table_rows`): a column
mixing numbers and text, a header that looks like data (``--no-header`` reads a file without
one), an empty or repeated column name, a row of another width, or one column where another
delimiter would give several (``--delimiter``) is refused naming the file, its line (where the
row starts, quoted multi-line cells counted) and the 1-based data row.

Splits come from files (``--train A.jsonl B.jsonl.gz --val V.jsonl --test T.jsonl --ood
late=L.jsonl``) or from one deterministic split of the train files (``--split 0.9,0.05,0.05
--seed S``: record ``i`` goes to a split chosen by the ``i``-th draw of a generator seeded by
``S``, so the same files and seed give the same split on any machine).

* Every line is read by the strict reader (:mod:`scinum.records.strict`): NaN, duplicate keys, bad
  UTF-8... are errors naming ``file:line`` and the JSON path. ``on_error="skip"`` skips such
  lines instead, counts them and keeps the first few locations in the manifest — never silently.
* Records stream through in order; memory holds one shard per split, whatever the input size.
  ``.gz`` inputs are read transparently.
* The manifest records each input's size and sha256, the counts, the skipped lines and, per
  split, every numeric field seen (:func:`scinum.records.paths.field_of`) with its count, min and max.
  ``fields`` (``--fields PATH ...``) declares the fields ``scinum evaluate`` scores by default.
* Resumable and atomic like every builder (:class:`~scinum.datasets.directory.DatasetWriter`): a killed
  build leaves no half-written shard; running it again skips the shards it finished and ends
  byte-identical to an uninterrupted build. Changed input files are refused (their sha256 is
  part of the build's parameters).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import numpy as np
from tqdm.auto import tqdm

from .directory import DatasetWriter
from ..errors import DatasetError, MalformedJSON, RecordError, ValueOutOfRange
from ..records.paths import parse_path
from ..tokens.codec import check_exact
from ..tokens.pieces import NUMBER, pieces
from ..util.provenance import file_sha256
from ..records.strict import loads

__all__ = ["build", "add_arguments", "run"]

#: how many skipped-line locations the manifest keeps (the count is always complete)
KEEP_SKIPPED = 20
_DRAWS = 1 << 16  # uniform draws generated at a time for --split


def _lines(path: Path, table: Mapping[str, Any]) -> Iterator[tuple[int, bytes, int | None]]:
    """``(line number, raw bytes, None)`` of a JSONL or JSONL.gz file (1-based); a table's rows
    as JSON lines with their data row (:func:`_table_lines`)."""
    import gzip
    import zlib

    if path.name.lower().endswith(TABLES):
        yield from _table_lines(path, table)
        return
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as f:
            for line, raw in enumerate(f, start=1):
                yield line, raw, None
    except (OSError, EOFError, zlib.error) as e:  # a truncated or corrupt .gz
        if isinstance(e, FileNotFoundError):
            raise
        raise DatasetError(f"{path}: cannot be read to the end ({e})") from None


#: inputs read as tables (a column is a key; :mod:`scinum.datasets.tables`); anything else is JSONL
TABLES = (".csv", ".csv.gz", ".parquet")


def _table_lines(path: Path, table: Mapping[str, Any]) -> Iterator[tuple[int, bytes, int | None]]:
    """A CSV or Parquet table's rows as JSON lines (an empty cell leaves its key out), with the
    CSV line where each row starts (its header is line 1) or the Parquet row (from 1), and the
    data row (from 1). ``table``: ``header`` and ``delimiter`` of :func:`~.tables.table_rows`."""
    import json

    from .tables import table_rows

    for line, row, record in table_rows(path, **table):
        yield line, json.dumps(record).encode(), row


def _sources(train: Sequence, val: Sequence, test: Sequence, ood: Mapping[str, Sequence] | None) -> dict[str, list[Path]]:
    """Split name -> input files, refusing what would drop or duplicate records without a word:
    two OOD names for one split (``x`` and ``ood_x``), a name that is not a plain name (``../x``
    would write outside OUT), a file given twice (a symlink or hard link to it included)."""
    sources: dict[str, list[Path]] = {"train": [Path(f) for f in train]}
    if val:
        sources["val"] = [Path(f) for f in val]
    if test:
        sources["test"] = [Path(f) for f in test]
    given: dict[str, str] = {}
    for name, files in (ood or {}).items():
        if not isinstance(name, str) or not _NAME.fullmatch(name.removeprefix("ood_")):
            raise DatasetError(
                f"OOD split name {str(name)[:80]!r} is not a plain name (letters, digits, '_', '-', '.', not starting with '.' or '-')"
            )
        key = name if name.startswith("ood_") else f"ood_{name}"
        if key in sources:
            raise DatasetError(f"OOD split names {given[key]!r} and {name!r} both make split {key!r}: give each split one name")
        if not files:
            raise DatasetError(f"OOD split {name!r} has no file")
        given[key] = name
        sources[key] = [Path(f) for f in files]
    seen: dict[tuple[int, int], tuple[str, Path]] = {}
    for split_name, files in sources.items():
        for f in files:
            if not f.is_file():
                raise DatasetError(f"{f}: no such input file")
            st = f.stat()  # follows symlinks: a link and its target are one file
            if (st.st_dev, st.st_ino) in seen:
                other, first = seen[(st.st_dev, st.st_ino)]
                raise DatasetError(
                    f"{first} ({other}) and {f} ({split_name}) are the same file: its records would be read twice; give each file once"
                )
            seen[(st.st_dev, st.st_ino)] = (split_name, f)
    return sources


#: an OOD split name (after ``ood_``): a plain directory name, never a path
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


class _FieldRanges:
    """Count, min and max of every numeric field (``data[*][0]``...) seen in a split."""

    def __init__(self) -> None:
        self.count: Counter = Counter()
        self.lo: dict[str, float] = {}
        self.hi: dict[str, float] = {}

    def add(self, record: Any) -> None:
        kinds, items, fields, _ = pieces(record)
        for kind, item, name in zip(kinds, items, fields):
            if kind != NUMBER:
                continue
            self.count[name] += 1
            v = float(item)
            if name in self.lo:
                self.lo[name] = min(self.lo[name], v)
                self.hi[name] = max(self.hi[name], v)
            else:
                self.lo[name] = self.hi[name] = v

    def to_dict(self) -> dict[str, dict[str, float]]:
        return {f: {"count": self.count[f], "min": self.lo[f], "max": self.hi[f]} for f in sorted(self.count)}


class _SplitOut:
    """One output split being streamed: buffers a shard, writes it unless a previous run did."""

    def __init__(self, writer: DatasetWriter, name: str):
        self.writer, self.name = writer, name
        self.shard_size = writer.shard_size
        writer.open_split(name)
        self.buffer: list[dict] = []
        self.count = self.shards = 0
        self.fields = _FieldRanges()

    def add(self, record: dict) -> None:
        self.fields.add(record)
        self.buffer.append(record)
        self.count += 1
        if len(self.buffer) == self.shard_size:
            self._flush()

    def _flush(self) -> None:
        if self.buffer and self.writer.finished_shard(self.name, self.shards) is None:
            self.writer.write_shard(self.name, self.shards, self.buffer)
        self.shards += bool(self.buffer)
        self.buffer = []

    def close(self) -> dict:
        self._flush()
        return self.writer.close_split(self.name, self.count, self.shards, {}, fields=self.fields.to_dict())


def _check_fractions(split: Sequence[float]) -> tuple[float, float, float]:
    if len(split) != 3 or any(not (f >= 0) for f in split) or abs(sum(split) - 1) > 1e-9:
        raise DatasetError(f"--split needs three fractions >= 0 for train, val, test that sum to 1, got {list(split)}")
    return tuple(float(f) for f in split)  # type: ignore[return-value]


def build(
    out: str | os.PathLike,
    *,
    train: Sequence[str | os.PathLike],
    val: Sequence[str | os.PathLike] = (),
    test: Sequence[str | os.PathLike] = (),
    ood: Mapping[str, Sequence[str | os.PathLike]] | None = None,
    split: Sequence[float] | None = None,
    seed: int = 0,
    on_error: str = "fail",
    fields: Sequence[str] | None = None,
    shard_size: int = 1000,
    compress: bool = False,
    progress: bool = True,
    header: bool = True,
    delimiter: str = ",",
) -> dict:
    """Build a dataset directory from JSONL(.gz) files; returns its manifest.

    ``ood``: split name (``late`` or ``ood_late``) -> files. ``split``: fractions for train, val,
    test drawn from the ``train`` files (then ``val``/``test`` files are not allowed).
    ``on_error``: ``"fail"`` (the first bad line raises, naming file:line and path) or
    ``"skip"`` (bad lines are skipped and counted in the manifest's ``skipped``).
    ``header``, ``delimiter``: how CSV inputs are read (:func:`~.tables.table_rows`: ``header=False``
    for a CSV without a header row, its columns named ``col1``, ``col2``...).

    A build refused for its input (a bad line, a value out of range, an unreadable table) leaves
    nothing it created: the same command with the fixed input starts afresh.
    """
    if on_error not in ("fail", "skip"):
        raise DatasetError(f"on_error must be 'fail' or 'skip', got {on_error!r}")
    if not train:
        raise DatasetError("no --train file given")
    if split is not None:
        fractions = _check_fractions(split)
        if val or test:
            raise DatasetError("--split draws val and test from the train files: give either --split or --val/--test files, not both")
    sources = _sources(train, val, test, ood)
    for p in fields or ():
        parse_path(p)  # a typo is an error now, not at evaluation time
    inputs = {
        split_name: [{"file": str(f), "bytes": f.stat().st_size, "sha256": file_sha256(f)} for f in files]
        for split_name, files in sources.items()
    }
    if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in "\"\r\n":
        raise DatasetError(f"--delimiter takes one character (',', ';', tab as '\\t'...), got {delimiter!r}")
    params: dict[str, Any] = {"inputs": inputs, "split": list(fractions) if split is not None else None, "on_error": on_error}
    table = {"header": bool(header), "delimiter": delimiter}
    if table != {"header": True, "delimiter": ","}:  # how the tables are read (the default left out,
        params["table"] = table  # so directories built before these options resume)
    existed = Path(out).exists()
    fresh = not existed or not any(Path(out).iterdir())
    writer = DatasetWriter(out, builder="jsonl", version="1", parameters=params, seed=seed, shard_size=shard_size, compress=compress)
    if writer.complete:
        manifest = writer.finish()
        assert manifest is not None  # a whole build (no part=): the manifest
        return manifest
    try:
        return _stream(writer, sources, split is not None and fractions, seed, on_error, fields, progress, table)
    except (RecordError, DatasetError):  # a bad line, a value out of range, an unreadable table
        if fresh:  # a bad input, not an interruption: leave nothing behind (an interrupted
            _remove_build(Path(out), existed)  # build stays, to resume)
        raise


def _remove_build(out: Path, existed: bool) -> None:
    """Remove what a refused build wrote into ``out`` (``out`` itself unless it was there, empty, before)."""
    if not existed:
        shutil.rmtree(out, ignore_errors=True)
        return
    for child in out.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


def _stream(
    writer: DatasetWriter,
    sources: dict[str, list[Path]],
    fractions: Any,
    seed: int,
    on_error: str,
    fields: Sequence[str] | None,
    progress: bool,
    table: Mapping[str, Any],
) -> dict:
    """Read every input line once, route each record to its split's shards; finish."""
    skipped = 0
    where: list[str] = []
    outs: dict[str, _SplitOut] = {}
    names = list(sources) if not fractions else ["train", "val", "test"] + [s for s in sources if s != "train"]
    for name in names:
        outs[name] = _SplitOut(writer, name)
    rng = np.random.default_rng(seed)
    draws, d = np.empty(0), 0
    edges = np.cumsum(fractions[:2]) if fractions else None
    with tqdm(desc="jsonl", unit="record", dynamic_ncols=True, disable=None if progress else True) as bar:
        for source, files in sources.items():
            for f in files:
                for line, raw, row in _lines(f, table):
                    try:
                        text = raw.decode("utf-8")
                        if not text.strip():
                            continue
                        record = loads(text, file=str(f), line=line)
                        check_exact(record)
                    except (MalformedJSON, ValueOutOfRange, UnicodeDecodeError) as e:
                        if isinstance(e, UnicodeDecodeError):
                            err: RecordError = MalformedJSON(f"not UTF-8 text ({e.reason} at byte {e.start})", file=str(f), line=line)
                        else:
                            err = e
                        err = err.located(file=str(f), line=line, record=row)
                        if on_error == "fail":
                            raise err from None
                        skipped += 1
                        if len(where) < KEEP_SKIPPED:
                            where.append(str(err))
                        continue
                    target = source
                    if source == "train" and edges is not None:
                        if d == len(draws):
                            draws, d = rng.random(_DRAWS), 0
                        target = ("train", "val", "test")[int(np.searchsorted(edges, draws[d], side="right"))]
                        d += 1
                    outs[target].add(record)
                    bar.update()
    for name, o in outs.items():
        o.close()
    if outs["train"].count == 0:
        raise DatasetError(
            f"no training record: the train files {[str(f) for f in sources['train']]} hold {'only bad lines' if skipped else 'no records'}"
        )
    extra: dict[str, Any] = {"skipped": {"count": skipped, "first": where}}
    if fields:
        extra["evaluation"] = {"fields": list(fields)}
    manifest = writer.finish(**extra)
    assert manifest is not None  # a whole build (no part=): the manifest
    return manifest


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags of ``scinum build jsonl``."""
    parser.add_argument("out", type=Path, help="output dataset directory")
    # repeatable flags: `--train A --train B` is `--train A B` (action="append" keeps both)
    parser.add_argument(
        "--train",
        nargs="+",
        action="append",
        required=True,
        metavar="FILE",
        help="training records (.jsonl or .jsonl.gz, one JSON object per line; or a "
        ".csv/.csv.gz/.parquet table, a column per key) (repeatable)",
    )
    parser.add_argument("--val", nargs="+", action="append", default=None, metavar="FILE", help="validation records (repeatable)")
    parser.add_argument("--test", nargs="+", action="append", default=None, metavar="FILE", help="test records (repeatable)")
    parser.add_argument(
        "--ood",
        nargs="+",
        action="append",
        default=None,
        metavar="NAME=FILE",
        help="an out-of-distribution split ood_NAME from FILE (repeatable)",
    )
    parser.add_argument(
        "--split",
        metavar="TRAIN,VAL,TEST",
        help="split the --train files into train/val/test with these fractions (e.g. 0.9,0.05,0.05), deterministically for a given --seed",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of --split [0]")
    parser.add_argument(
        "--on-error", choices=("fail", "skip"), default="fail", help="a bad line: stop naming file:line:path [fail], or skip and count it"
    )
    parser.add_argument(
        "--fields", nargs="+", action="append", metavar="PATH", help="the fields `scinum evaluate` scores by default (JSON paths)"
    )
    parser.add_argument(
        "--no-header",
        action="store_true",
        help="CSV inputs have no header row: their columns are named col1, col2... "
        "(a header that looks like numbers is refused without it)",
    )
    parser.add_argument(
        "--delimiter", default=",", metavar="CHAR", help="the delimiter of CSV inputs [,] (';', '|', tab as '\\t' or 'tab')"
    )
    parser.add_argument("--shard-size", type=int, default=1000, help="records per shard [1000]")
    parser.add_argument("--compress", action="store_true", help="write .jsonl.gz shards")


def _flat(groups: Sequence[Sequence[str]] | None) -> list[str]:
    """The values of a repeatable ``nargs="+"`` flag, in order (``[[A], [B, C]]`` -> ``[A, B, C]``)."""
    return [item for group in groups or () for item in group]


def run(args: argparse.Namespace) -> int:
    """Entry point of ``scinum build jsonl``."""
    ood: dict[str, list[str]] = {}
    for item in _flat(args.ood):
        name, sep, file = item.partition("=")
        if not sep or not name or not file:
            raise DatasetError(f"--ood takes NAME=FILE, got {item!r}")
        ood.setdefault(name, []).append(file)
    split = None
    if args.split is not None:  # `--split ""` (an unset shell variable) is an error, not "no split"
        try:
            split = [float(x) for x in args.split.split(",")]
        except ValueError:
            raise DatasetError(f"--split takes three fractions like 0.9,0.05,0.05, got {args.split!r}") from None
    fields = _flat(args.fields) or None
    manifest = build(
        args.out,
        train=_flat(args.train),
        val=_flat(args.val),
        test=_flat(args.test),
        ood=ood,
        split=split,
        seed=args.seed,
        on_error=args.on_error,
        fields=fields,
        shard_size=args.shard_size,
        compress=args.compress,
        header=not args.no_header,
        delimiter={"\\t": "\t", "tab": "\t"}.get(args.delimiter, args.delimiter),
    )
    counts = {s: v["count"] for s, v in manifest["splits"].items()}
    skipped = manifest["skipped"]
    print(
        f"jsonl: wrote {args.out} ({counts} records; {len(manifest['splits']['train']['fields'])} numeric fields in train)", file=sys.stderr
    )
    if skipped["count"]:
        print(f"jsonl: skipped {skipped['count']} bad line(s) (listed in the manifest); first: {skipped['first'][0]}", file=sys.stderr)
    return 0
