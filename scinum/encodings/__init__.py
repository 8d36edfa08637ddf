"""Number encodings: ``scinum.encodings.get("xval" | "fone" | "bittokens", **options)``."""
from .base import NumberEncoding, from_config, get, names, register
from .bittokens import BitTokens
from .fone import FoNE
from .xval import XVal

__all__ = ["NumberEncoding", "get", "from_config", "names", "register", "XVal", "FoNE", "BitTokens"]
