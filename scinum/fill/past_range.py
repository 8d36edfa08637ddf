"""Predictions past a table's input range: intervals that widen with the distance, and
optionally a mean continued linearly from the edge.

What a network predicts for inputs past the range it trained on is whatever its layers make of
numbers they never saw: it may follow the trend, flatten, or run away (experiments/tabular.md).
The data cannot say which, so the prediction's spread should grow with how far the prediction
moves away from what the data do support. For a row ``x`` with an input outside its training
``[min, max]``, let ``c`` be ``x`` with every such top-level numeric input clipped to the range
(the nearest point the data cover) and ``ŷ`` the model's prediction. :class:`PastRange` predicts
each target by its mode:

* ``"network"``: ``ŷ(x)``, the network's own mean, its variance raised to at least the one it has
  at ``c`` (no more confident past the edge than at it) and then widened by
  ``(WIDEN · |ŷ(x) - ŷ(c)|)²`` (one more prediction a row outside);
* ``"linear"``: ``ŷ(c) + Σⱼ sⱼ (xⱼ - cⱼ)``, continued from the edge along the secant over the last
  tenth of each input's range, ``sⱼ = (ŷ(c) - ŷ(c - uⱼ δⱼ eⱼ)) / (uⱼ δⱼ)`` (``uⱼ = ±1`` the side
  input ``j`` left by, ``δⱼ = SECANT ·`` its range), like a natural spline past its last knot: a
  straight trend goes on straight, one that flattens towards the edge stays near the edge's value,
  a curving one does not compound its curvature. The distribution moves with the mean and widens
  by ``WIDEN`` times the shift (``1 + k`` predictions a row with ``k`` inputs outside);
* ``"edge"``: ``ŷ(c)``, the prediction held at the edge (what boosted trees do), its variance
  the one at ``c`` plus ``(WIDEN · |ŷ(x) - ŷ(c)|)²``: widened by how far the network would have
  moved. Over a least-squares line (:mod:`scinum.fill.line`) it is the network's part that
  is held; the line goes on (``Regressor``'s ``extrapolation="auto"``).

At ``WIDEN = 0.5`` the edge's value ``ŷ(c)`` (what a clamping model such as boosted trees
predicts) stays within 2σ. Both constants were set before any table was scored, not tuned.
Inputs in range, nested inputs (inside lists or objects), missing inputs and inputs of a
constant training column are left as they are; a row with nothing outside is predicted as the
network predicts it, with one query.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, Sequence

import numpy as np

from ..records.paths import format_path
from .extrapolation import TrainingRanges
from .results import FieldPrediction

__all__ = ["MODES", "SECANT", "WIDEN", "PastRange", "moved"]

#: how the mean past the range is made (module docstring)
MODES = ("network", "linear", "edge")
#: the secant's width, a share of the input's training range
SECANT = 0.1
#: standard deviations widen in quadrature by this share of the prediction's move from the edge
WIDEN = 0.5


class PastRange:
    """The queries that predict ``records`` past ``ranges`` by ``modes`` and how to combine them.

    ``records``: the rows to predict (targets already ``null``). ``modes``: one mode for every
    target, or one per target (``"network"`` and ``"edge"`` may be mixed; ``"linear"`` is for
    all). :attr:`queries`: what to predict instead, the ``N`` rows first (clipped into range for
    ``"linear"``), then the extra queries (``"network"``, ``"edge"``: each row outside, clipped;
    ``"linear"``: per (row, input outside) the clipped row with that input a secant inwards).
    :attr:`clipped`: each row clipped into the ranges (the row itself when nothing is outside).
    :meth:`combine` turns one model's predictions of the queries, ``[len(queries), T]``
    :class:`FieldPrediction` s, into the rows' ``[N, T]``."""

    def __init__(self, records: Sequence[dict], ranges: TrainingRanges, modes: str | Sequence[str] = "network"):
        self.modes = [modes] if isinstance(modes, str) else list(modes)
        bad = [m for m in self.modes if m not in MODES]
        if bad or not self.modes:
            raise ValueError(f"mode {bad[0] if bad else modes!r}: one of {', '.join(MODES)}")
        if "linear" in self.modes and set(self.modes) != {"linear"}:
            raise ValueError(f"modes {self.modes}: \"linear\" is for every target or none")
        mode = self.modes[0] if self.modes[0] == "linear" else "network"  # network and edge ask alike
        self.n, self.mode = len(records), mode
        self.clipped: list[dict] = []
        self.queries: list[dict] = []
        #: per row: (input key, distance past the edge xⱼ - cⱼ, signed secant uⱼ δⱼ, query index)
        self.steps: list[list[tuple[str, float, float, int]]] = [[] for _ in records]
        #: per row: the index of its clipped query (``"network"``; -1: nothing outside)
        self.edge = [-1] * self.n
        extra: list[dict] = []
        for i, record in enumerate(records):
            clipped = record
            for key, value in record.items():
                field = format_path((key,))  # ranges are keyed by field path: '["sepal width (cm)"]'
                if field not in ranges.ranges or not _is_number(value):
                    continue
                lo, hi = ranges.ranges[field]
                if lo <= value <= hi or not hi > lo:
                    continue
                edge = hi if value > hi else lo
                if clipped is record:
                    clipped = copy.copy(record)
                clipped[key] = edge
                self.steps[i].append((key, float(value) - edge, SECANT * (hi - lo) * (1.0 if value > hi else -1.0), -1))
            self.clipped.append(clipped)
            if mode == "network":
                self.queries.append(record)
                if clipped is not record:
                    self.edge[i] = self.n + len(extra)
                    extra.append(clipped)
                continue
            self.queries.append(clipped)
            for k, (key, past, secant, _) in enumerate(self.steps[i]):
                inner = copy.copy(clipped)
                inner[key] = clipped[key] - secant
                self.steps[i][k] = (key, past, secant, self.n + len(extra))
                extra.append(inner)
        self.queries += extra

    def outside_inputs(self, row: int) -> list[str]:
        """The paths of ``row``'s inputs that were outside their range."""
        return [format_path((key,)) for key, *_ in self.steps[row]]

    def combine(self, preds: np.ndarray) -> np.ndarray:
        """``preds`` object [len(queries), T] -> object [N, T] (module docstring)."""
        modes = self.modes * preds.shape[1] if len(self.modes) == 1 else self.modes
        if len(modes) != preds.shape[1]:
            raise ValueError(f"{len(self.modes)} modes for {preds.shape[1]} targets")
        out = preds[: self.n].copy()
        for i, steps in enumerate(self.steps):
            if not steps:
                continue
            for t in range(preds.shape[1]):
                own = preds[i, t]
                if own.value is None:
                    continue
                if self.mode == "network":
                    edge = preds[self.edge[i], t]
                    if edge.value is None:
                        continue
                    if modes[t] == "edge":
                        out[i, t] = moved(edge, 0.0, own.value - edge.value)
                    else:
                        out[i, t] = moved(own, 0.0, own.value - edge.value, edge.uncertainty.get("std"))
                    continue
                shift = 0.0
                for _, past, secant, q in steps:
                    inner = preds[q, t].value
                    if inner is not None:
                        shift += (own.value - inner) / secant * past
                out[i, t] = moved(own, shift, shift)
        return out


def moved(p: FieldPrediction, shift: float, away: float, edge_std: float | None = None) -> FieldPrediction:
    """``p`` moved by ``shift`` (value and every location) with every variance (its ``std``'s and
    each component's) raised by the same amount: what brings ``std`` up to ``edge_std`` if it is
    below, plus ``(WIDEN · away)²``. Its ``interval_*`` entries, which the widening would change in
    ways only its head knows, are left out."""
    unc = {k: v for k, v in p.uncertainty.items() if not k.startswith("interval_")}
    widen = (WIDEN * away) ** 2
    if edge_std is not None and "std" in unc:
        widen += max(float(edge_std) ** 2 - float(unc["std"]) ** 2, 0.0)
    for key in ("mean", "means"):
        if key in unc:
            unc[key] = _plus(unc[key], shift)
    for key in ("std", "stds"):
        if key in unc:
            unc[key] = _widened(unc[key], widen)
    assert p.value is not None
    return dataclasses.replace(p, value=p.value + shift, uncertainty=unc)


def _plus(v: Any, shift: float) -> Any:
    return (np.asarray(v, np.float64) + shift).tolist() if isinstance(v, (list, np.ndarray)) else float(v) + shift


def _widened(v: Any, var: float) -> Any:
    return np.sqrt(np.asarray(v, np.float64) ** 2 + var).tolist() if isinstance(v, (list, np.ndarray)) else float(np.sqrt(v**2 + var))


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)) and np.isfinite(v)
