"""A prediction between the values a field took in training: its interval widens.

Some fields take only a few values in training: the planets step size takes 0.2, 0.3, 0.5 and 0.8
(``run.train_ranges[field]["values"]``, :mod:`scinum.util.provenance`, at most 16 values). A
model has seen nothing between them. When it predicts 0.63 for such a field, its interval is as
narrow as at 0.5, where it has seen thousands, and between the step sizes Δt's 95 % intervals
covered the truth far less often than 95 % (experiments/planets-line-cap).

So a prediction that lies farther from every training value than its own 95 % interval reaches
gets a wider spread. The gap is ``away = max(0, distance to the nearest training value −
1.96 · std)``. The widening is :func:`scinum.fill.line_support.widen`'s: the spread grows by
``WIDEN · away`` (:data:`scinum.fill.past_range.WIDEN`, the constant already used past a table's
range), and every quantile moves outwards by ``Φ⁻¹(p) · WIDEN · away``. The mean is not moved.

A field counts as one of few values when each of its values was seen :data:`MIN_REPEATS` times
on average: a table of 11 rows has 11 distinct targets, but they are not a grid.

A prediction at a training value, or close to one within its own interval, is left as it was.
So are fields with more distinct values and checkpoints that recorded none
(experiments/planets-between-values).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["MIN_REPEATS", "TrainingValues", "Z95"]

#: the normal quantile of a central 95 % interval: a prediction's own reach is ``Z95 · std``
Z95 = 1.959963984540054
#: a field's recorded values are a grid when its training numbers repeat them this often on average
MIN_REPEATS = 4


class TrainingValues:
    """Field id of ``vocab`` -> its sorted distinct training values, for the fields whose
    ``run["train_ranges"]`` entry lists them and counts :data:`MIN_REPEATS` numbers a value."""

    def __init__(self, vocab: Any, run: dict[str, Any]):
        ranges = run.get("train_ranges") or {}
        self.values = {
            vocab.field_index[f]: np.asarray(sorted(r["values"]), np.float64)
            for f, r in ranges.items()
            if f in vocab.field_index and r.get("values") and r.get("count", 0) >= MIN_REPEATS * len(r["values"])
        }

    def away(self, fids: np.ndarray, values: np.ndarray, std: np.ndarray | None) -> np.ndarray:
        """float64[N]: how far each prediction (``values`` [N] of fields ``fids`` int[N], record
        units) lies beyond its own 95 % reach (``Z95 · std`` [N]; None: no reach) from the
        nearest training value of its field; 0 for fields with no recorded values."""
        out = np.zeros(len(fids), np.float64)
        if not self.values:
            return out
        values = np.asarray(values, np.float64)
        reach = np.zeros(len(fids)) if std is None else Z95 * np.asarray(std, np.float64)
        for fid, grid in self.values.items():
            rows = np.flatnonzero(fids == fid)
            if len(rows):
                nearest = np.abs(values[rows, None] - grid[None, :]).min(axis=1)
                out[rows] = np.maximum(0.0, nearest - reach[rows])
        return np.nan_to_num(out, nan=0.0)
