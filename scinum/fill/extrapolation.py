"""Extrapolation: inputs and predictions outside each field's training range.

A checkpoint's ``run["train_ranges"]`` (:mod:`scinum.util.provenance`) holds the min and max of every
field's training numbers. Filling checks each visible input and each prediction against them:
:meth:`TrainingRanges.outside` lists a record's paths outside (``{"inputs": [...],
"predictions": [...]}``, in :attr:`scinum.fill.model.Filled.outside` and, where the output has room,
``fill --with-uncertainty``'s ``outside_training_range``), and :class:`Tally` counts them per
field for one line on stderr (``scinum fill``) or one :class:`ExtrapolationWarning`
(:meth:`scinum.fill.model.Model.predict_many`). A model's predictions rarely leave its training
range: an input outside it is the warning that matters, a prediction outside it is rarer still.
A checkpoint without training ranges (written before they were recorded) flags nothing.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

import numpy as np

from ..records.paths import field_of, format_path

__all__ = ["ExtrapolationWarning", "TrainingRanges", "Tally"]


class ExtrapolationWarning(UserWarning):
    """Inputs or predictions outside the training range of their field."""


class TrainingRanges:
    """Training min/max per field id of ``vocab`` from a checkpoint's ``run`` entry."""

    def __init__(self, vocab: Any, run: dict[str, Any]):
        ranges = run.get("train_ranges") or {}
        n = len(vocab.fields)
        self.lo, self.hi = np.full(n, -np.inf), np.full(n, np.inf)
        self.ranges = {f: (float(r["min"]), float(r["max"])) for f, r in ranges.items() if f in vocab.field_index}
        for f, (lo, hi) in self.ranges.items():
            self.lo[vocab.field_index[f]], self.hi[vocab.field_index[f]] = lo, hi

    def outside(self, job: Any, predictions: Sequence[Any]) -> dict[str, list[str]]:
        """Paths of ``job``'s visible inputs and of its ``predictions`` (the
        :class:`~scinum.fill.model.FieldPrediction` of ``job.hidden``, in order) outside their
        field's training range; ``{}`` when none is."""
        out: dict[str, list[str]] = {}
        if not self.ranges:
            return out
        visible = np.ones(len(job.number_slots), bool)
        visible[job.hidden] = False
        slots = np.flatnonzero(visible)
        pos = job.number_slots[slots]
        fids = job.encoded.fields[pos]
        vals = job.encoded.values[pos]
        far = (fids >= 0) & ((vals < self.lo[np.maximum(fids, 0)]) | (vals > self.hi[np.maximum(fids, 0)]))
        if far.any():
            out["inputs"] = [format_path(job.paths[s]) for s in slots[far]]
        preds = []
        for slot, p in zip(job.hidden, predictions):
            fid = job.encoded.fields[job.number_slots[slot]]
            if p.value is not None and fid >= 0 and not self.lo[fid] <= p.value <= self.hi[fid]:
                preds.append(p.path)
        if preds:
            out["predictions"] = preds
        return out

    def beyond(self, path: str, value: float | None) -> bool:
        """Whether ``value`` at ``path`` lies outside its field's training range (False for a
        field without one, or no value)."""
        r = self.ranges.get(field_of(path))
        return value is not None and r is not None and not r[0] <= value <= r[1]


class Tally:
    """Counts per field of flagged inputs and predictions over many records."""

    def __init__(self, ranges: TrainingRanges):
        self.ranges = ranges
        self.counts: dict[str, Counter] = {"inputs": Counter(), "predictions": Counter()}
        self.records = 0

    def add(self, outside: dict[str, list[str]]) -> None:
        if outside:
            self.records += 1
        for kind, paths in outside.items():
            self.counts[kind].update(field_of(p) for p in paths)

    def __bool__(self) -> bool:
        return self.records > 0

    def summary(self) -> str:
        """One line: ``N records outside the training range: x: 3 inputs (trained on [0,
        1]); ...``."""
        fields = sorted(set(self.counts["inputs"]) | set(self.counts["predictions"]))
        parts = []
        for f in fields:
            what = [
                f"{self.counts[k][f]} {k if self.counts[k][f] != 1 else k[:-1]}" for k in ("inputs", "predictions") if self.counts[k][f]
            ]
            lo, hi = self.ranges.ranges[f]
            parts.append(f"{f}: {', '.join(what)} (trained on [{lo:.6g}, {hi:.6g}])")
        return f"{self.records} record(s) reach outside the training range, where the model extrapolates: {'; '.join(parts)}"
