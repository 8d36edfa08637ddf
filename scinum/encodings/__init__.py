"""Number encodings: ``scinum.encodings.get(name, **options)``.

Single-token encodings (:class:`NumberEncoding`): ``"xval"``, ``"fone"``, ``"bittokens"``.
Text baselines (:class:`TextEncoding`, several vocabulary tokens per number):
``"p10"``, ``"p1000"``, ``"b1999"``, ``"fp15"``.
"""
from .base import _REGISTRY, NumberEncoding, from_config, get, names, register
from .bittokens import BitTokens
from .fone import FoNE
from .text import TEXT_ENCODINGS, TextEncoding
from .xval import XVal

_REGISTRY.update(TEXT_ENCODINGS)


def is_text(encoding: object) -> bool:
    """Whether ``encoding`` writes numbers as several vocabulary tokens (a text baseline)."""
    return isinstance(encoding, TextEncoding)


__all__ = ["NumberEncoding", "TextEncoding", "get", "from_config", "names", "register", "is_text",
           "XVal", "FoNE", "BitTokens"]
