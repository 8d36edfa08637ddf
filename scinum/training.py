"""Training, by concept: the Lightning module (:mod:`scinum.mlm_module`), one run from a config
(:mod:`scinum.fitting`), the ``scinum fit`` command (:mod:`scinum.fit_cli`), calibration after
training (:mod:`scinum.calibration`). Their public names stay importable from here."""
from __future__ import annotations

from .fit_cli import TAKES_OVERRIDES, add_arguments, is_global_zero, run
from .fitting import fit, make_meta
from .mlm_module import MLMModule, lr_factor

__all__ = ["MLMModule", "make_meta", "fit", "add_arguments", "run", "lr_factor", "is_global_zero",
           "TAKES_OVERRIDES"]
