"""A checked copy of a record, with its *shape* and its leaves (what fill prepares from).

:func:`checked_copy` copies a JSON value's containers, checks that it is strict JSON and lists
its shape (keys, strings, list bounds, leaf kinds: all but the numbers' values) and its numbers
and nulls in document order. Records of one shape tokenize alike except for those values, so
:class:`scinum.fill.model.Model` resolves masks and encodes once per shape.
"""

from __future__ import annotations

import marshal
from functools import partial
from itertools import chain
from operator import is_
from typing import Any

import numpy as np

from .paths import flatten
from .strict import MAX_DEPTH, MAX_SAFE_INT as _MAX_SAFE_INT  # larger integers are not exactly float64

__all__ = ["NotJSON", "checked_copy", "leaf_paths", "null_paths", "NULL"]


class NotJSON(Exception):
    """Raised by :func:`checked_copy` at the first value that is not strict JSON (located afterwards
    by :func:`scinum.records.strict.check_record`)."""


def checked_copy(node: Any, depth: int, shape: list, leaves: list) -> Any:
    """Copy the containers of a JSON value (leaves are immutable) in one pass that also checks
    it: raises :class:`NotJSON` at a non-finite float, a non-JSON value or nesting deeper than
    :data:`~scinum.records.strict.MAX_DEPTH`. NumPy scalars (``np.float64(1.5)``, ``np.int64(3)``)
    become the Python numbers they hold, tuples lists and mappings (``OrderedDict``) dicts, as
    :func:`~scinum.records.strict.check_record` accepts them.

    Also appends to ``shape`` the record's structure (keys, strings, list bounds, the kind of
    each leaf: everything but the numbers' values; an integer beyond 2^53, which no codec
    takes, is a kind of its own) and to ``leaves`` its numbers and nulls in document order: two
    records with equal shapes tokenize alike but for those values. An array of floats is one
    entry (:func:`_float_array`), so the shape stays short for numeric records."""
    if depth > MAX_DEPTH:
        raise NotJSON
    t = type(node)
    if t is dict:
        shape.append(_OPEN)
        out = {}
        for k, v in node.items():
            if type(k) is not str:
                raise NotJSON
            if type(v) is float and depth < MAX_DEPTH:  # the common leaf, inline
                if v - v != 0.0:  # inf or NaN
                    raise NotJSON
                shape += (k, _FLOAT)
                leaves.append(v)
                out[k] = v
            else:
                shape.append(k)
                out[k] = checked_copy(v, depth + 1, shape, leaves)
        shape.append(_CLOSE)
        return out
    if t is list:
        if node and depth < MAX_DEPTH and type(node[0]) in _ARRAY_ITEMS:
            array = _float_array(node, depth, shape, leaves)
            if array is not None:
                return array
        shape.append(_LIST)
        items = [checked_copy(v, depth + 1, shape, leaves) for v in node]
        shape.append(_END)
        return items
    if t is float:
        if node - node != 0.0:  # inf or NaN
            raise NotJSON
        shape.append(_FLOAT)
        leaves.append(node)
        return node
    if t is int:
        shape.append(_INT if -_MAX_SAFE_INT <= node <= _MAX_SAFE_INT else _BIG_INT)
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


def _float_array(node: list, depth: int, shape: list, leaves: list) -> list | None:
    """:func:`checked_copy` of a list at ``depth`` that is a (possibly ragged) array of finite
    floats, ``k`` levels of non-empty lists deep: one shape entry, the tuple ``(k, len(node),
    lengths of the lists of each deeper level...)`` (decodable, so two arrays share it only when
    they have one structure; a tuple is never a marker, key or string), its floats appended to
    ``leaves`` in document order. None (nothing appended) for any other list: the caller walks
    it. Iterates at C speed (numeric records are mostly such arrays). Raises :class:`NotJSON`
    for an array holding inf or NaN."""
    lengths: list = []
    items, k = node, 1
    while not all(map(_is_float, map(type, items))):
        if depth + k >= MAX_DEPTH or not all(map(_is_list, map(type, items))):
            return None  # floats past MAX_DEPTH: the walk raises at them
        n = list(map(len, items))
        if 0 in n:
            return None
        lengths += n
        items = list(chain.from_iterable(items))
        k += 1
    total = sum(items)  # finite unless some value is inf or NaN (or the sum overflows)
    if total - total != 0.0 and not all(v - v == 0.0 for v in items):
        raise NotJSON
    shape.append((k, len(node), *lengths))
    leaves += items
    return list(node) if k == 1 else marshal.loads(marshal.dumps(node))  # exact copy of floats


# shape markers of checked_copy (ints: never equal to a key or string, which are str)
_OPEN, _CLOSE, _LIST, _END, _FLOAT, _INT, NULL, _TRUE, _FALSE, _STR, _BIG_INT = range(11)
_is_float, _is_list = partial(is_, float), partial(is_, list)
_ARRAY_ITEMS = (float, list)


def leaf_paths(node: Any) -> list[tuple]:
    """Paths of the numbers and nulls of a JSON value, in document order (as :func:`checked_copy` lists
    their values)."""
    return [p for p, v in flatten(node) if v is None or type(v) in (int, float)]


def null_paths(node: Any) -> list[tuple]:
    """Paths of the ``null`` leaves of a JSON value (the fill placeholders)."""
    return [p for p, v in flatten(node) if v is None]
