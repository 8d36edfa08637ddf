"""What a fill returns: per record a :class:`Filled` (the record with its numbers filled and one
:class:`FieldPrediction` per filled number), and per model batch the :class:`Prediction` of each
sequence's hidden numbers that :class:`scinum.fill.model.Model` turns into them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import RecordError

__all__ = ["Filled", "FieldPrediction", "Prediction"]


@dataclass
class FieldPrediction:
    """One filled number: its JSON ``path``, predicted ``value`` (float64, record units; None
    for an unparseable text-encoding prediction), the head's ``uncertainty`` (JSON-able; empty
    for the scalar head) and ``says_number``: whether the token head, too, predicts that a
    number starts there (the xVal paper's gate, §2.2)."""

    path: str
    value: float | None
    uncertainty: dict[str, Any] = field(default_factory=dict)
    says_number: bool | None = None


@dataclass
class Filled:
    """A filled ``record`` and, beside it, one :class:`FieldPrediction` per filled number."""

    record: dict
    predictions: list[FieldPrediction]
    kind: str  # "mixture" | "digits" | "bits" | "tokens" | "none"
    #: set when a prediction of this record is not a finite number (see :meth:`Model.run_jobs`)
    error: RecordError | None = None
    #: paths outside their field's training range (:mod:`scinum.fill.extrapolation`)
    outside: dict[str, list[str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """``{"record": ..., "uncertainty_kind": ..., "predictions": {path: {value, ...}}}`` and,
        when some are, ``"outside_training_range": {"inputs": [paths], "predictions": [paths]}``."""
        out = {
            "record": self.record,
            "uncertainty_kind": self.kind,
            "predictions": {p.path: {"value": p.value, **p.uncertainty} for p in self.predictions},
        }
        return {**out, "outside_training_range": self.outside} if self.outside else out


@dataclass
class Prediction:
    """The hidden numbers of one sequence. ``positions`` int64[M] (their first tokens,
    ascending), ``values`` float64[M] in the record's units, ``uncertainty`` {name: array [M, ...]}
    (locations and spreads in the record's units), ``says_number`` bool[M]: whether the token
    head's argmax there begins a number (the xVal paper reads the number head only where it
    does, §2.2)."""

    positions: np.ndarray
    values: np.ndarray
    uncertainty: dict[str, np.ndarray]
    says_number: np.ndarray
