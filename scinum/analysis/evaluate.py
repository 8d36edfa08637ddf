"""Evaluate a trained model on a dataset: in-distribution vs out-of-distribution metrics.

For each split (``test`` and every ``ood_*`` by default) and each field mask (default: the
fields the dataset's builder declares in its manifest, ``evaluation.fields``), every
record gets that one field masked and predicted (all its numbers jointly, one forward pass),
and the predictions are scored with :func:`scinum.analysis.metrics.summarize`.

A results directory (what ``scinum plot`` reads) holds:

* ``table.csv`` / ``table.md`` — one row per (model, field, split) with the metrics
  (``subset`` ``all``), and for a field whose training range the builder declares
  (``evaluation.train_ranges``) two more rows where a split has true values both inside and
  outside it: ``interp`` (inside) and ``extrap`` (outside); ``kind`` says what made a row:
  ``model`` (scinum's), or — ``scinum evaluate`` adds them unless ``--no-baselines`` — the
  standard references of :mod:`scinum.analysis.baselines` (``regressor``, ``reference``,
  ``oracle``);
* ``predictions.csv`` — one row per predicted number: ``model, encoding, head, field, split,
  record, path, true, pred`` (+ the columns the model's head declares,
  :attr:`scinum.heads.HeadOutputs.columns`: ``mean, std, lo68, hi68, lo95, hi95, mixture`` for
  the mixture head);
  ``pred`` is NaN where a text encoding's tokens did not parse (the ``unparseable`` column);
* ``train_values.json`` — the distinct training values of each field (≤ 200, for plots);
* ``meta.json`` — dataset, builder, units, which field each OOD split is about and ``heads``:
  each model's head declaration (:meth:`scinum.heads.HeadOutputs.to_dict`), which
  :mod:`scinum.analysis.plots` reads.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ..datasets.directory import Dataset
from ..errors import DatasetError, RecordError, ScinumError
from ..records.paths import get, select
from ..util.atomic import atomic_files
from ..heads import model_label
from .metrics import summarize
from .scoring import default_fields, physical_mse, subsets

__all__ = ["evaluate", "train_values", "write_results", "results_meta", "head_declarations"]


def head_declarations(predictions: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """``{model: HeadOutputs dict}`` for the models of a ``predictions.csv`` frame whose head
    kind is registered here (what ``meta.json`` records as ``heads``)."""
    from ..heads import lookup

    out: dict[str, dict[str, Any]] = {}
    if predictions.empty or "head" not in predictions:
        return out
    for model, kind in predictions[["model", "head"]].drop_duplicates().itertuples(index=False):
        try:
            out[str(model)] = lookup(str(kind)).outputs.to_dict()
        except ValueError:
            continue
    return out


def evaluate(
    model: Any,
    data: str | Path,
    fields: Sequence[str] | None = None,
    splits: Sequence[str] | None = None,
    *,
    label: str | None = None,
    batch_size: int = 256,
    limit: int | None = None,
    progress: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Score ``model`` (a :class:`scinum.fill.model.Model` or a checkpoint path) on ``data``.

    Returns ``(table, predictions)`` as described in the module docstring. ``limit`` caps the
    records per split (the first ones, so runs are comparable); it must be >= 1.
    """
    from ..fill.model import Model, load

    if limit is not None and (type(limit) is not int or limit < 1):
        raise ScinumError(f"--limit {limit!r}: at most how many records per split to score, an integer >= 1")
    if not isinstance(model, Model):
        model = load(model)
    ds = Dataset(data)
    fields = list(fields) if fields else default_fields(ds.manifest)
    if splits:
        missing = [s for s in splits if s not in ds.splits]
        empty = [s for s in splits if s in ds.splits and ds.count(s) == 0]
        if missing or empty:
            raise DatasetError(
                f"{data}: split(s) {missing + empty} "
                + ("not in the dataset" if missing else "hold no records")
                + f" (splits: {ds.splits})"
            )
        splits = list(splits)
    else:  # test and every ood_* split that holds records
        splits = [s for s in ds.splits if (s == "test" or s.startswith("ood_")) and ds.count(s)]
        if not splits:
            raise DatasetError(
                f"{data}: no test or ood_* split holds records, nothing to score (counts: { {s: ds.count(s) for s in ds.splits} })"
            )
    ranges = ds.manifest.get("evaluation", {}).get("train_ranges", {})
    encoding = model.meta.encoding["name"]
    head = model.meta.head.get("kind", "native")
    declared = type(model.model.head)  # its class declares its outputs and evaluation columns
    label = label or model_label(encoding, model.meta.head)
    rows, tables = [], []
    for split in splits:
        records, where = [], []
        for k, (file, line, rec) in enumerate(ds.located_records(split)):
            if limit is not None and k >= limit:
                break
            records.append(rec)
            where.append((file, line))
        for field in fields:
            try:
                jobs = [model.prepare(r, [field], index=i) for i, r in enumerate(records)]
            except RecordError as e:  # the checkpoint does not fit the data: say which and where
                at_file, at_line = where[e.record] if e.record is not None else (None, None)
                ckpt = getattr(model, "source", None) or f"the {encoding} model"
                raise type(e)(
                    f"{e.reason} (checkpoint {ckpt}, split {split!r}, field {field})",
                    file=str(at_file) if at_file else None,
                    line=at_line,
                    record=e.record,
                    path=e.path,
                ) from None
            filled = model.run_jobs(jobs, batch_size=batch_size, progress=progress, keep_nonfinite=True)  # scored (MSE inf), not dropped
            part = []
            for i, (rec, f) in enumerate(zip(records, filled)):
                for p in f.predictions:
                    row = {
                        "model": label,
                        "kind": "model",
                        "encoding": encoding,
                        "head": head,
                        "field": field,
                        "split": split,
                        "record": i,
                        "path": p.path,
                        "true": float(get(rec, p.path)),
                        "pred": _pred_value(p.value),
                        "unparseable": p.value is None,
                        "says_number": p.says_number,
                    }
                    row.update(declared.evaluation_columns(p.uncertainty))
                    part.append(row)
            frame = pd.DataFrame(part)
            rows.append(frame)
            for subset, sel in subsets(frame, ranges.get(field)):
                tables.append(
                    {
                        "model": label,
                        "kind": "model",
                        "field": field,
                        "split": split,
                        "subset": subset,
                        **_score(frame[sel] if sel is not None else frame, ds.manifest, declared),
                    }
                )
    return pd.DataFrame(tables), pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()


def _score(frame: pd.DataFrame, manifest: dict, head: Any) -> dict[str, Any]:
    """The metrics of one table row; ``head``: the model's head class, whose declaration says
    which of its columns the summary reads (:meth:`scinum.heads.HeadOutputs`)."""
    return {
        **summarize(
            frame["true"].to_numpy(),
            frame["pred"].to_numpy(),
            unparseable=frame["unparseable"].to_numpy(dtype=bool),
            **head.summary_inputs(frame),
        ),
        **_token_gate(frame),
        **physical_mse(manifest, frame),
    }


def _token_gate(frame: pd.DataFrame) -> dict[str, float]:
    """``not_number``: the share of masked numbers at which the token head's argmax does not
    begin a number (the xVal paper reads the number head only where it does, §2.2);
    ``non_finite``: the share of predictions that are NaN or ±inf without being unparseable (a
    diverged model, or overflowing inputs: ±inf ones make the MSE inf)."""
    pred = frame["pred"].to_numpy(dtype=np.float64)
    unparseable = frame["unparseable"].to_numpy(dtype=bool) if "unparseable" in frame else False
    return {
        "not_number": float(1.0 - frame["says_number"].astype(bool).mean()),
        "non_finite": float(np.mean(~np.isfinite(pred) & ~unparseable)),
    }


def _pred_value(value: float | None) -> float:
    """A FieldPrediction's value as a float: None (an unparseable text-encoding prediction) ->
    NaN, which the metrics count as unparseable and leave out of the others."""
    return math.nan if value is None else float(value)


def train_values(
    data: str | Path, fields: Sequence[str], cap: int = 200, split: str = "train", max_records: int = 20000
) -> dict[str, list[float]]:
    """Distinct training values of each field (evenly subsampled to ``cap``), for plots."""
    ds = Dataset(data)
    seen: dict[str, set] = {f: set() for f in fields}
    for k, rec in enumerate(ds.records(split)):
        if k >= max_records:
            break
        for f in fields:
            for p in select(rec, f):
                v = get(rec, p)
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    seen[f].add(float(v))
    out = {}
    for f, vals in seen.items():
        v = np.sort(np.fromiter(vals, float, len(vals)))
        if len(v) > cap:
            v = v[np.linspace(0, len(v) - 1, cap).round().astype(int)]
        out[f] = v.tolist()
    return out


def results_meta(data: str | Path) -> dict[str, Any]:
    """``meta.json`` content for a dataset: name, builder, and its evaluation declaration (units,
    the field each OOD split is about)."""
    manifest = Dataset(data).manifest
    declared = manifest.get("evaluation", {})
    return {
        "dataset": str(data),
        "builder": manifest.get("builder"),
        "synthetic": bool(manifest.get("synthetic", False)),
        "ood_fields": {s: f for s, f in declared.get("ood_fields", {}).items() if s in manifest.get("splits", {})},
        "units": dict(declared.get("units", {})),
    }


def _markdown(table: pd.DataFrame) -> str:
    cols = list(table.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, row in table.iterrows():
        cells = [f"{v:.4g}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_results(
    out: str | Path, table: pd.DataFrame, predictions: pd.DataFrame, train: dict[str, list[float]], meta: dict[str, Any]
) -> Path:
    """Write a results directory (module docstring): every file is written into a staging
    directory first and renamed into place only when all are (:func:`scinum.util.atomic.atomic_files`),
    so a failure leaves the old results whole, never new tables beside an old meta.json; the
    other files of ``out`` (plots, a recipe's models) stay. An ``out`` that holds such files but
    is not a results directory scinum wrote is refused (:func:`~.results.check_results_dir`)."""
    from .results import check_results_dir

    out = Path(out)
    check_results_dir(out)  # a user's own table.md or meta.json is never replaced
    meta = {**meta, "heads": {**head_declarations(predictions), **meta.get("heads", {})}}
    with atomic_files(out) as tmp:
        (tmp / "table.csv").write_text(table.to_csv(index=False))
        (tmp / "table.md").write_text(_markdown(table))
        (tmp / "predictions.csv").write_text(predictions.to_csv(index=False))
        (tmp / "train_values.json").write_text(json.dumps(train))
        (tmp / "meta.json").write_text(json.dumps(meta, indent=1))
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ckpt", required=True, nargs="+", help="checkpoint(s) to evaluate")
    parser.add_argument("--data", required=True, help="dataset directory")
    parser.add_argument("--out", required=True, help="results directory to write")
    parser.add_argument(
        "--fields",
        nargs="+",
        help="fields to evaluate, one at a time (default: those the dataset's manifest "
        "declares: its builder's, or `scinum build jsonl --fields`)",
    )
    parser.add_argument("--splits", nargs="+", help="splits (default: test and every ood_*)")
    parser.add_argument("--labels", nargs="+", help="a model label per checkpoint")
    parser.add_argument("--limit", type=int, help="at most this many records per split")
    parser.add_argument("--batch-size", type=int, default=256, help="records per batch [256]")
    parser.add_argument(
        "--no-baselines",
        action="store_true",
        help="leave out the standard references (train mean, ridge, boosted trees, "
        "persistence, oracles: scinum.baselines), fitted on the train split",
    )
    parser.add_argument("--seed", type=int, default=0, help="the baselines' seed [0]")


def run(args: argparse.Namespace) -> int:
    if args.labels and len(args.labels) != len(args.ckpt):
        raise ScinumError(f"{len(args.labels)} labels for {len(args.ckpt)} checkpoints")
    manifest = Dataset(args.data).manifest
    fields = args.fields or default_fields(manifest)
    tables, preds = [], []
    for k, ckpt in enumerate(args.ckpt):
        t, p = evaluate(
            ckpt,
            args.data,
            fields,
            args.splits,
            label=args.labels[k] if args.labels else None,
            batch_size=args.batch_size,
            limit=args.limit,
            progress=True,
        )
        tables.append(t)
        preds.append(p)
    meta = results_meta(args.data)
    if not args.no_baselines:
        from .baselines import baseline_results

        t, p, meta["baselines"] = baseline_results(
            args.data, fields, list(dict.fromkeys(tables[0]["split"])), limit=args.limit, seed=args.seed
        )
        tables.append(t)
        preds.append(p)
    table = pd.concat(tables, ignore_index=True)
    out = write_results(args.out, table, pd.concat(preds, ignore_index=True), train_values(args.data, fields), meta)
    print(_markdown(table))
    print(f"results written to {out}")
    return 0
