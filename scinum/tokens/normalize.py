"""Per-field affine normalizers fitted on the train split.

For each numeric field (see :func:`scinum.records.paths.field_of`): ``y = (x - shift) / scale`` and
``x = y * scale + shift``, in float64. ``scale`` is always a power of two, so the scaling is
exact and the round trip error is that of one subtraction and one addition:
``|inverse(forward(x)) - x| <= ulp(max(|x|, |shift|))`` — exactly ``x`` when ``shift == 0`` —
plus, for subnormal results only, the underflow of the division (at most ``scale · 2^-1074``).

Methods (``Normalizer.fit(..., method=...)``):

* ``"scale"`` — no shift; scale the training range into ``[-bound, bound]`` (the xVal paper's
  choice: its values are only scaled, seed 002 §3). Only 0 maps to 0, so every other value keeps
  a non-zero xVal embedding and its sign;
* ``"minmax"`` — centre the training range and scale it into ``[-bound, bound]``. The centre of
  each field's range maps to 0 (planets: Δt = 0.5 of {0.2, 0.3, 0.5, 0.8}), which gives it the
  zero xVal embedding, and signs no longer mean what they meant;
* ``"standard"`` — mean 0, standard deviation in ``(0.5, 1]``; the mean maps to 0;
* ``"binade"`` — put the training range inside one binade: its centre maps to 1.5 and it spans
  at most ``[1.25, 1.75]`` (``shift = centre - 1.5·scale``), so every value near the training
  range has the float64 exponent of 1 and a positive sign, and its mantissa bits are the
  fixed-point binary digits of its place in the range (BitTokens: the bits a head must predict
  become a binary expansion, most significant first; raw planets positions instead flip sign
  and exponent bits around 0, 1 and 2);
* ``"none"`` — identity (FoNE: it represents raw values).

A number loss in normalized units (MSE, NLL) weighs each field by ``1/scale²`` relative to the
record's units, so the method also decides how much each field counts in training: with
``minmax`` a narrow field (planets Δt, width 0.6) is scaled up and weighs more than with
``scale``, where ``scale`` depends on the largest magnitude rather than on the width.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

import numpy as np


__all__ = ["Normalizer", "METHODS", "BOUND"]

#: the xVal paper's range for normalized values, [-5, 5] (seed 002); the mixture head's means
#: start spread over the same range
BOUND = 5.0

METHODS = ("scale", "minmax", "standard", "binade", "none")


def _pow2_at_least(x: float) -> float:
    """Smallest power of two >= x (1.0 for x == 0 or non-finite)."""
    if not (x > 0 and math.isfinite(x)):
        return 1.0
    m, e = math.frexp(x)  # x = m * 2**e, 0.5 <= m < 1
    return math.ldexp(1.0, e - 1) if m == 0.5 else math.ldexp(1.0, e)


class Normalizer:
    """Affine map per field id. ``shift``, ``scale``: float64[n_fields]."""

    def __init__(self, fields: list[str], shift: np.ndarray, scale: np.ndarray, method: str = "none", bound: float | None = None):
        if method not in METHODS:
            raise ValueError(f"unknown normalizer method {method!r}; choose from {METHODS}")
        self.fields = list(fields)
        self.shift = np.asarray(shift, dtype=np.float64)
        self.scale = np.asarray(scale, dtype=np.float64)
        self.method, self.bound = method, bound
        if self.shift.shape != (len(self.fields),) or self.scale.shape != (len(self.fields),):
            raise ValueError(f"normalizer: {len(self.fields)} fields but shift/scale of shapes {self.shift.shape}/{self.scale.shape}")
        bad = ~(np.isfinite(self.shift) & np.isfinite(self.scale) & (self.scale > 0))
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(
                f"normalizer: field {self.fields[i]!r} has shift {self.shift[i]!r} and "
                f"scale {self.scale[i]!r} (finite, and a positive scale, expected)"
            )

    @classmethod
    def identity(cls, fields: list[str]) -> "Normalizer":
        n = len(fields)
        return cls(fields, np.zeros(n), np.ones(n), "none")

    @classmethod
    def fit(
        cls, fields: list[str], batches: Iterable[tuple[np.ndarray, np.ndarray]], method: str = "minmax", bound: float = BOUND
    ) -> "Normalizer":
        """Fit on ``(field_ids int[K], values float64[K])`` batches (e.g. one per encoded record).

        Statistics accumulate in float64 (shifted sums for a stable variance); memory is
        O(n_fields) whatever the data size.
        """
        if method not in METHODS:
            raise ValueError(f"unknown normalizer method {method!r}; choose from {METHODS}")
        n = len(fields)
        if method == "none":
            return cls.identity(fields)
        count = np.zeros(n)
        lo, hi = np.full(n, np.inf), np.full(n, -np.inf)
        ref = np.full(n, np.nan)
        s1, s2 = np.zeros(n), np.zeros(n)
        for fids, vals in batches:
            keep = fids >= 0
            fids = np.asarray(fids)[keep]
            vals = np.asarray(vals, dtype=np.float64)[keep]
            if not len(fids):
                continue
            first = np.isnan(ref[fids])
            ref[fids[first]] = vals[first]  # per-field reference point for shifted sums
            d = vals - ref[fids]
            np.add.at(count, fids, 1)
            np.add.at(s1, fids, d)
            np.add.at(s2, fids, d * d)
            np.minimum.at(lo, fids, vals)
            np.maximum.at(hi, fids, vals)
        seen = count > 0
        shift, scale = np.zeros(n), np.ones(n)
        if method == "minmax":
            shift[seen] = lo[seen] / 2 + hi[seen] / 2
            half = (hi - lo) / 2
            scale[seen] = [_pow2_at_least(h / bound) for h in half[seen]]
        elif method == "binade":
            half = (hi - lo) / 2
            scale[seen] = [_pow2_at_least(h / 0.25) for h in half[seen]]
            shift[seen] = (lo[seen] / 2 + hi[seen] / 2) - 1.5 * scale[seen]
        elif method == "scale":
            top = np.maximum(np.abs(lo), np.abs(hi))
            scale[seen] = [_pow2_at_least(t / bound) for t in top[seen]]
        else:
            mean_d = np.where(seen, s1 / np.maximum(count, 1), 0.0)
            shift[seen] = ref[seen] + mean_d[seen]
            var = np.where(seen, s2 / np.maximum(count, 1) - mean_d**2, 0.0)
            scale[seen] = [_pow2_at_least(math.sqrt(max(v, 0.0))) for v in var[seen]]
        return cls(fields, shift, scale, method, bound if method in ("minmax", "scale") else None)

    def forward(self, values: np.ndarray, field_ids: np.ndarray) -> np.ndarray:
        """Raw -> normalized, float64; positions with field id -1 pass through unchanged."""
        values = np.asarray(values, dtype=np.float64)
        fids = np.asarray(field_ids)
        f = np.where(fids >= 0, fids, 0)
        out = (values - self.shift[f]) / self.scale[f]
        return np.where(fids >= 0, out, values)

    def inverse(self, values: np.ndarray, field_ids: np.ndarray) -> np.ndarray:
        """Normalized -> raw (the record's units), float64."""
        values = np.asarray(values, dtype=np.float64)
        fids = np.asarray(field_ids)
        f = np.where(fids >= 0, fids, 0)
        out = values * self.scale[f] + self.shift[f]
        return np.where(fids >= 0, out, values)

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "bound": self.bound,
            "fields": {name: {"shift": float(s), "scale": float(c)} for name, s, c in zip(self.fields, self.shift, self.scale)},
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Normalizer":
        names = list(d["fields"])
        return cls(
            names,
            np.array([d["fields"][k]["shift"] for k in names], dtype=np.float64),
            np.array([d["fields"][k]["scale"] for k in names], dtype=np.float64),
            d.get("method", "none"),
            d.get("bound"),
        )
