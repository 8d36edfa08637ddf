"""Config fields that say what values they take: the metadata :func:`scinum.config.validate_config`
reads from the config dataclasses (:mod:`scinum.config`, :class:`scinum.model.ModelConfig`).

A field's type comes from its annotation; numbers must be finite and >= 0 unless the field is
:func:`signed`. ``check(value) -> None | "what was expected"`` adds a constraint on a value of the
right type; ``choices`` (names, or a function returning them: a registry's) limits a string.
"""
from __future__ import annotations

from dataclasses import field
from typing import Any, Callable, Iterable

__all__ = ["positive", "fraction", "signed", "one_of", "checked"]


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


def signed(default: Any) -> Any:
    """A number that may be negative (a seed)."""
    return field(default=default, metadata={"signed": True})


def one_of(default: Any, choices: Iterable[str] | Callable[[], Iterable[str]], what: str) -> Any:
    """A name from ``choices`` (or ``None`` where the type allows it); ``what`` names the kind
    in the error (``"normalizer"``)."""
    return field(default=default, metadata={"choices": choices, "what": what})


def checked(check: Callable[[Any], str | None], default: Any = None,
            factory: Callable[[], Any] | None = None) -> Any:
    """A field with its own ``check``; ``factory`` for a mutable default (a list)."""
    if factory is not None:
        return field(default_factory=factory, metadata={"check": check})
    return field(default=default, metadata={"check": check})
