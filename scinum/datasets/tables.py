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
import re
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from ..errors import DatasetError, RecordError, shorten
from ..records.paths import format_path, parse_path
from ..records.strict import read_jsonl

__all__ = [
    "MISSING",
    "column_path",
    "cell",
    "rows_to_records",
    "frame_to_records",
    "read_records",
    "read_table",
    "table_rows",
    "check_target",
]


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


def rows_to_records(columns: Sequence[str], cols: Sequence[Sequence[Any]], first_row: int = 0) -> list[dict]:
    """Records from column-major data: ``cols[j][i]`` is row ``i`` of column ``columns[j]``
    (errors name row ``first_row + i``)."""
    n = len(cols[0]) if cols else 0
    out: list[dict] = [{} for _ in range(n)]
    for name, values in zip(columns, cols):
        for i, v in enumerate(values):
            c = cell(v, first_row + i, name)
            if c is not MISSING:
                out[i][name] = c
    return out


def frame_to_records(frame, first_row: int = 0) -> list[dict]:
    """A DataFrame's rows as records (column names as keys; a non-string name is written with
    ``str``; two columns of one name are an error; errors name row ``first_row + i``)."""
    names = [str(c) for c in frame.columns]
    dup = {c for c in names if names.count(c) > 1}
    if dup:
        raise RecordError(f"columns {sorted(dup)} appear more than once: give each column one name")
    return rows_to_records(names, [frame.iloc[:, j].tolist() for j in range(frame.shape[1])], first_row)


def read_records(path: str | os.PathLike) -> list[dict]:
    """Every record of a JSONL(.gz) file (strict reader: errors name ``file:line`` and path)."""
    if not Path(path).is_file():
        raise DatasetError(f"{path}: no such file")
    return [r for _, r in read_jsonl(path)]


def read_table(path: str | os.PathLike, *, header: bool = True, delimiter: str = ","):
    """A CSV (``.csv``, ``.csv.gz``) or Parquet (``.parquet``, needs pyarrow) file as a DataFrame
    (a CSV is read by :func:`table_rows`: its checks apply)."""
    import pandas as pd

    p = Path(path)
    if not p.name.lower().endswith(".parquet"):
        rows = list(table_rows(p, header=header, delimiter=delimiter))
        return pd.DataFrame.from_records([r for _, _, r in rows], columns=_csv_names(p, header, delimiter))
    return _read_parquet(p)


def _read_parquet(p: Path):
    import pandas as pd

    if not p.is_file():
        raise DatasetError(f"{p}: no such file")
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise DatasetError(f"{p}: reading Parquet needs pyarrow: pip install pyarrow") from None
    try:
        return pd.read_parquet(p)
    except Exception as e:  # ArrowInvalid (not Parquet, truncated), OSError...: one line naming the file
        first = (str(e).splitlines() or [""])[0][:200]
        raise DatasetError(f"{p}: not a readable Parquet file ({type(e).__name__}: {first})") from None


def table_rows(path: str | os.PathLike, *, header: bool = True, delimiter: str = ",") -> Iterator[tuple[int, int, dict]]:
    """``(file line, data row, record)`` of every row of a CSV or Parquet table, both 1-based (a
    CSV's header is line 1; a row's line is where it starts, quoted multi-line cells counted;
    a Parquet file's line is its row).

    A CSV is read without guessing: a column is numbers (an integer column gives ints, any
    decimal point or exponent floats), booleans (``True``/``False``) or text, never a mix — a
    column mixing numbers and text is a :class:`DatasetError` naming its odd cells (file line,
    data row, column). Empty cells (and ``NA``, ``NaN``, ``null``...) leave their key out. The
    header is checked: an empty or repeated name, or a name that is a number (the file has no
    header: pass ``header=False``, columns are then ``col1``, ``col2``...) is refused, and so is
    a one-column table whose header holds another usual delimiter (``;``, tab, ``|``, ``,``).
    """
    p = Path(path)
    if p.name.lower().endswith(".parquet"):
        frame = _read_parquet(p)
        try:
            for i, record in enumerate(frame_to_records(frame, first_row=1)):
                yield i + 1, i + 1, record
        except RecordError as e:
            raise DatasetError(f"{p}: {e}") from None
        return
    names = _csv_names(p, header, delimiter)
    rows = _csv_cells(p, header, delimiter, len(names))
    columns = [_column(p, name, [(line, row, cells[j]) for line, row, cells in rows]) for j, name in enumerate(names)]
    for i, (line, row, _) in enumerate(rows):
        record = {}
        for name, values in zip(names, columns):
            v = values[i]
            if v is MISSING:
                continue
            try:
                record[name] = cell(v, row, name)
            except RecordError as e:
                raise DatasetError(f"{p}:{line}, {e}") from None
        yield line, row, record


#: cells read as missing (pandas' defaults): their key is left out of the record
_NA = frozenset(
    ["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL"]
    + ["NaN", "None", "n/a", "nan", "null"]
)
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|Inf|INF|infinity|Infinity|INFINITY)")
_INTEGER = re.compile(r"[+-]?\d+")
_BOOLEAN = {"True": True, "TRUE": True, "true": True, "False": False, "FALSE": False, "false": False}
#: delimiters a one-column table is checked for
_DELIMITERS = {",": "','", ";": "';'", "\t": "tab", "|": "'|'"}


def _open_csv(p: Path):
    """The text of a CSV or CSV.gz file (UTF-8, a BOM dropped), for :mod:`csv`."""
    import gzip

    if not p.is_file():
        raise DatasetError(f"{p}: no such file")
    if p.name.lower().endswith(".gz"):
        return gzip.open(p, "rt", encoding="utf-8-sig", newline="")
    return open(p, encoding="utf-8-sig", newline="")


def _csv_read(p: Path, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """``(first file line, cells)`` of every non-blank CSV row; a read error is one line naming
    the file (a truncated or foreign ``.gz``, bad UTF-8, a CSV syntax error)."""
    import csv
    import zlib

    line = 0
    try:
        with _open_csv(p) as f:
            reader = csv.reader(f, delimiter=delimiter, strict=True)
            for cells in reader:
                start, line = line + 1, reader.line_num
                if cells:
                    yield start, cells
    except UnicodeDecodeError as e:
        raise DatasetError(f"{p}: after line {line}: not UTF-8 text ({e.reason} at byte {e.start} of a block)") from None
    except (EOFError, zlib.error, OSError) as e:
        if isinstance(e, FileNotFoundError):
            raise DatasetError(f"{p}: no such file") from None
        gz = p.name.lower().endswith(".gz")
        what = "a truncated gzip file" if isinstance(e, EOFError) else "not a readable gzip file" if gz else "not readable"
        raise DatasetError(f"{p}: after line {line}: {what} ({type(e).__name__}: {e})") from None
    except csv.Error as e:
        raise DatasetError(f"{p}:{line + 1}: not a readable CSV table ({e})") from None


def _csv_names(p: Path, header: bool, delimiter: str) -> list[str]:
    """The column names: the header row checked, or ``col1``... for a file without one."""
    first = next(iter(_csv_read(p, delimiter)), None)
    if first is None:
        raise DatasetError(f"{p}: empty table (no header, no row)")
    line, cells = first
    if len(cells) == 1:
        others = [d for d in _DELIMITERS if d != delimiter and d in cells[0]]
        if others:
            d = max(others, key=cells[0].count)
            raise DatasetError(
                f"{p}:{line}: the table has one column with {_DELIMITERS.get(delimiter, repr(delimiter))} as delimiter, "
                f"but its first row holds {_DELIMITERS[d]}: pass --delimiter {d!r} if the file is {_DELIMITERS[d]}-delimited"
            )
    if not header:
        return [f"col{j + 1}" for j in range(len(cells))]
    for j, name in enumerate(cells):
        if not name.strip():
            raise DatasetError(f"{p}:{line}: column {j + 1} of the header has no name: give every column a name")
        if _NUMBER.fullmatch(name.strip()):
            raise DatasetError(
                f"{p}:{line}: the header looks like data (column {j + 1} is named {name!r}, a number): "
                "if the file has no header row, pass --no-header; otherwise name the columns"
            )
    dup = sorted({c for c in cells if cells.count(c) > 1})
    if dup:
        raise DatasetError(f"{p}:{line}: column name(s) {dup} appear more than once in the header: give each column one name")
    return cells


def _csv_cells(p: Path, header: bool, delimiter: str, width: int) -> list[tuple[int, int, list[str]]]:
    """``(file line, data row, cells)`` of every data row; a row with another number of cells
    than the header is refused."""
    out = []
    rows = iter(_csv_read(p, delimiter))
    if header:
        next(rows)
    for row, (line, cells) in enumerate(rows, start=1):
        if len(cells) != width:
            raise DatasetError(f"{p}:{line}, row {row}: {len(cells)} cells where the table has {width} columns")
        out.append((line, row, cells))
    return out


def _column(p: Path, name: str, cells: list[tuple[int, int, str]]) -> list[Any]:
    """One CSV column's values (:data:`MISSING` for an empty cell): all numbers, all booleans or
    all text; numbers mixed with text are refused, naming the odd cells."""
    numbers, texts, booleans = [], [], 0
    for line, row, text in cells:
        if text in _NA or text.strip() in _NA:
            continue
        if _NUMBER.fullmatch(text.strip()):
            numbers.append((line, row, text))
        else:
            texts.append((line, row, text))
            booleans += text.strip() in _BOOLEAN
    if numbers and texts:
        odd, kind = (texts, "text") if len(texts) <= len(numbers) else (numbers, "a number")
        where = "; ".join(f"line {line} (row {row}) {shorten(text, 40)!r}" for line, row, text in odd[:3])
        more = f" and {len(odd) - 3} more" if len(odd) > 3 else ""
        raise DatasetError(
            f"{p}: column {name!r} mixes {len(numbers)} number(s) and {len(texts)} text cell(s); {kind} at {where}{more}: "
            "fix those cells (leave a missing value empty) or make the column all text"
        )
    if texts:
        if booleans == len(texts):
            return [MISSING if t in _NA or t.strip() in _NA else _BOOLEAN[t.strip()] for _, _, t in cells]
        return [MISSING if t in _NA or t.strip() in _NA else t for _, _, t in cells]
    integer = all(_INTEGER.fullmatch(t.strip()) for _, _, t in numbers)
    convert = int if integer else float
    return [MISSING if t in _NA or t.strip() in _NA else convert(t.strip()) for _, _, t in cells]


def check_target(path: str) -> str:
    """A target's JSON path in canonical form; wildcards are refused (a target names one number
    per record)."""
    segs = parse_path(path)
    if any(not isinstance(s, (str, int)) for s in segs) or not segs:
        raise RecordError(f"target {path!r}: name one number per record (no wildcard, not the root)")
    return format_path(segs)
