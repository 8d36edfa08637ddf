"""The user's rows inside :class:`scinum.Regressor`: what it checks, writes and blanks in the
records :mod:`scinum.datasets.tables` made of a table's rows, and how an error found deep in a
build, a fit or a fill is named back at the user's row (counted from 1) and column.

``kind`` everywhere is how the user gave the rows: ``"frame"`` or ``"array"`` (a table: targets
and inputs are columns) or ``"records"`` (JSON records: they are JSON paths).
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..errors import RecordError, ScinumError
from ..records.paths import format_path, get, parse_path

__all__ = [
    "as_named",
    "at_user_rows",
    "check_targets_present",
    "concrete_path",
    "count_cells",
    "is_int",
    "is_real",
    "put_null",
    "row_error",
    "write_jsonl",
]


def write_jsonl(path: Path, records: Sequence[dict]) -> None:
    """``records`` as strict JSONL (a NaN or infinity raises ``ValueError``)."""
    path.write_text("".join(json.dumps(r, allow_nan=False) + "\n" for r in records))


def is_int(v: Any) -> bool:
    """A Python or NumPy integer, not a bool."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def is_real(v: Any) -> bool:
    """A Python or NumPy integer or float (NaN included), not a bool."""
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def put_null(record: dict, path: tuple, index: int) -> None:
    """Set the target ``path`` of ``record`` to a ``null`` placeholder (its parent must exist)."""
    try:
        parent = get(record, path[:-1])
        if isinstance(path[-1], str) and isinstance(parent, dict) or isinstance(parent, list) and -len(parent) <= path[-1] < len(parent):
            parent[path[-1]] = None
            return
    except KeyError:
        pass
    raise RecordError("no place for the target (its parent object or list is missing)", record=index, path=format_path(path))


def concrete_path(record: dict, path: tuple) -> str:
    """``path`` with negative list indices resolved against ``record``."""
    node, segs = record, []
    for s in path:
        if isinstance(s, int) and s < 0:
            s = len(node) + s
        segs.append(s)
        node = node[s]
    return format_path(segs)


def count_cells(record: Any) -> int:
    """Numbers, strings and booleans in a record (what a record's cost grows with)."""
    if isinstance(record, dict):
        return sum(count_cells(v) for v in record.values())
    if isinstance(record, list):
        return sum(count_cells(v) for v in record)
    return 1


def as_named(path: str, kind: str) -> str:
    """A target or input named as the user named it: a column of a table, else a JSON path."""
    if kind == "records":
        return f"path {path}"
    segs = parse_path(path)
    return f"column {segs[0]!r}" if len(segs) == 1 else f"path {path}"


def row_error(reason: str, index: int, path: str | None, kind: str) -> RecordError:
    """A :class:`RecordError` at the user's row ``index + 1`` (and column or path)."""
    where = f"row {index + 1}" + (f", {as_named(path, kind)}" if path else "")
    return RecordError(f"{where}: {reason}")


def check_targets_present(records: Sequence[dict], paths: Sequence[str], kind: str) -> None:
    """Refuse rows without a number at a target (NaN, None, absent), naming the target and the
    rows (from 1): such a row would train without its target and break the calibration."""
    for path in paths:
        segs = parse_path(path)
        missing = []
        for i, r in enumerate(records):
            try:
                v = get(r, segs)
            except (KeyError, IndexError, TypeError):
                v = None
            if not is_real(v):
                missing.append(i + 1)
        if missing:
            shown = ", ".join(map(str, missing[:10])) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
            rows = "rows" if len(missing) > 1 else "row"
            raise RecordError(
                f"target {as_named(path, kind)} has no number in {len(missing)} of {len(records)} rows ({rows} "
                f"{shown}, counted from 1; a NaN or missing target): drop those rows or fill them before fitting"
            )


#: a location in the estimator's temporary files: ``<split>.jsonl`` or the dataset's shards
_TEMP_FILE = re.compile(r"(?:^|/)(?:(train|val)\.jsonl|data/(train|val)/part-(\d+)\.jsonl(?:\.gz)?)$")


def at_user_rows(error: ScinumError, root: Path, rows: dict[str, np.ndarray], kind: str) -> ScinumError:
    """``error`` with its location in the estimator's temporary files (``train.jsonl:3``, the
    dataset's shards) replaced by the user's row (from 1) and column; any other mention of the
    temporary directory becomes "the table"."""
    if isinstance(error, RecordError) and error.file is not None and error.line is not None:
        m = _TEMP_FILE.search(str(error.file).replace("\\", "/"))
        if m and str(error.file).startswith(str(root)):
            split = m.group(1) or m.group(2)
            k = (error.line - 1) + (int(m.group(3)) * 1000 if m.group(3) else 0)  # shards of 1000 records
            if 0 <= k < len(rows[split]):
                return row_error(error.reason, int(rows[split][k]), error.path, kind)
    text = str(error)
    if str(root) in text:
        err = copy.copy(error)
        err.args = (re.sub(re.escape(str(root)) + r"[^\s:,]*", "the table", text),)
        return err
    return error
