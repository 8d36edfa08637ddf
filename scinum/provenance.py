"""What produced a result: the versions of the packages whose arithmetic decides it.

Recorded in every checkpoint (``run.versions``) and in a recipe's ``meta.json``: the same seed
gives the same numbers bit for bit only with the same versions on the same kind of CPU (and
thread count); another machine or another torch build changes the order and kernels of float
sums, and with them a trained model (README, *Reproducibility*).
"""
from __future__ import annotations

import platform
from importlib import metadata

__all__ = ["versions"]

#: distributions whose versions a result depends on
PACKAGES = ("scinum", "torch", "numpy", "lightning", "rebound")


def versions() -> dict[str, str | None]:
    """``{"python": "3.11.7", "torch": "2.13.0+cpu", ...}``; None for a package not installed."""
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out
