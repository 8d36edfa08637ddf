"""The head registry: a head *kind* (what a config's ``head.kind`` names) -> a
:class:`~scinum.heads.NumberHead` subclass whose ``build`` makes the head. Built in: ``"native"``
and ``"mixture"``; other packages add kinds through the ``scinum.heads`` entry-point group
(:mod:`scinum.plugins`)."""

from __future__ import annotations

import inspect
from typing import Any

from ..plugins import Registry
from .base import HeadOutputs, NumberHead
from .mixture import MixtureHead


class NativeHead(NumberHead):
    """The kind ``"native"``: :meth:`build` makes the encoding's own head
    (:meth:`~scinum.encodings.NumberEncoding.make_head`), whose class then declares its outputs.
    Never instantiated itself."""

    @classmethod
    def build(cls, encoding: Any, d_model: int, vocab: Any = None, **options: Any) -> NumberHead:
        check_options(encoding, {"kind": "native", **options})
        return encoding.make_head(d_model, vocab, **options)


def _check(cls: Any, name: str) -> None:
    if not (isinstance(cls, type) and issubclass(cls, NumberHead)):
        raise TypeError(f"scinum.heads plug-in {name!r} is {cls!r}, not a NumberHead subclass")


#: head kind -> NumberHead subclass; reads the ``scinum.heads`` entry points on a miss
REGISTRY: Registry[type[NumberHead]] = Registry("scinum.heads", "number head kind", _check)
REGISTRY.register("native", NativeHead)
REGISTRY.register("mixture", MixtureHead)


def lookup(kind: "str | type[NumberHead]") -> type[NumberHead]:
    """The head class of a kind (a name, or the class itself); raises
    :class:`~scinum.plugins.PluginNotFound` naming the entry point to install."""
    return REGISTRY.resolve(kind)[1]


def declared(config: dict[str, Any] | None) -> HeadOutputs:
    """The outputs a head config's kind declares without building it (``"native"``: the
    default declaration; a built head's class has the full one)."""
    return lookup((config or {}).get("kind", "native")).outputs


def make_head(encoding: Any, d_model: int, config: dict[str, Any] | None = None, vocab: Any = None) -> NumberHead:
    """The number head a config names: ``{"kind": KIND, **options}``, KIND a name in the head
    registry — ``"native"`` (the encoding's own head; BitTokens' takes ``point`` and
    ``mse_weight``), ``"mixture"`` (``n_components, sigma_min, point, init_range, mse_weight, location``;
    for encodings that write a number as one token) or a plug-in's. ``vocab``: the model's
    vocabulary (heads that read tokens need it). A kind that does not take an option, or does not
    fit the encoding, raises ``ValueError``."""
    config = dict(config or {"kind": "native"})
    cls = lookup(config.get("kind", "native"))
    if cls is not NativeHead:  # NativeHead.build checks its own
        check_options(encoding, config)
    config.pop("kind", None)
    return cls.build(encoding, d_model, vocab, **config)


def check_options(encoding: Any, config: dict[str, Any] | None) -> None:
    """Raise ``ValueError`` unless the head kind ``config`` names takes its options (for
    ``"native"``: the encoding's ``make_head``) and fits ``encoding``
    (:meth:`NumberHead.check_encoding`); builds nothing."""
    config = dict(config or {"kind": "native"})
    kind = config.pop("kind", "native")
    cls = lookup(kind)
    try:
        if cls is NativeHead:
            inspect.signature(encoding.make_head).bind(0, None, **config)
        else:
            inspect.signature(cls.build).bind(encoding, 0, None, **config)
            if inspect.getattr_static(cls, "build") is inspect.getattr_static(NumberHead, "build"):  # build not overridden
                inspect.signature(cls).bind(0, **config)
    except TypeError:
        what = f"native head of {encoding.name}" if cls is NativeHead else f"{kind} head"
        raise ValueError(f"the {what} takes no option(s) {sorted(config)}") from None
    if cls is not NativeHead:
        cls.check_encoding(encoding)


def model_label(encoding: str, head: dict[str, Any] | None) -> str:
    """The name ``scinum evaluate`` gives a model by default: its encoding's name, plus
    ``+<label>`` for a head kind other than ``"native"`` (the label the kind declares: ``gmm``
    for the mixture head; a kind not installed here, or that declares none: the kind)."""
    kind = (head or {}).get("kind", "native")
    if kind == "native":
        return encoding
    try:
        label = lookup(kind).outputs.label
    except ValueError:  # PluginNotFound: a plug-in that is not installed here
        label = None
    return f"{encoding}+{label or kind}"
