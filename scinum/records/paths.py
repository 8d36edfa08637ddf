"""JSON field paths: parse, format, match (with ``*``), flatten/unflatten records.

A path is a tuple of segments: ``str`` object keys, ``int`` list indices (negative counts from
the end) and the wildcards :data:`ANY_KEY` (``.*``, any one key) and :data:`ANY_INDEX` (``[*]``,
any one list index). Text form::

    description.planet0.m      data[3][1][0]      data[-1][*]      description.*

Keys that are not plain identifiers are written quoted in brackets: ``["odd.key"]``.
A *field* is a path with every list index replaced by ``[*]`` (``data[*][*][0]``): the unit of
normalization and of per-field metrics.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Iterator, Union

from ..errors import PathSyntaxError, RecordError

__all__ = [
    "ANY_KEY",
    "ANY_INDEX",
    "JsonPath",
    "numbers_named",
    "parse_path",
    "format_path",
    "field_of",
    "matches",
    "select",
    "flatten",
    "unflatten",
    "get",
    "set_value",
]


class Wildcard:
    """A wildcard segment: ``kind`` is ``"key"`` (text ``.*``) or ``"index"`` (text ``[*]``)."""

    __slots__ = ("kind",)

    def __init__(self, kind: str):
        self.kind = kind

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Wildcard) and other.kind == self.kind

    def __hash__(self) -> int:
        return hash(("Wildcard", self.kind))

    def __repr__(self) -> str:
        return "ANY_KEY" if self.kind == "key" else "ANY_INDEX"


ANY_KEY = Wildcard("key")
ANY_INDEX = Wildcard("index")
Segment = Union[str, int, Wildcard]
#: a parsed JSON path: a tuple of segments (keys, indices, wildcards), e.g. ("data", -1, ANY_INDEX)
JsonPath = tuple

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_INDEX = re.compile(r"\[(-?\d+|\*)\]")


def parse_path(text: str) -> JsonPath:
    """Parse ``"data[-1][*]"`` into ``("data", -1, ANY_INDEX)``. The empty string is the root ``()``."""
    segs: list[Segment] = []
    i, n = 0, len(text)
    expect_key = True  # at start or after a dot
    while i < n:
        c = text[i]
        if c == "[":
            if text.startswith('["', i):
                try:
                    key, end = json.JSONDecoder().raw_decode(text, i + 1)
                except json.JSONDecodeError:
                    raise PathSyntaxError(f"bad quoted key at column {i + 1} in {text!r}") from None
                if not isinstance(key, str) or not text.startswith("]", end):
                    raise PathSyntaxError(f"bad quoted key at column {i + 1} in {text!r}")
                segs.append(key)
                i = end + 1
            else:
                m = _INDEX.match(text, i)
                if not m:
                    raise PathSyntaxError(f"bad index at column {i + 1} in {text!r}")
                segs.append(ANY_INDEX if m.group(1) == "*" else int(m.group(1)))
                i = m.end()
            expect_key = False
        elif c == ".":
            if expect_key:
                raise PathSyntaxError(f"empty key at column {i + 1} in {text!r}")
            i += 1
            expect_key = True
            if i == n:
                raise PathSyntaxError(f"path ends with '.' in {text!r}")
        else:
            if not expect_key:
                raise PathSyntaxError(f"expected '.' or '[' at column {i + 1} in {text!r}")
            if c == "*":
                segs.append(ANY_KEY)
                i += 1
            else:
                m = IDENTIFIER.match(text, i)
                if not m:
                    raise PathSyntaxError(f"bad key at column {i + 1} in {text!r} (quote unusual keys as [\"key\"])")
                segs.append(m.group(0))
                i = m.end()
            expect_key = False
    return tuple(segs)


def format_path(path: Iterable[Segment]) -> str:
    """Inverse of :func:`parse_path`: ``("data", -1, ANY_INDEX)`` -> ``"data[-1][*]"``."""
    out: list[str] = []
    for seg in path:
        if seg == ANY_KEY:
            out.append(".*" if out else "*")
        elif seg == ANY_INDEX:
            out.append("[*]")
        elif isinstance(seg, bool) or not isinstance(seg, (str, int)):
            raise TypeError(f"bad path segment {seg!r}")
        elif isinstance(seg, int):
            out.append(f"[{seg}]")
        elif IDENTIFIER.fullmatch(seg):
            out.append(f".{seg}" if out else seg)
        else:
            out.append("[" + json.dumps(seg, ensure_ascii=False) + "]")
    return "".join(out)


def field_of(path: JsonPath | str) -> str:
    """The field of a concrete path: every list index becomes ``[*]`` (``data[*][*][*]``)."""
    if isinstance(path, str):
        path = parse_path(path)
    return format_path(tuple(ANY_INDEX if isinstance(s, int) else s for s in path))


def matches(pattern: JsonPath | str, path: JsonPath, lengths: tuple | None = None) -> bool:
    """Whether concrete ``path`` matches ``pattern`` (same depth; ``.*`` matches any one key,
    ``[*]`` any one index).

    Negative indices in the pattern need ``lengths``: the length of each list along ``path``
    (``None`` at object segments), as :func:`select` provides.
    """
    if isinstance(pattern, str):
        pattern = parse_path(pattern)
    if len(pattern) != len(path):
        return False
    for k, (p, s) in enumerate(zip(pattern, path)):
        if p == ANY_KEY or p == ANY_INDEX:
            if isinstance(s, int) != (p == ANY_INDEX):
                return False
            continue
        if isinstance(p, int) and p < 0:
            if lengths is None or lengths[k] is None or not isinstance(s, int):
                return False
            if lengths[k] + p != s:
                return False
        elif p != s or isinstance(p, int) != isinstance(s, int):
            return False
    return True


def select(record: Any, pattern: JsonPath | str) -> list[JsonPath]:
    """Concrete paths (non-negative indices) of the nodes of ``record`` that ``pattern`` names,
    in document order. A node may be a leaf or a container."""
    if isinstance(pattern, str):
        pattern = parse_path(pattern)
    found: list[JsonPath] = []

    def walk(node: Any, k: int, prefix: JsonPath) -> None:
        if k == len(pattern):
            found.append(prefix)
            return
        seg = pattern[k]
        if isinstance(node, dict):
            if seg == ANY_KEY:
                for key, v in node.items():
                    walk(v, k + 1, prefix + (key,))
            elif isinstance(seg, str) and seg in node:
                walk(node[seg], k + 1, prefix + (seg,))
        elif isinstance(node, list):
            if seg == ANY_INDEX:
                for i, v in enumerate(node):
                    walk(v, k + 1, prefix + (i,))
            elif isinstance(seg, int) and -len(node) <= seg < len(node):
                i = seg % len(node)
                walk(node[i], k + 1, prefix + (i,))

    walk(record, 0, ())
    return found


def _is_number_or_null(v: Any) -> bool:
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))


def numbers_named(record: Any, pattern: JsonPath | str) -> list[JsonPath]:
    """Concrete paths of the numbers a mask ``pattern`` names, in document order: each node it
    selects if that is a number, or every number under it if it is an object or list. ``null``
    leaves count as numbers (they are fill's placeholders).

    Raises :class:`~scinum.errors.RecordError` (naming the path) if the pattern is malformed,
    selects nothing, or names a string/bool or a container that holds no number.
    """
    text = pattern if isinstance(pattern, str) else format_path(pattern)
    try:
        nodes = select(record, parse_path(pattern) if isinstance(pattern, str) else pattern)
    except PathSyntaxError as e:
        raise RecordError(f"bad mask {text!r}: {e.reason}") from None
    if not nodes:
        raise RecordError(f"mask {text!r} matches no field of the record")
    out: list[JsonPath] = []
    for node in nodes:
        value = get(record, node)
        if _is_number_or_null(value):
            out.append(node)
        elif isinstance(value, (dict, list)):
            leaves = [node + p for p, v in flatten(value) if _is_number_or_null(v)]
            if not leaves:
                raise RecordError(f"mask {text!r} names a {type(value).__name__} that holds no number", path=format_path(node))
            out.extend(leaves)
        else:
            raise RecordError(f"mask {text!r} names a {type(value).__name__}, not a number", path=format_path(node))
    return out


def flatten(record: Any) -> list[tuple[JsonPath, Any]]:
    """Leaves of a record as ``(path, value)`` in document order.

    A leaf is a scalar (number, string, bool, null) or an empty container (``[]``/``{}``), so
    that :func:`unflatten` can rebuild the record exactly.
    """
    return list(_iter_leaves(record, ()))


def _iter_leaves(node: Any, prefix: JsonPath) -> Iterator[tuple[JsonPath, Any]]:
    if isinstance(node, dict) and node:
        for k, v in node.items():
            yield from _iter_leaves(v, prefix + (k,))
    elif isinstance(node, list) and node:
        for i, v in enumerate(node):
            yield from _iter_leaves(v, prefix + (i,))
    else:
        yield prefix, (type(node)() if isinstance(node, (dict, list)) else node)


def unflatten(leaves: Iterable[tuple[JsonPath, Any]]) -> Any:
    """Rebuild a record from :func:`flatten` output (list indices must come in order 0, 1, ...)."""
    root: Any = None
    for path, value in leaves:
        if not path:
            return value
        if root is None:
            root = [] if isinstance(path[0], int) else {}
        node = root
        for seg, nxt in zip(path[:-1], path[1:]):
            child_type = list if isinstance(nxt, int) else dict
            node = _child(node, seg, child_type, path)
        _put(node, path[-1], value, path)
    return {} if root is None else root


def _child(node: Any, seg: Segment, child_type: type, path: JsonPath) -> Any:
    if isinstance(node, dict):
        if seg not in node:
            node[seg] = child_type()
        return node[seg]
    if seg == len(node):
        node.append(child_type())
    elif not (isinstance(seg, int) and 0 <= seg < len(node)):
        raise RecordError(f"list index {seg} out of order", path=format_path(path))
    return node[seg]


def _put(node: Any, seg: Segment, value: Any, path: JsonPath) -> None:
    if isinstance(node, dict):
        node[seg] = value
    elif seg == len(node):
        node.append(value)
    else:
        raise RecordError(f"list index {seg} out of order", path=format_path(path))


def get(record: Any, path: JsonPath | str) -> Any:
    """The value at a concrete path (``KeyError``/``IndexError`` names the path if absent)."""
    if isinstance(path, str):
        path = parse_path(path)
    node = record
    for seg in path:
        try:
            node = node[seg]
        except (KeyError, IndexError, TypeError):
            raise KeyError(f"no value at path {format_path(path)}") from None
    return node


def set_value(record: Any, path: JsonPath | str, value: Any) -> None:
    """Replace the value at an existing concrete path, in place."""
    if isinstance(path, str):
        path = parse_path(path)
    if not path:
        raise ValueError("cannot replace the root of a record")
    get(record, path[:-1])[path[-1]] = value
