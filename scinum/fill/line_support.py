"""A fill's prediction widened where the least-squares line under it was held.

A field on a line (:mod:`scinum.tokens.record_line`) is filled as ``line + scale · network``.
Where a record lies outside the line's support (its leverage above every training record's) the
line is held within the values it took on the training records: the data it was fitted on say
nothing there (on planets data an orbit past the training semi-major axes had a₁'s line at 4.6,
true 1.145, with a 95 % interval ±0.03 wide: experiments/planets-line-dt-a1). The prediction's
spread then grows with how far the line would have gone, ``a = WIDEN · |move|``
(:data:`scinum.fill.past_range.WIDEN`, as a prediction past a table's range held at its edge):

* every variance (``std``'s, each of ``stds``) grows by ``a²``;
* the quantile at level ``p`` moves outwards by ``Φ⁻¹(p) · a``: for a Gaussian at least as far as
  the widened distribution's own quantile (``z(s + a) ≥ z·√(s² + a²)``).

Locations (``mean``, ``means``, the value) are not moved here: the held line is already in them.
:mod:`scinum.fill.between_values` widens a prediction between the few values its field took in
training the same way.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy.special import ndtri

from .past_range import WIDEN

__all__ = ["widen"]


def widen(uncertainty: dict[str, np.ndarray], move: np.ndarray, levels: Sequence[float] = ()) -> dict[str, np.ndarray]:
    """``uncertainty`` of N numbers (``std`` [N], ``stds`` [N, K], ``quantiles`` [N, Q] at the
    nominal ``levels`` [Q]; other entries pass through) widened by ``WIDEN · |move|`` (float64[N],
    the same units), as the module docstring says; the same dict where nothing moved."""
    if not move.any():
        return uncertainty
    away = WIDEN * np.abs(move)
    out = dict(uncertainty)
    for key in ("std", "stds"):
        if key in out:
            v = np.asarray(out[key], np.float64)
            out[key] = np.sqrt(v**2 + away.reshape((-1,) + (1,) * (v.ndim - 1)) ** 2)
    if "quantiles" in out:
        out["quantiles"] = np.asarray(out["quantiles"], np.float64) + away[:, None] * ndtri(np.asarray(levels, np.float64))[None, :]
    return out
