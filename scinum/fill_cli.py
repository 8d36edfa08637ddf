"""``scinum fill``: stream JSONL records through a trained model, filling masked numbers.

    scinum fill --ckpt model.ckpt --mask 'description.stepsize' < in.jsonl > out.jsonl

Records are read and written in chunks (memory stays bounded for any stream length), in input
order. Each output line is the filled record, or with ``--with-uncertainty``
``{"record": …, "uncertainty_kind": …, "predictions": {path: {"value": …, …}}}``.
A bad record (malformed JSON, NaN/Infinity, unknown key, mask matching nothing or a non-number,
too long for the model) is reported on stderr with its line number and JSON path; then
``--on-error fail`` (default) stops — on stdout the records before it have been written,
nothing after — and ``--on-error skip`` leaves it out and goes on. The exit status is 1 if any
record failed. ``--output FILE`` is written to a temporary name and renamed only when the run
completes, so a stopped run leaves no output file at all.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tqdm.auto import tqdm

from .errors import RecordError
from .records import dumps, loads


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ckpt", required=True, help="checkpoint written by `scinum fit`")
    parser.add_argument("--mask", action="append", default=[], metavar="PATH",
                        help="field path to fill (wildcards .* and [*]); repeatable. Without it, "
                             "null placeholders at numeric fields are filled")
    parser.add_argument("--input", "-i", help="JSONL input (default: stdin)")
    parser.add_argument("--output", "-o", help="JSONL output (default: stdout)")
    parser.add_argument("--with-uncertainty", action="store_true",
                        help="write {record, uncertainty_kind, predictions} objects")
    parser.add_argument("--on-error", choices=("fail", "skip"), default="fail")
    parser.add_argument("--sequential", action="store_true",
                        help="fill masked numbers one at a time instead of jointly")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--chunk", type=int, default=4096, help="records read per chunk")
    parser.add_argument("--device", default="cpu")


def run(args: argparse.Namespace) -> int:
    from .infer import load
    model = load(args.ckpt, device=args.device)
    src = open(args.input, encoding="utf-8") if args.input else sys.stdin
    name = args.input or "<stdin>"
    if args.output:
        final = Path(args.output)
        tmp = final.with_name(f".{final.name}.tmp{os.getpid()}")
        dst = open(tmp, "w", encoding="utf-8")
    else:
        dst = sys.stdout
    failures, total, stopped = 0, 0, False
    bar = tqdm(desc="fill", unit="record", disable=None, file=sys.stderr, dynamic_ncols=True)
    try:
        chunk: list[tuple[int, str]] = []
        for line_no, text in enumerate(src, start=1):
            if text.strip():
                chunk.append((line_no, text))
            if len(chunk) >= args.chunk:
                n_fail, stopped = _process(model, chunk, name, args, dst)
                failures, total = failures + n_fail, total + len(chunk)
                bar.update(len(chunk))
                chunk = []
                if stopped:
                    break
        if chunk and not stopped:
            n_fail, stopped = _process(model, chunk, name, args, dst)
            failures, total = failures + n_fail, total + len(chunk)
            bar.update(len(chunk))
        dst.flush()
    finally:
        bar.close()
        if args.input:
            src.close()
        if args.output:
            dst.close()
            if stopped:
                tmp.unlink(missing_ok=True)
            else:
                os.replace(tmp, final)
    if failures:
        what = "stopped at the first failed record" if stopped else f"{failures} of {total} records skipped"
        print(f"scinum fill: {what}", file=sys.stderr)
    return 1 if failures else 0


def _process(model, chunk: list[tuple[int, str]], name: str, args: argparse.Namespace, dst) -> tuple[int, bool]:
    """Fill one chunk; returns (failed records, whether to stop)."""
    jobs, lines, failures = [], [], 0
    for line_no, text in chunk:
        try:
            record = loads(text, file=name, line=line_no)
            jobs.append(model.prepare(record, args.mask))
            lines.append(line_no)
        except RecordError as e:
            failures += 1
            print(f"scinum fill: {e.located(file=name, line=line_no)}", file=sys.stderr)
            if args.on_error == "fail":
                break
    stop = failures > 0 and args.on_error == "fail"
    if jobs:
        filled = model.run_jobs(jobs, batch_size=args.batch_size,
                                mode="sequential" if args.sequential else "joint")
        for f, line_no in zip(filled, lines):
            if f.error is not None:
                failures += 1
                print(f"scinum fill: {f.error.located(file=name, line=line_no)}", file=sys.stderr)
                if args.on_error == "fail":
                    return failures, True
                continue
            dst.write(dumps(f.to_dict() if args.with_uncertainty else f.record) + "\n")
    return failures, stop
