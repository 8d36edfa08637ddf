"""What every evaluation row is scored on, shared by scinum's models (:mod:`.evaluate`) and the
standard references (:mod:`.baselines`): the fields a dataset declares, the interp/extrap subsets
of a split, the MSE in physical units."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

from ..errors import DatasetError
from ..records.paths import matches, parse_path

__all__ = ["default_fields", "subsets", "physical_mse"]


def default_fields(manifest: dict) -> list[str]:
    """The fields a dataset's builder declares for evaluation (``manifest["evaluation"]``)."""
    fields = manifest.get("evaluation", {}).get("fields")
    if not fields:
        raise DatasetError(
            f"dataset (builder {manifest.get('builder')!r}) declares no evaluation "
            "fields: pass --fields PATH ... (a dataset built by an older scinum: "
            "or delete it and build it again)"
        )
    return list(fields)


def subsets(frame: pd.DataFrame, train_range: Sequence[float] | None):
    """``("all", None)``, then — where the builder declares the field's training range
    (``evaluation.train_ranges``) and the split holds true values both inside and outside it —
    ``("interp", inside)`` and ``("extrap", outside)`` (boolean row selections): an OOD split
    that mixes interpolation and extrapolation (planets ``ood_stepsize``) is scored both ways."""
    yield "all", None
    if train_range is None or frame.empty:
        return
    lo, hi = train_range
    inside = frame["true"].between(lo, hi).to_numpy()
    if inside.any() and not inside.all():
        yield "interp", inside
        yield "extrap", ~inside


def physical_mse(manifest: dict, frame: pd.DataFrame) -> dict[str, float]:
    """MSE in physical units where the builder records an affine scaling of the predicted
    numbers (``manifest["scalings"]``, e.g. ERA5 temperatures in σ units -> ``mse_K2``)."""
    if frame.empty:
        return {}
    path = parse_path(frame["path"].iloc[0])
    for pattern, s in manifest.get("scalings", {}).items():
        if s.get("kind") == "affine" and "std" in s and matches(pattern, path):
            err = frame["pred"].to_numpy() - frame["true"].to_numpy()
            ok = ~frame["unparseable"].to_numpy(dtype=bool)  # a NaN number prediction counts
            mse = float(np.mean(err[ok] ** 2)) * s["std"] ** 2 if ok.any() else math.nan
            return {f"mse_{s.get('unit', 'phys')}2": mse}
    return {}
