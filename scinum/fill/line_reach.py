"""The network's part on top of a least-squares line, held within the line's reach at fill.

A field on a line (:mod:`scinum.tokens.record_line`) is filled as ``line + scale · r``, ``r`` the
network's part in the line's units. On a record unlike the training ones the network may say
anything: on planets data an orbit past the training semi-major axes had its a₁ of 1.145 filled
as 4.6, with a 95 % interval ±0.03 wide (experiments/planets-line-dt-a1). What the part was on
records the line did not see is its reach ``[lo, hi]`` (the leave-one-out residuals' range, in
the line's units). Past it the data cannot say, so the mean stays at the reach's edge and the
spread grows with how far the network would have gone, as a prediction past a table's range is
held at the edge (:mod:`scinum.fill.past_range`). With ``h = clip(r, lo, hi)`` and
``d = WIDEN · |r - h|``:

* the value and every location (``mean``, each of ``means``, each of ``quantiles``) move by
  ``h - r``;
* every variance (``std``'s, each of ``stds``) grows by ``d²``;
* the quantile at level ``p`` moves outwards by a further ``Φ⁻¹(p) · d``: for a Gaussian at
  least as far as the widened distribution's own quantile (``z(s + d) ≥ z·√(s² + d²)``).

A number within its reach, or of a field without a line, is left exactly as it was.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy.special import ndtri

from .past_range import WIDEN

__all__ = ["hold"]


def hold(
    part: np.ndarray, uncertainty: dict[str, np.ndarray], lo: np.ndarray, hi: np.ndarray, levels: Sequence[float] = ()
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """``part`` float64[N] (the network's part, the line's units), its ``uncertainty`` in the same
    units (``mean``/``std`` [N], ``means``/``stds`` [N, K], ``quantiles`` [N, Q] at the nominal
    ``levels`` [Q]; other entries pass through), held within ``lo``/``hi`` float64[N] (±inf: no
    reach) as the module docstring says; returns the new part and uncertainty."""
    held = np.clip(part, lo, hi)
    shift = held - part
    if not shift.any():
        return part, uncertainty
    away = WIDEN * np.abs(shift)
    out = dict(uncertainty)
    for key in ("mean", "means", "quantiles"):
        if key in out:
            v = np.asarray(out[key], np.float64)
            out[key] = v + shift.reshape((-1,) + (1,) * (v.ndim - 1))
    for key in ("std", "stds"):
        if key in out:
            v = np.asarray(out[key], np.float64)
            out[key] = np.sqrt(v**2 + away.reshape((-1,) + (1,) * (v.ndim - 1)) ** 2)
    if "quantiles" in out:
        out["quantiles"] = out["quantiles"] + away[:, None] * ndtri(np.asarray(levels, np.float64))[None, :]
    return held, out
