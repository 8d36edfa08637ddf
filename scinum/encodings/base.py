"""The number-encoding interface and its registry.

Every number representation is a :class:`NumberEncoding` — the single-token encodings (xVal,
FoNE, BitTokens) and the text baselines (P10, P1000, ...) alike — so that no module outside
``encodings/`` asks which kind it holds. An encoding says

* how a number is **spelled in tokens** (:meth:`~NumberEncoding.tokens`, ``tokens_per_number``,
  the number tokens it adds to the vocabulary, :meth:`~NumberEncoding.parse` to read them back):
  one ``[NUM]``/``[INT]`` token by default; the text baselines write the value as tokens;
* which **features** enter the transformer at a number (``dim`` per value, 0 for none), how they
  enter (``combine``) and how to decode them;
* its **native head** (:meth:`~NumberEncoding.make_head`): the model's prediction of a hidden
  number, with its loss;
* its **default normalizer**, and whether values may be normalized at all (``normalizable``).

An encoding is deterministic and parameter-free; the head holds the parameters. Values reaching
``encode`` are already normalized (see :mod:`scinum.tokens.normalize`). A new encoding is one file with
a ``@register``-ed subclass: nothing else in the project needs to change. An encoding in another
package is found through the ``scinum.encodings`` entry-point group (:mod:`scinum.plugins`):
``get("mine")`` loads it on first use.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import torch

from ..tokens.codec import Spelling
from ..errors import ValueOutOfRange
from ..plugins import Registry

__all__ = ["NumberEncoding", "register", "get", "from_config", "names", "lookup", "REGISTRY"]


def _check(cls: Any, name: str) -> None:
    if not (isinstance(cls, type) and issubclass(cls, NumberEncoding)):
        raise TypeError(f"scinum.encodings plug-in {name!r} is {cls!r}, not a NumberEncoding subclass")


#: name -> NumberEncoding subclass; reads the ``scinum.encodings`` entry points on a miss
REGISTRY: Registry[type["NumberEncoding"]] = Registry("scinum.encodings", "number encoding", _check)


class NumberEncoding(Spelling, ABC):
    """Interface every number encoding implements (one instance per model). Its spelling in
    tokens (:class:`~scinum.tokens.codec.Spelling`) is one ``[NUM]``/``[INT]`` token unless it says
    otherwise."""

    #: registry name, e.g. ``"xval"``
    name: ClassVar[str]
    #: ``"multiply"``: the [NUM] embedding is scaled by the single feature (xVal);
    #: ``"add"``: a linear map of the features is added to the [NUM] embedding (FoNE, BitTokens);
    #: ``"replace"``: the features, zero-padded to the model width and scaled to unit RMS
    #: (``sqrt(d_model/dim)``), take the place of the token embedding at a visible number (the
    #: BitTokens reference's ``zero_pad``); features must not be all zero at a number;
    #: ``"none"``: no features (``dim == 0``): the number's tokens carry it (text baselines).
    #: A class sets its default; an instance may choose another (BitTokens).
    combine: str
    #: normalizer method applied to values before encoding (see :mod:`scinum.tokens.normalize`)
    default_normalizer: ClassVar[str] = "none"
    #: False when values must reach the model as they are (text spells the raw value in tokens)
    normalizable: ClassVar[bool] = True

    @property
    @abstractmethod
    def dim(self) -> int:
        """Number of features per value (0: the encoding gives the trunk no features)."""

    @abstractmethod
    def encode(self, values: torch.Tensor) -> torch.Tensor:
        """``values`` float64[...] -> features float32[..., dim]. Values must be representable."""

    @abstractmethod
    def decode(self, features: torch.Tensor) -> torch.Tensor:
        """features[..., dim] -> float64[...]; ``decode(encode(x)) == x`` over the exact range."""

    @abstractmethod
    def representable(self, values: torch.Tensor) -> torch.Tensor:
        """bool[...]: which values lie in the encoding's exact (or documented) range."""

    @abstractmethod
    def make_head(self, d_model: int, vocab: Any = None) -> "torch.nn.Module":
        """The native number head (:class:`scinum.heads.NumberHead`) for hidden size ``d_model``
        (``vocab``: the model's :class:`~scinum.tokens.codec.Vocabulary`, for heads that read tokens)."""

    def options(self) -> dict[str, Any]:
        """Constructor options, JSON-able (saved in checkpoints)."""
        return {}

    def config(self) -> dict[str, Any]:
        """``{"name": ..., **options}``: enough for :func:`from_config` to rebuild it."""
        return {"name": self.name, **self.options()}

    def check(self, values: torch.Tensor) -> None:
        """Raise :class:`ValueOutOfRange` naming the first value not :meth:`representable`."""
        values = torch.as_tensor(values, dtype=torch.float64)
        ok = self.representable(values)
        if not bool(ok.all()):
            bad = (~ok).nonzero()[0].tolist()
            v = values[tuple(bad)].item()
            raise ValueOutOfRange(f"value {v!r} is outside the exact range of encoding {self.config()} ({self.range_text()})")

    def range_text(self) -> str:
        """Human-readable description of the exact range, for error messages."""
        return "see its documentation"

    def limits_text(self) -> str:
        """One sentence for a model card's *Known limits*: what this encoding cannot represent or
        tends to do to a fill ("" when there is nothing to say)."""
        return ""

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options().items())
        return f"{type(self).__name__}({opts})"


def register(cls: type[NumberEncoding]) -> type[NumberEncoding]:
    """Class decorator adding an encoding to the registry under ``cls.name``."""
    return REGISTRY.register(cls.name, cls)


def names() -> list[str]:
    """Encoding names: registered, and installed through the ``scinum.encodings`` entry points."""
    return REGISTRY.names()


def lookup(key: "str | type[NumberEncoding]") -> type[NumberEncoding]:
    """The encoding class registered or installed as ``key`` (a name), or ``key`` itself (a
    class). Raises :class:`~scinum.plugins.PluginNotFound` (a ``ValueError``) naming the entry
    point to install when no package provides the name."""
    return REGISTRY.resolve(key)[1]


def get(name: "str | type[NumberEncoding]", **options: Any) -> NumberEncoding:
    """Make the encoding registered as ``name`` (``"xval"``, ``"fone"``, ``"bittokens"``..., a
    plug-in's name, or the class itself)."""
    return lookup(name)(**options)


def from_config(config: dict[str, Any]) -> NumberEncoding:
    """Inverse of :meth:`NumberEncoding.config`."""
    config = dict(config)
    return get(config.pop("name"), **config)
