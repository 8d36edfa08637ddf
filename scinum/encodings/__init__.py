"""Number encodings: ``scinum.encodings.get(name, **options)``.

Every one is a :class:`NumberEncoding` (``encodings/base.py``): the single-token encodings
``"xval"``, ``"fone"``, ``"bittokens"`` and the text baselines ``"p10"``, ``"p1000"``,
``"b1999"``, ``"fp15"`` (:class:`TextEncoding`, several vocabulary tokens per number), and any
that another package installs through the ``scinum.encodings`` entry-point group. Imports
:mod:`scinum.tokens`, :mod:`scinum.plugins` and below.
"""

from .base import REGISTRY, NumberEncoding, from_config, get, lookup, names, register
from .bittokens import BitTokens
from .fone import FoNE
from .text import TextEncoding
from .xval import XVal

__all__ = ["NumberEncoding", "TextEncoding", "get", "from_config", "names", "register", "lookup", "REGISTRY", "XVal", "FoNE", "BitTokens"]
