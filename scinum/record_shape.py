"""A checked copy of a record, with its *shape* and its leaves (what fill prepares from).

:func:`checked_copy` copies a JSON value's containers, checks that it is strict JSON and lists
its shape (keys, strings, list bounds, leaf kinds: all but the numbers' values) and its numbers
and nulls in document order. Records of one shape tokenize alike except for those values, so
:class:`scinum.infer.Model` resolves masks and encodes once per shape.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .paths import flatten
from .records import MAX_DEPTH

__all__ = ["NotJSON", "checked_copy", "leaf_paths", "null_paths", "NULL"]


class NotJSON(Exception):
    """Raised by :func:`checked_copy` at the first value that is not strict JSON (located afterwards
    by :func:`scinum.records.check_record`)."""


def checked_copy(node: Any, depth: int, shape: list, leaves: list) -> Any:
    """Copy the containers of a JSON value (leaves are immutable) in one pass that also checks
    it: raises :class:`NotJSON` at a non-finite float, a non-JSON value or nesting deeper than
    :data:`~scinum.records.MAX_DEPTH`. NumPy scalars (``np.float64(1.5)``, ``np.int64(3)``)
    become the Python numbers they hold, tuples lists and mappings (``OrderedDict``) dicts, as
    :func:`~scinum.records.check_record` accepts them.

    Also appends to ``shape`` the record's structure (keys, strings, list bounds, the kind of
    each leaf: everything but the numbers' values) and to ``leaves`` its numbers and nulls in
    document order: two records with equal shapes tokenize alike but for those values."""
    if depth > MAX_DEPTH:
        raise NotJSON
    t = type(node)
    if t is dict:
        shape.append(_OPEN)
        out = {}
        for k, v in node.items():
            if type(k) is not str:
                raise NotJSON
            shape.append(k)
            out[k] = checked_copy(v, depth + 1, shape, leaves)
        shape.append(_CLOSE)
        return out
    if t is list:
        shape.append(_LIST)
        if depth < MAX_DEPTH and node and all(type(v) is float for v in node):  # no recursion
            if not all(v - v == 0.0 for v in node):  # inf or NaN
                raise NotJSON
            shape.extend([_FLOAT] * len(node))
            leaves.extend(node)
            shape.append(_END)
            return list(node)
        out = [checked_copy(v, depth + 1, shape, leaves) for v in node]
        shape.append(_END)
        return out
    if t is float:
        if node - node != 0.0:  # inf or NaN
            raise NotJSON
        shape.append(_FLOAT)
        leaves.append(node)
        return node
    if t is int:
        shape.append(_INT)
        leaves.append(node)
        return node
    if node is None:
        shape.append(NULL)
        leaves.append(None)
        return node
    if t is bool:
        shape.append(_TRUE if node else _FALSE)
        return node
    if t is str:
        shape.append(_STR)
        shape.append(node)
        return node
    if isinstance(node, np.generic) and isinstance(node.item(), (int, float, bool)):
        return checked_copy(node.item(), depth, shape, leaves)
    if isinstance(node, dict):  # OrderedDict, defaultdict...: copied as the plain dict it is
        return checked_copy(dict(node), depth, shape, leaves)
    if isinstance(node, tuple):  # a tuple is a JSON list (as json.dumps writes it)
        return checked_copy(list(node), depth, shape, leaves)
    raise NotJSON


# shape markers of checked_copy (ints: never equal to a key or string, which are str)
_OPEN, _CLOSE, _LIST, _END, _FLOAT, _INT, NULL, _TRUE, _FALSE, _STR = range(10)


def leaf_paths(node: Any) -> list[tuple]:
    """Paths of the numbers and nulls of a JSON value, in document order (as :func:`checked_copy` lists
    their values)."""
    return [p for p, v in flatten(node) if v is None or type(v) in (int, float)]


def null_paths(node: Any) -> list[tuple]:
    """Paths of the ``null`` leaves of a JSON value (the fill placeholders)."""
    return [p for p, v in flatten(node) if v is None]
