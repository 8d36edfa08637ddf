"""The recalibration tables a checkpoint stores (:mod:`scinum.fill.calibration` fits them):
field -> the head's quantile level at each of the :data:`GRID` levels, and the levels a table
maps requested quantile levels to."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

__all__ = ["GRID", "calibrated_levels", "check_table", "model_levels", "recalibrated"]

#: the levels at which a recalibration table is stored
GRID = np.linspace(0.0, 1.0, 101)
_EPS = 1e-9  # levels stay inside (0, 1): quantiles at 0 and 1 are infinite


def check_table(table: Any) -> bool:
    """Whether ``table`` is a recalibration table: len(GRID) non-decreasing levels in [0, 1]."""
    t = np.asarray(table, dtype=np.float64) if isinstance(table, (list, tuple)) else None
    return t is not None and t.shape == GRID.shape and bool(np.all(np.diff(t) >= 0)) and bool(np.all((t >= 0) & (t <= 1)))


def recalibrated(levels: Sequence[float], fields: np.ndarray, tables: dict[int, np.ndarray]) -> np.ndarray:
    """Model levels float64[N, Q] that give the requested quantile ``levels`` [Q] for rows of
    field ids ``fields`` int[N] (rows of fields without a table keep the requested levels)."""
    q = np.asarray(levels, dtype=np.float64)
    out = np.broadcast_to(model_levels(q, None), (len(fields), len(q))).copy()
    for fid, table in tables.items():
        rows = fields == fid
        if rows.any():
            out[rows] = model_levels(q, table)
    return out


def model_levels(levels: np.ndarray, table: np.ndarray | None) -> np.ndarray:
    """The head's levels (any shape, inside (0, 1)) that give the requested quantile ``levels``
    under one field's recalibration ``table`` (None: the requested levels themselves)."""
    raw = np.interp(levels, GRID, table) if table is not None else np.asarray(levels, dtype=np.float64)
    return np.clip(raw, _EPS, 1 - _EPS)


def calibrated_levels(levels: np.ndarray, table: np.ndarray | None) -> np.ndarray:
    """The inverse of :func:`model_levels`: the calibrated level of each head level (its CDF)."""
    return np.interp(levels, table, GRID) if table is not None else levels
