"""Typed config sections: dataclasses whose fields say what values they take, their defaults as
dicts, and the check of a config dict against them (what :func:`scinum.train.config.validate_config`
runs over :class:`scinum.train.config.RunConfig`, :class:`scinum.model.config.ModelConfig` among its sections).

A field's type comes from its annotation; numbers must be finite and >= 0.
``check(value) -> None | "what was expected"`` adds a constraint on a value of the right type;
``choices`` limits a string.
"""

from __future__ import annotations

import math
from dataclasses import MISSING, field, fields, is_dataclass
from functools import cache
from types import NoneType, UnionType
from typing import Any, Callable, Sequence, Union, get_args, get_origin, get_type_hints

from ..errors import ConfigError, ConfigKeyError, brief

__all__ = [
    "positive",
    "fraction",
    "in_unit_interval",
    "one_of",
    "checked",
    "section_keys",
    "section_defaults",
    "check_section",
    "check_choice",
    "fail",
]


def _number(v: Any) -> bool:
    return type(v) in (int, float)


def above_zero(v: Any) -> str | None:
    return "a number > 0" if _number(v) and not v > 0 else None


def in_unit_interval(v: Any) -> str | None:
    return "a number in [0, 1]" if _number(v) and not 0 <= v <= 1 else None


def positive(default: Any) -> Any:
    """A count or size that must be > 0 (one that is 0 or less would never end a run)."""
    return field(default=default, metadata={"check": above_zero})


def fraction(default: float) -> Any:
    """A probability or ratio in [0, 1]."""
    return field(default=default, metadata={"check": in_unit_interval})


def one_of(default: Any, choices: Sequence[str], what: str) -> Any:
    """A name from ``choices`` (or ``None`` where the type allows it); ``what`` names the kind
    in the error (``"normalizer"``)."""
    return field(default=default, metadata={"choices": choices, "what": what})


def checked(check: Callable[[Any], str | None], default: Any = None, factory: Callable[[], Any] | None = None) -> Any:
    """A field with its own ``check``; ``factory`` for a mutable default (a list)."""
    if factory is not None:
        return field(default_factory=factory, metadata={"check": check})
    return field(default=default, metadata={"check": check})


@cache
def section_keys(cls: type) -> dict[str, tuple[Any, dict]]:
    """The config keys of a section dataclass: name -> (type, field metadata)."""
    hints = get_type_hints(cls)
    return {f.name: (hints[f.name], dict(f.metadata)) for f in fields(cls) if f.name not in getattr(cls, "DERIVED", ())}


def section_defaults(cls: type) -> dict[str, Any]:
    """The default config of a section dataclass (nested sections as dicts): fresh copies."""
    out: dict[str, Any] = {}
    by_name = {f.name: f for f in fields(cls)}
    for name, (hint, _) in section_keys(cls).items():
        f = by_name[name]
        if isinstance(hint, type) and is_dataclass(hint):
            out[name] = section_defaults(hint)
        else:
            out[name] = f.default_factory() if f.default_factory is not MISSING else f.default
    return out


def fail(key: str, value: Any, expected: str) -> None:
    """Raise the one-line :class:`~scinum.errors.ConfigError` ``config: KEY = VALUE: expected ...``."""
    raise ConfigError(f"config: {key} = {brief(value)}: expected {expected}")


def _is(value: Any, hint: Any) -> bool:
    """Whether ``value`` (parsed YAML) has type ``hint``; an int is a float, a bool no number."""
    origin = get_origin(hint)
    if origin in (Union, UnionType):
        return any(_is(value, h) for h in get_args(hint))
    if origin is list:
        return isinstance(value, list) and all(_is(v, get_args(hint)[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict)
    if hint in (int, float, bool):
        return type(value) in ((int, float) if hint is float else (hint,))
    return hint is Any or isinstance(value, hint)


def _type_name(hint: Any) -> str:
    if get_origin(hint) in (Union, UnionType):
        return " or ".join(_type_name(h) for h in get_args(hint))
    if get_origin(hint) is list:
        return f"list of {_type_name(get_args(hint)[0])}"
    hint = get_origin(hint) or hint
    return {NoneType: "null", dict: "mapping"}.get(hint, getattr(hint, "__name__", str(hint)))


def check_choice(key: str, value: Any, choices: Sequence[str], what: str) -> None:
    """Raise :class:`~scinum.errors.ConfigError` naming the choices unless ``value`` is one."""
    if value not in choices:
        raise ConfigError(f"config: {key} = {brief(value)}: not a {what}; choices: {', '.join(choices)}")


def check_section(node: Any, schema: type, where: str) -> None:
    """``node`` against the section dataclass ``schema``: known keys, types, ranges, choices."""
    if not isinstance(node, dict):
        fail(where, node, "a mapping")
    keys = section_keys(schema)
    for k, value in node.items():
        key = f"{where}.{k}" if where else k
        if k not in keys:
            raise ConfigKeyError(f"config: {key}: unknown key; choices: {', '.join(keys)}")
        hint, meta = keys[k]
        if isinstance(hint, type) and is_dataclass(hint):
            check_section(value, hint, key)
            continue
        if not _is(value, hint):
            fail(key, value, f"a value of type {_type_name(hint)}")
        if type(value) in (int, float) and not math.isfinite(value):
            fail(key, value, "a finite number")
        why = meta["check"](value) if "check" in meta else None
        if why is None and type(value) in (int, float) and value < 0:
            why = "a number >= 0"
        if why is not None:
            fail(key, value, why)
        if "choices" in meta and isinstance(value, str):
            check_choice(key, value, meta["choices"], meta["what"])
