"""Strict JSON and JSONL reading/writing of records.

Python's ``json`` is permissive in ways that silently corrupt numeric data: it accepts ``NaN``
and ``Infinity``, turns ``1e400`` into ``inf`` and keeps only the last of duplicated keys.
Here each of those is an error that names the file, line and JSON path.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import zlib
from pathlib import Path
from typing import Any, Iterator

import orjson

from ..errors import MalformedJSON

__all__ = ["loads", "dumps", "read_jsonl", "open_text", "check_record", "MAX_DEPTH", "MAX_SAFE_INT"]

#: deepest nesting of objects/lists a record may have: deeper ones are an error naming the path
#: (scientific records are a few levels deep; the limit keeps every recursive walk safe)
MAX_DEPTH = 256
#: integers beyond +-2**53 are not all exactly float64 (the codec refuses them as numbers)
MAX_SAFE_INT = 2**53


def _reject_constant(name: str) -> Any:
    raise MalformedJSON(f"non-standard JSON literal {name!r} (NaN/Infinity are not JSON numbers)")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):  # a key came twice: name the first one that did
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise MalformedJSON(f"duplicate key {k!r} in one object")
            seen.add(k)
    return out


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)


def check_record(record: Any) -> None:
    """Raise :class:`MalformedJSON` unless ``record`` is a JSON object of finite numbers, nested
    at most :data:`MAX_DEPTH` deep.

    The error names the JSON path of the first offending value. A record that passes is walked
    once, without building paths (:func:`_plain`); only one that fails is walked again to name
    where (parsing a JSONL line took 0.4 ms of checking a record before)."""
    if type(record) is not dict or not _plain(record, 0):
        _locate(record)


def _plain(node: Any, depth: int) -> bool:
    """Whether ``node`` (at ``depth``) is strict JSON of finite numbers whose values all sit at
    most :data:`MAX_DEPTH` deep: dicts with string keys, lists and tuples, str, bool, int, finite
    float, None. False sends :func:`check_record` to :func:`_locate`."""
    t = type(node)
    if t is dict:
        if depth >= MAX_DEPTH:
            return not node
        for k, v in node.items():
            if type(k) is not str:
                return False
            tv = type(v)
            if tv is float:
                if v - v != 0.0:  # inf or NaN
                    return False
            elif tv not in _SCALARS and not _plain(v, depth + 1):
                return False
        return True
    if t is list or t is tuple:
        if depth >= MAX_DEPTH:
            return not node
        for v in node:
            tv = type(v)
            if tv is float:
                if v - v != 0.0:
                    return False
            elif tv not in _SCALARS and not _plain(v, depth + 1):
                return False
        return True
    if t is float:
        return node - node == 0.0
    return t in _SCALARS


#: leaf types that need no check (float does: it may be inf or NaN)
_SCALARS = frozenset((str, bool, int, type(None)))


def _locate(record: Any) -> None:
    """:func:`check_record`'s walk that names the path of the first offending value (raises)."""
    from .paths import format_path  # local: paths imports nothing from here

    if not isinstance(record, dict):
        raise MalformedJSON(f"top level must be a JSON object, got {type(record).__name__}")
    stack: list[tuple[tuple, Any]] = [((), record)]
    while stack:
        path, node = stack.pop()
        if len(path) > MAX_DEPTH:
            raise MalformedJSON(f"nesting deeper than {MAX_DEPTH} levels", path=format_path(path[:4]) + "…")
        if isinstance(node, dict):
            for k, v in node.items():
                if not isinstance(k, str):
                    raise MalformedJSON(f"object key {k!r} is not a string", path=format_path(path))
                stack.append((path + (k,), v))
        elif isinstance(node, (list, tuple)):
            stack.extend((path + (i,), v) for i, v in enumerate(node))
        elif isinstance(node, float) and not math.isfinite(node):
            raise MalformedJSON(f"non-finite number {node!r} (overflow or NaN/Infinity)", path=format_path(path))
        elif not (node is None or type(node) in (str, bool, int, float)):
            kind = type(node)
            raise MalformedJSON(
                f"{kind.__module__}.{kind.__name__} is not a JSON value (convert it to a Python int/float/str)", path=format_path(path)
            )


def loads(text: str, *, file: str | None = None, line: int | None = None) -> dict:
    """Parse one JSON object strictly (see module docstring); errors carry ``file``/``line``."""
    if text.startswith("\ufeff"):
        raise MalformedJSON("the line starts with a byte-order mark (U+FEFF): save the file as UTF-8 without BOM", file=file, line=line)
    try:
        record, end = _DECODER.raw_decode(text.strip())
        if end != len(text.strip()):
            raise MalformedJSON(f"extra data after the JSON value at column {end + 1}")
        check_record(record)
    except MalformedJSON as e:
        raise e.located(file=file, line=line) from None
    except json.JSONDecodeError as e:
        raise MalformedJSON(f"invalid JSON: {e.msg} at column {e.colno}", file=file, line=line) from None
    except RecursionError:
        raise MalformedJSON(f"nesting deeper than {MAX_DEPTH} levels", file=file, line=line) from None
    return record


def dumps(record: dict) -> str:
    """Compact, deterministic JSON text of a record: non-ASCII characters as UTF-8, floats in
    shortest round-trip form (orjson's spelling: ``1e-7`` where Python's ``json`` writes
    ``1e-07``; both read back to the same float).

    orjson writes records much faster than ``json`` (building a dataset's largest cost after the
    simulation itself). It writes NaN and ±inf
    as ``null``, so a text holding ``null`` is checked (:func:`check_record`: a non-finite
    number is a :class:`MalformedJSON` naming its JSON path); what orjson cannot write (numpy
    scalars, integers beyond 64 bits...) goes through ``json``, which refuses NaN/Infinity too.
    """
    try:
        text = orjson.dumps(record)
    except TypeError:
        return json.dumps(record, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    if b"null" in text:
        check_record(record)
    return text.decode("utf-8")


def open_text(path: str | os.PathLike, mode: str = "rt"):
    """Open a text file, transparently gunzipping ``*.gz``."""
    path = Path(path)
    if path.suffix == ".gz":
        return gzip.open(path, mode, encoding="utf-8")
    return open(path, mode, encoding="utf-8")


def read_jsonl(path: str | os.PathLike) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, record)`` for each non-blank line of a JSONL(.gz) file (1-based).
    A damaged file (a corrupt or truncated ``.gz``, bytes that are not UTF-8) is a
    :class:`MalformedJSON` naming the file and the line it could not read."""
    n = 0
    try:
        with open_text(path) as f:
            for n, text in enumerate(f, start=1):
                if text.strip():
                    yield n, loads(text, file=str(path), line=n)
    except UnicodeDecodeError as e:
        raise MalformedJSON(f"not UTF-8 text ({e.reason})", file=str(path), line=n + 1) from None
    except (EOFError, zlib.error, gzip.BadGzipFile) as e:
        raise MalformedJSON(f"damaged or truncated file, unreadable after line {n} ({e})", file=str(path)) from None
