"""Fixed-slot features of JSON records for standard regressors, built from the training split.

Every numeric leaf at a concrete JSON path (:func:`scinum.records.paths.flatten`) is a *slot*: the
union of the training records' numeric paths, the ``max_slots`` most frequent kept (ties: first
seen). A record lacking a slot has NaN there (missing, marked).

A field being predicted is a mask pattern (``description.stepsize``, ``data[*][-1]``); every
number it names in a record (:func:`scinum.records.paths.numbers_named`, the numbers scinum's
evaluation masks jointly) is removed from that record's slots, and each one is a row of its own:

    [slots (S)] + [index from the start, index from the end] x INDEX_DEPTH (innermost list first)
                + [lag -1, ..., lag -LAGS] (its innermost list's earlier elements)

A lag or index that does not exist (a number not in a list, the first element of a list, an
earlier element that is itself masked) is NaN. Features are float32 ``[rows, S + 2·INDEX_DEPTH
+ LAGS]``; targets float64 ``[rows]``.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from ..errors import RecordError
from ..records.paths import JsonPath, flatten, format_path, get, numbers_named

__all__ = ["MAX_SLOTS", "LAGS", "INDEX_DEPTH", "Slots", "Rows", "fit_slots", "targets_of", "rows_of"]

#: most slots kept (by frequency over the training records)
MAX_SLOTS = 2048
#: earlier elements of a target's innermost list used as features (offsets -1 ... -LAGS)
LAGS = 4
#: list indices of a target used as features (innermost first), each from the start and the end
INDEX_DEPTH = 3


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


@dataclass
class Slots:
    """The slot layout: ``paths[k]`` is column ``k``; ``seen`` numeric paths existed in the
    training records, ``len(paths)`` of them kept (``max_slots`` the cap)."""

    paths: list[JsonPath]
    seen: int
    max_slots: int
    index: dict[JsonPath, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.index = {p: k for k, p in enumerate(self.paths)}

    @property
    def dropped(self) -> int:
        """Numeric paths of the training records left out by the cap."""
        return self.seen - len(self.paths)

    def names(self) -> list[str]:
        """Every feature column's name: the slots' paths, then the target's own features."""
        own = [f"index[{d}]{s}" for d in range(INDEX_DEPTH) for s in ("", "-from-end")]
        return [format_path(p) for p in self.paths] + own + [f"lag-{k}" for k in range(1, LAGS + 1)]


def fit_slots(records: Iterable[dict], max_slots: int = MAX_SLOTS) -> Slots:
    """The slot layout of training ``records``: every numeric leaf path, the ``max_slots`` most
    frequent kept."""
    counts: Counter = Counter()
    for rec in records:
        counts.update(p for p, v in flatten(rec) if _is_number(v))
    order = {p: k for k, p in enumerate(counts)}  # first seen
    kept = sorted(counts, key=lambda p: (-counts[p], order[p]))[:max_slots]
    kept.sort(key=order.__getitem__)  # columns in document order
    return Slots(kept, len(counts), max_slots)


def targets_of(record: dict, pattern: str) -> list[JsonPath]:
    """The numbers ``pattern`` names in ``record`` (``null`` placeholders left out); [] where it
    names nothing there."""
    try:
        paths = numbers_named(record, pattern)
    except RecordError:
        return []
    return [p for p in paths if _is_number(get(record, p))]


@dataclass
class Rows:
    """Feature rows of one field: ``x`` float32 ``[N, F]``, ``y`` float64 ``[N]`` (the true
    values), ``record`` int ``[N]`` (the record's position in its split), ``path`` the target
    paths (text), ``lag1`` float64 ``[N]`` (lag -1 exactly, NaN where there is none)."""

    x: np.ndarray
    y: np.ndarray
    record: np.ndarray
    path: list[str]
    lag1: np.ndarray


def _own_features(record: dict, path: JsonPath, masked: set[JsonPath]) -> list[float]:
    """The target's list indices (innermost first, from the start and from the end) and lags."""
    lists: list[tuple[int, int]] = []  # (index, length) of every list along the path
    node = record
    for seg in path:
        if isinstance(node, list):
            lists.append((seg, len(node)))
        node = node[seg]
    idx = [math.nan] * (2 * INDEX_DEPTH)
    for d, (i, n) in enumerate(reversed(lists[-INDEX_DEPTH:])):
        idx[2 * d], idx[2 * d + 1] = float(i), float(i - n)
    lags = [math.nan] * LAGS
    if isinstance(path[-1], int):
        parent = get(record, path[:-1])
        for k in range(1, LAGS + 1):
            j = path[-1] - k
            if j < 0:
                break
            if _is_number(parent[j]) and path[:-1] + (j,) not in masked:
                lags[k - 1] = float(parent[j])
    return idx + lags


def rows_of(records: Sequence[dict], pattern: str, slots: Slots, keep: np.ndarray | None = None) -> Rows:
    """One row per (record, number ``pattern`` names in it), records in order; ``keep`` (bool
    ``[total rows]``): build only those rows (a subsample) — memory is ``keep.sum()`` rows."""
    width = len(slots.paths) + 2 * INDEX_DEPTH + LAGS
    xs, ys, recs, paths, lag1 = [], [], [], [], []
    k = 0
    for r, rec in enumerate(records):
        targets = targets_of(rec, pattern)
        chosen = [t for j, t in enumerate(targets) if keep is None or keep[k + j]]
        k += len(targets)
        if not chosen:
            continue
        base = np.full(len(slots.paths), np.nan, dtype=np.float32)
        for p, v in flatten(rec):
            c = slots.index.get(p)
            if c is not None and _is_number(v):
                base[c] = v
        masked = set(targets)
        for t in targets:
            c = slots.index.get(t)
            if c is not None:
                base[c] = np.nan
        for t in chosen:
            own = _own_features(rec, t, masked)
            xs.append(np.concatenate([base, np.asarray(own, np.float32)]))
            lag1.append(own[2 * INDEX_DEPTH])
            ys.append(float(get(rec, t)))
            recs.append(r)
            paths.append(format_path(t))
    x = np.stack(xs) if xs else np.zeros((0, width), np.float32)
    return Rows(x, np.asarray(ys, np.float64), np.asarray(recs, np.int64), paths, np.asarray(lag1, np.float64))
