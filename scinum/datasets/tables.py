"""Tables as records: a pandas DataFrame, a 2-D array, a list of JSON records or a JSONL file ->
one JSON record per row, for :class:`scinum.Regressor` and ``scinum build`` (CSV, Parquet).

A column becomes one top-level key of the same name: ``Solar.R`` stays one key (its JSON path
is ``["Solar.R"]``; :func:`column_path` writes it), never a nested object. A cell is a JSON
number (float, or int for integer columns), a string or a boolean; a missing cell (NaN, None,
``pd.NA``) leaves its key out of the record, so the model never reads a made-up value.
Infinite or unsupported cells (complex numbers, dates...) are a one-line
:class:`~scinum.errors.RecordError` naming the row and the column.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..errors import DatasetError, RecordError
from ..records.paths import format_path, parse_path
from ..records.strict import read_jsonl

__all__ = ["MISSING", "column_path", "cell", "rows_to_records", "frame_to_records", "read_records", "read_table", "check_target"]


class _Missing:
    """The value of an empty cell: its key is left out of the record."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


def column_path(name: str) -> str:
    """The JSON path of the top-level key ``name`` (``"Solar.R"`` -> ``'["Solar.R"]'``)."""
    return format_path((str(name),))


def cell(value: Any, row: int, column: str) -> Any:
    """One cell as a JSON value, or :data:`MISSING` (NaN, None, ``pd.NA``/``NaT``); an
    infinite or unsupported value raises :class:`RecordError` naming ``row`` and ``column``."""
    if value is None or value is MISSING:
        return MISSING
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return MISSING
        if math.isinf(v):
            raise RecordError(
                f"row {row}, column {column!r}: value {v} is not finite (Input contains infinity); use NaN for a missing value"
            )
        return v
    if isinstance(value, str):
        return value
    try:
        import pandas as pd

        if value is pd.NA or value is pd.NaT:
            return MISSING
    except ImportError:  # pragma: no cover - pandas is a dependency
        pass
    raise RecordError(f"row {row}, column {column!r}: a {type(value).__name__} value ({value!r}) is not a number, string or boolean")


def rows_to_records(columns: Sequence[str], cols: Sequence[Sequence[Any]]) -> list[dict]:
    """Records from column-major data: ``cols[j][i]`` is row ``i`` of column ``columns[j]``."""
    n = len(cols[0]) if cols else 0
    out: list[dict] = [{} for _ in range(n)]
    for name, values in zip(columns, cols):
        for i, v in enumerate(values):
            c = cell(v, i, name)
            if c is not MISSING:
                out[i][name] = c
    return out


def frame_to_records(frame) -> list[dict]:
    """A DataFrame's rows as records (column names as keys; a non-string name is written with
    ``str``; two columns of one name are an error)."""
    names = [str(c) for c in frame.columns]
    dup = {c for c in names if names.count(c) > 1}
    if dup:
        raise RecordError(f"columns {sorted(dup)} appear more than once: give each column one name")
    return rows_to_records(names, [frame.iloc[:, j].tolist() for j in range(frame.shape[1])])


def read_records(path: str | os.PathLike) -> list[dict]:
    """Every record of a JSONL(.gz) file (strict reader: errors name ``file:line`` and path)."""
    if not Path(path).is_file():
        raise DatasetError(f"{path}: no such file")
    return [r for _, r in read_jsonl(path)]


def read_table(path: str | os.PathLike):
    """A CSV (``.csv``, ``.csv.gz``) or Parquet (``.parquet``, needs pyarrow) file as a DataFrame."""
    import pandas as pd

    p = Path(path)
    name = p.name.lower()
    if not p.is_file():
        raise DatasetError(f"{p}: no such file")
    if name.endswith(".parquet"):
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise DatasetError(f"{p}: reading Parquet needs pyarrow: pip install pyarrow") from None
        return pd.read_parquet(p)
    try:
        return pd.read_csv(p)
    except (ValueError, UnicodeDecodeError) as e:
        first = (str(e).splitlines() or [""])[0][:200]
        raise DatasetError(f"{p}: not a readable CSV table ({first})") from None


def check_target(path: str) -> str:
    """A target's JSON path in canonical form; wildcards are refused (a target names one number
    per record)."""
    segs = parse_path(path)
    if any(not isinstance(s, (str, int)) for s in segs) or not segs:
        raise RecordError(f"target {path!r}: name one number per record (no wildcard, not the root)")
    return format_path(segs)
