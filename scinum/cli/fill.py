"""``scinum fill``: stream JSONL records through a trained model, filling masked numbers.

    scinum fill --ckpt model.ckpt --mask 'description.stepsize' < in.jsonl > out.jsonl

Records are read and written in chunks (memory stays bounded for any stream length), in input
order. On Linux, a chunk of about 2,000 records or more (at the default batch size) is parsed,
prepared and filled by this process and forked copies of it, each taking slices of lines in
turn (:mod:`scinum.fill.forked`); smaller chunks, and other systems, fill on threads. Each
output line is the filled record, or with ``--with-uncertainty``
``{"record": …, "uncertainty_kind": …, "predictions": {path: {"value": …, …}}}`` (plus
``"outside_training_range"`` where inputs or predictions leave their field's training range;
a count per field of those is printed on stderr at the end, :mod:`scinum.fill.extrapolation`).
A bad record (malformed JSON, NaN/Infinity, unknown key, mask matching nothing or a non-number,
too long for the model) is reported on stderr with its line number and JSON path; then
``--on-error fail`` (default) stops — on stdout the records before it have been written,
nothing after — and ``--on-error skip`` leaves it out and goes on. The exit status is 1 if any
record failed. ``--output FILE`` is written to a temporary name and renamed only when the run
completes, so a stopped run (a failed record under ``--on-error fail``, Ctrl-C, SIGTERM, a full
disk) leaves no output file and no temporary file; a link is written through (its target is
replaced, the link stays), and a device or pipe (``-o /dev/stdout``) is streamed to. A line longer than ``--max-record-bytes`` is
a bad record, found without reading it whole.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Iterator, TextIO

from tqdm.auto import tqdm

from ..util.atomic import atomic_path
from ..errors import MalformedJSON, RecordError, ScinumError, VocabularyError
from ..fill.extrapolation import Tally
from ..records.strict import dumps, loads


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ckpt", required=True, help="a checkpoint written by `scinum fit`, or an export directory")
    parser.add_argument(
        "--mask",
        action="append",
        default=[],
        metavar="PATH",
        help="field path to fill (wildcards .* and [*]); repeatable. Without it, null placeholders at numeric fields are filled",
    )
    parser.add_argument("--input", "-i", help="JSONL input (default: stdin)")
    parser.add_argument("--output", "-o", help="JSONL output (default: stdout)")
    parser.add_argument("--with-uncertainty", action="store_true", help="write {record, uncertainty_kind, predictions} objects")
    parser.add_argument("--on-error", choices=("fail", "skip"), default="fail", help="stop at a bad record, or report and skip it [fail]")
    parser.add_argument("--sequential", action="store_true", help="fill masked numbers one at a time instead of jointly")
    parser.add_argument("--batch-size", type=int, default=256, help="records per batch [256]")
    parser.add_argument("--chunk", type=int, default=4096, help="records read per chunk [4096]")
    parser.add_argument("--device", default="cpu", help="where the model runs: cpu, cuda, ... [cpu]")
    parser.add_argument(
        "--max-record-bytes",
        type=int,
        default=16 << 20,
        metavar="N",
        help="longest input line accepted, in characters (default 16 Mi); a longer record is reported like any bad record",
    )


def run(args: argparse.Namespace) -> int:
    from ..fill.model import load

    if args.output and not Path(args.output).resolve().parent.is_dir():
        raise ScinumError(f"--output {args.output}: directory {Path(args.output).resolve().parent} does not exist")
    for flag in ("max_record_bytes", "batch_size", "chunk"):
        if getattr(args, flag) <= 0:
            raise ScinumError(f"--{flag.replace('_', '-')} must be > 0, got {getattr(args, flag)}")
    model = load(args.ckpt, device=args.device)
    name = args.input or "<stdin>"
    try:  # bytes that are not UTF-8 reach _process as lone surrogates: a per-record error
        src = open(args.input, encoding="utf-8", errors="surrogateescape") if args.input else sys.stdin
    except OSError as e:
        raise ScinumError(f"--input {args.input}: {e.strerror}") from None
    if src is sys.stdin and getattr(src, "errors", None) == "strict" and hasattr(src, "reconfigure"):
        src.reconfigure(errors="surrogateescape")
    try:
        with ExitStack() as stack:
            if args.input:
                stack.enter_context(src)
            if args.output:  # a temporary name, renamed only when every record is through
                tmp = stack.enter_context(atomic_path(args.output))
                dst: TextIO = stack.enter_context(open(tmp, "w", encoding="utf-8"))
            else:
                dst = sys.stdout
            tally = Tally(model.ranges)
            failures, total, stopped = _stream(model, src, name, args, dst, tally)
            dst.flush()
            if tally:
                print(f"scinum fill: {tally.summary()}", file=sys.stderr)
            if stopped and args.output:
                raise _Stopped  # leaves no output file: the run did not complete
    except _Stopped:
        pass
    except OSError as e:
        if isinstance(e, BrokenPipeError):
            raise
        where = args.output or "<stdout>"
        raise ScinumError(f"{where}: cannot write ({e.strerror}); nothing was published") from None
    if failures:
        what = "stopped at the first failed record" if stopped else f"{failures} of {total} records skipped"
        print(f"scinum fill: {what}", file=sys.stderr)
    return 1 if failures else 0


class _Stopped(Exception):
    """``--on-error fail`` stopped the run: the temporary output is discarded."""


def _stream(model, src, name: str, args: argparse.Namespace, dst, tally: Tally) -> tuple[int, int, bool]:
    """Fill ``src`` into ``dst`` chunk by chunk; returns (failed, total, stopped)."""
    failures, total, stopped = 0, 0, False
    with tqdm(desc="fill", unit="record", disable=None, file=sys.stderr, dynamic_ncols=True) as bar:
        chunk: list[tuple[int, str]] = []
        for line_no, text in enumerate(_lines(src, args.max_record_bytes), start=1):
            if text.strip():
                chunk.append((line_no, text))
            if len(chunk) >= args.chunk:
                n_fail, stopped = _process(model, chunk, name, args, dst, tally)
                failures, total = failures + n_fail, total + len(chunk)
                bar.update(len(chunk))
                chunk = []
                if stopped:
                    return failures, total, stopped
        if chunk:
            n_fail, stopped = _process(model, chunk, name, args, dst, tally)
            failures, total = failures + n_fail, total + len(chunk)
            bar.update(len(chunk))
    return failures, total, stopped


def _lines(src, limit: int) -> Iterator[str]:
    """The lines of ``src``; a line longer than ``limit`` bytes is read no further than that and
    replaced by a marker that :func:`_process` reports (memory stays bounded)."""
    while True:
        text = src.readline(limit + 1)
        if not text:
            return
        if len(text) > limit and not text.endswith("\n"):
            while (rest := src.readline(1 << 20)) and not rest.endswith("\n"):
                pass  # skip the rest of the oversized line
            yield _TOO_LONG
        else:
            yield text


def _check_utf8(text: str) -> None:
    """Raise :class:`RecordError` if ``text`` holds bytes that were not UTF-8 (read with
    ``surrogateescape``, they are lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        byte = ord(text[e.start]) - 0xDC00 if 0xDC80 <= ord(text[e.start]) <= 0xDCFF else None
        what = f"byte 0x{byte:02x}" if byte is not None else "a lone surrogate"
        raise MalformedJSON(f"not UTF-8 text ({what} at column {e.start + 1})") from None


#: stands for a line over ``--max-record-bytes`` (never valid JSON, so never a record)
_TOO_LONG = "\x00too-long"


def _explained(e: RecordError, args: argparse.Namespace, name: str, line_no: int) -> str:
    """The error located at its record; one the checkpoint's vocabulary causes names the
    checkpoint (the record may be fine for another model)."""
    text = str(e.located(file=name, line=line_no))
    if isinstance(e, VocabularyError):
        text += f" (of checkpoint {args.ckpt}: its model never saw it in training)"
    return text


def _process(model, chunk: list[tuple[int, str]], name: str, args: argparse.Namespace, dst, tally: Tally) -> tuple[int, bool]:
    """Fill one chunk; returns (failed records, whether to stop). Its lines are read, prepared,
    filled and written out in slices of ``batch_size / threads`` lines, each on one thread, by
    this process and forked copies of it when the chunk makes :data:`~scinum.fill.model.FORK_MIN_SLICES`
    slices or more (as :meth:`~scinum.fill.model.Model.predict_many` cuts and predicts its
    slices), else here, predicting on the threads. The records are
    then written in line order: under ``--on-error fail`` up to the first that failed."""
    from ..fill.forked import forked_slices

    threads, size, fork = model.slicing(args.batch_size, len(chunk))
    if fork:
        slices = -(-len(chunk) // size)
        done = forked_slices(lambda k: _fill_lines(model, chunk[k * size : (k + 1) * size], name, args, size), slices, threads)
    else:
        done = _fill_lines(model, chunk, name, args, args.batch_size)
    failures = 0
    for text, error, outside in done:
        if error is not None:
            failures += 1
            print(f"scinum fill: {error}", file=sys.stderr)
            if args.on_error == "fail":
                return failures, True
            continue
        tally.add(outside)
        dst.write(text)
    return failures, False


def _fill_lines(model, lines: list[tuple[int, str]], name: str, args: argparse.Namespace, batch_size: int) -> list[tuple]:
    """Each line read, prepared and filled: ``(output line, None, outside)`` or ``(None, the
    error located at its line, None)``, in line order (plain values: they pickle)."""
    out: list[tuple] = [()] * len(lines)
    jobs, where = [], []
    for i, (line_no, text) in enumerate(lines):
        try:
            if text is _TOO_LONG:
                raise RecordError(f"record longer than --max-record-bytes {args.max_record_bytes}")
            if not text.isascii():
                _check_utf8(text)
            jobs.append(model.prepare(loads(text, file=name, line=line_no), args.mask))
            where.append(i)
        except RecordError as e:
            out[i] = (None, _explained(e, args, name, line_no), None)
    if jobs:
        filled = model.run_jobs(jobs, batch_size=batch_size, mode="sequential" if args.sequential else "joint")
        for i, f in zip(where, filled):
            if f.error is not None:
                out[i] = (None, _explained(f.error, args, name, lines[i][0]), None)
            else:
                out[i] = (dumps(f.to_dict() if args.with_uncertainty else f.record) + "\n", None, f.outside)
    return out
