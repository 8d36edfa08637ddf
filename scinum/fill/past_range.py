"""Predictions past a table's input range, continued linearly from its edge.

What a network predicts for inputs past the range it trained on is whatever its layers make of
numbers they never saw: it may follow the trend, flatten, or run away (experiments/tabular.md).
:class:`Continuation` instead predicts at the nearest point of the range (every top-level numeric
input clipped to its training ``[min, max]``) and continues from there along the slope the
prediction has at the edge. For a row ``x`` with clipped point ``c``:

    ŷ(x) = ŷ(c) + Σⱼ sⱼ (xⱼ - cⱼ),    sⱼ = (ŷ(c) - ŷ(c - uⱼ δⱼ eⱼ)) / (uⱼ δⱼ)

over the inputs ``j`` outside their range, ``uⱼ = ±1`` the side it left by and ``δⱼ`` a tenth of
input ``j``'s range (:data:`SECANT`: the secant over the last tenth of the range, which the
prediction there was trained on). Like a natural spline past its last knot: a straight trend is
continued, a trend that flattens towards the edge stays near the edge's value, and a curving one
does not compound its curvature. The distribution moves with the mean, and every standard
deviation widens in quadrature by ``WIDEN · |Σⱼ sⱼ (xⱼ - cⱼ)|``: the further the continuation
carries the prediction from the edge's value, the less the data vouch for it (at ``WIDEN = 0.5``
the edge's value, what a clamping model such as boosted trees predicts, stays within 2σ).

Inputs in range, nested inputs (inside lists or objects), missing inputs and inputs of a
constant training column are left as they are; a row with nothing outside costs one prediction,
a row with ``k`` inputs outside ``1 + k``.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, Sequence

import numpy as np

from ..records.paths import format_path
from .extrapolation import TrainingRanges
from .results import FieldPrediction

__all__ = ["SECANT", "WIDEN", "Continuation"]

#: the secant's width, a share of the input's training range
SECANT = 0.1
#: standard deviations widen in quadrature by this share of the continuation's shift
WIDEN = 0.5


class Continuation:
    """The queries that continue ``records``' predictions past ``ranges`` and how to combine them.

    ``records``: the rows to predict (targets already ``null``). :attr:`queries`: the records to
    predict instead, the ``N`` rows clipped into range first, then one record per (row, input
    outside) with that input moved a secant inwards. :meth:`combine` turns the predictions of the
    queries, ``[len(queries), T]`` :class:`FieldPrediction` s of one model, into the rows' ``[N, T]``."""

    def __init__(self, records: Sequence[dict], ranges: TrainingRanges):
        self.n = len(records)
        self.queries: list[dict] = []
        #: per row: (input key, distance past the edge xⱼ - cⱼ, signed secant uⱼ δⱼ, query index)
        self.steps: list[list[tuple[str, float, float, int]]] = [[] for _ in records]
        inward: list[dict] = []
        for i, record in enumerate(records):
            clipped = record
            for key, value in record.items():
                if key not in ranges.ranges or not _is_number(value):
                    continue
                lo, hi = ranges.ranges[key]
                if lo <= value <= hi or not hi > lo:
                    continue
                edge = hi if value > hi else lo
                if clipped is record:
                    clipped = copy.copy(record)
                clipped[key] = edge
                secant = SECANT * (hi - lo) * (1.0 if value > hi else -1.0)
                self.steps[i].append((key, float(value) - edge, secant, -1))
            self.queries.append(clipped)
            for k, (key, past, secant, _) in enumerate(self.steps[i]):
                inner = copy.copy(clipped)
                inner[key] = clipped[key] - secant
                self.steps[i][k] = (key, past, secant, self.n + len(inward))
                inward.append(inner)
        self.queries += inward

    def outside_inputs(self, row: int) -> list[str]:
        """The paths of ``row``'s inputs that were outside their range (clipped)."""
        return [format_path((key,)) for key, *_ in self.steps[row]]

    def combine(self, preds: np.ndarray) -> np.ndarray:
        """``preds`` object [len(queries), T] -> object [N, T]: each row's prediction at its
        clipped point, continued and widened (module docstring)."""
        out = preds[: self.n].copy()
        for i, steps in enumerate(self.steps):
            if not steps:
                continue
            for t in range(preds.shape[1]):
                at_edge = preds[i, t]
                if at_edge.value is None:
                    continue
                shift = 0.0
                for _, past, secant, q in steps:
                    inner = preds[q, t].value
                    if inner is not None:
                        shift += (at_edge.value - inner) / secant * past
                out[i, t] = _shifted(at_edge, shift)
        return out


def _shifted(p: FieldPrediction, shift: float) -> FieldPrediction:
    """``p`` moved by ``shift`` (value and every location) with its spreads widened by
    ``WIDEN · |shift|`` in quadrature; its ``interval_*`` entries, which the widening would change
    in ways only its head knows, are left out."""
    unc = {k: v for k, v in p.uncertainty.items() if not k.startswith("interval_")}
    widen = (WIDEN * shift) ** 2
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
