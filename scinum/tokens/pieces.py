"""A record as *pieces* in document order: the walk every tokenization starts from.

A piece is a bracket run, an object key, a string, a literal (``true``/``false``/``null``) or a
number; :func:`pieces` lists them with the field of each number (the text
:func:`scinum.records.paths.field_of` gives, by the same identifier rule). :mod:`scinum.tokens.codec` turns
pieces into tokens.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import MalformedJSON
from ..records.paths import IDENTIFIER
from ..records.strict import check_record

__all__ = ["RUN", "KEY", "STR", "LIT", "NUMBER", "Invalid", "pieces", "checked_pieces", "key_text", "field_child"]

RUN, KEY, STR, LIT, NUMBER = range(5)
_KEY_TEXT: dict[str, str] = {}
_FIELD_CHILD: dict[tuple[str, str], str] = {}
_MEMO_LIMIT = 100_000


class Invalid(Exception):
    """Raised by :func:`pieces` on a non-JSON value; callers locate it with check_record."""


def key_text(k: str) -> str:
    """The token text of an object key: ``"key":``."""
    t = _KEY_TEXT.get(k)
    if t is None:
        t = json.dumps(k, ensure_ascii=False) + ":"
        if len(_KEY_TEXT) < _MEMO_LIMIT:
            _KEY_TEXT[k] = t
    return t


def field_child(parent: str, k: str) -> str:
    """Field string of key ``k`` under field ``parent`` — the text :func:`paths.field_of` gives."""
    f = _FIELD_CHILD.get((parent, k))
    if f is None:
        if IDENTIFIER.fullmatch(k):
            f = f"{parent}.{k}" if parent else k
        else:
            f = parent + "[" + json.dumps(k, ensure_ascii=False) + "]"
        if len(_FIELD_CHILD) < _MEMO_LIMIT:
            _FIELD_CHILD[(parent, k)] = f
    return f


def pieces(record: Any, with_paths: bool = False) -> tuple[list[int], list, list, list | None]:
    """The pieces of a record in document order, as parallel lists ``(kinds, items, fields, paths)``.

    ``kinds``: RUN/KEY/STR/LIT/NUMBER; ``items``: token text (the number itself for NUMBER);
    ``fields``: the field string of each number (None elsewhere); ``paths`` (only with
    ``with_paths``): the JSON path tuple of each piece (for runs: where the run ends).
    Consecutive brackets merge into one RUN piece. Raises :class:`Invalid` on non-JSON values.
    """
    kinds: list[int] = []
    items: list = []
    fields: list = []
    paths: list | None = [] if with_paths else None
    run: list[str] = []
    stack: list = []

    def emit(kind: int, item, field) -> None:
        kinds.append(kind)
        items.append(item)
        fields.append(field)
        if paths is not None:
            paths.append(tuple(stack))

    def flush() -> None:
        if run:
            emit(RUN, "".join(run), None)
            run.clear()

    def walk(node, field: str) -> None:
        t = type(node)
        if t is dict or (t is not list and isinstance(node, dict)):
            run.append("{")
            for k, v in node.items():
                if type(k) is not str:
                    raise Invalid
                flush()
                if paths is not None:
                    stack.append(k)
                emit(KEY, key_text(k), None)
                walk(v, field_child(field, k))
                if paths is not None:
                    stack.pop()
            run.append("}")
        elif t is list or isinstance(node, (list, tuple)):
            run.append("[")
            child = field + "[*]"
            if paths is None:
                for v in node:
                    walk(v, child)
            else:
                for i, v in enumerate(node):
                    stack.append(i)
                    walk(v, child)
                    stack.pop()
            run.append("]")
        else:
            flush()
            if node is None:
                emit(LIT, "null", None)
            elif t is bool:
                emit(LIT, "true" if node else "false", None)
            elif t is float or t is int:
                if t is float and node - node != 0:  # inf or nan
                    raise Invalid
                emit(NUMBER, node, field)
            elif t is str:
                emit(STR, json.dumps(node, ensure_ascii=False), None)
            else:
                raise Invalid

    if type(record) is not dict:
        raise Invalid
    walk(record, "")
    flush()
    return kinds, items, fields, paths


def checked_pieces(record: Any, with_paths: bool = False):
    """:func:`pieces`, turning a non-JSON value into check_record's located MalformedJSON."""
    try:
        return pieces(record, with_paths)
    except Invalid:
        check_record(record)
        raise MalformedJSON("not a JSON object of finite numbers") from None
