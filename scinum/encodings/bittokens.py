"""BitTokens (seeds 003/004): the IEEE-754 bits of a value as ±1 features.

Bits are MSB first (sign, exponent bits, mantissa bits); bit 1 -> +1, bit 0 -> -1. With
``reciprocal=True`` the bits of ``1/x`` follow (the paper's option that eases division). The
native head predicts the bits with BCE.

``combine`` is how the bits enter the trunk: ``"add"`` (default, ours) adds a learned linear map
of them to the ``[NUM]`` embedding; ``"replace"`` is the reference configurations' ``zero_pad``
(KreitnerL/BitTokens ``configs/config_bittoken_*.py``, ``networks/number_embedding_modules/
bittoken_embedding.py``): the ±1 bits, times ``sqrt(d_model/dim)``, fill the first ``dim``
channels and zeros the rest, *instead of* the token embedding (no parameters; needs
``d_model >= dim``).

``precision`` is the float format: 64
(float64, the paper's and every reference configuration's: every float64 is representable and decodes bit-exactly, ±0,
±inf, NaN payloads and subnormals included), 32 or 16 (IEEE half: 1 + 5 + 10 bits). A narrower
format rounds values to its precision (half: 11 significant bits, |x| <= 65504) and leaves out
mantissa bits that measured data cannot predict: at CPU budgets those bits are noise in the
loss (experiments/fidelity.md, *Learning at CPU budgets*). Narrower formats round to nearest (IEEE),
our addition: the reference's ``precision_type`` keeps the low bits of the float64 instead, and no
reference configuration sets it (experiments/fidelity.md).
"""

from __future__ import annotations

from typing import Any

import torch

from ..tokens.bits import WIDTHS, bits_to_float, float_to_bits
from .base import NumberEncoding, register


@register
class BitTokens(NumberEncoding):
    name = "bittokens"
    combine = "add"
    COMBINES = ("add", "replace")

    def __init__(self, reciprocal: bool = False, precision: int = 64, combine: str = "add"):
        if precision not in WIDTHS:
            raise ValueError(f"bittokens precision must be one of {sorted(WIDTHS)} (bits of the float format), got {precision!r}")
        if combine not in self.COMBINES:
            raise ValueError(
                f"bittokens combine must be one of {self.COMBINES} (add: a learned "
                f"linear map of the bits is added; replace: the reference's zero_pad), "
                f"got {combine!r}"
            )
        self.reciprocal = bool(reciprocal)
        self.precision = int(precision)
        self.combine = combine

    @property
    def dim(self) -> int:
        return self.precision * (2 if self.reciprocal else 1)

    def encode(self, values: torch.Tensor) -> torch.Tensor:
        values = torch.as_tensor(values, dtype=torch.float64)
        feats = float_to_bits(values, self.precision)
        if self.reciprocal:
            with torch.no_grad():
                feats = torch.cat([feats, float_to_bits(1.0 / values, self.precision)], dim=-1)
        return feats.to(torch.float32) * 2 - 1

    def decode(self, features: torch.Tensor) -> torch.Tensor:
        return bits_to_float(features[..., : self.precision] > 0, self.precision)

    def representable(self, values: torch.Tensor) -> torch.Tensor:
        """Every value whose rounding to the format stays finite (or was not finite)."""
        values = torch.as_tensor(values, dtype=torch.float64)
        if self.precision == 64:
            return torch.ones_like(values, dtype=torch.bool)
        return values.to(WIDTHS[self.precision][0]).isfinite() | ~values.isfinite()

    def range_text(self) -> str:
        if self.precision == 64:
            return "every float64"
        largest = torch.finfo(WIDTHS[self.precision][0]).max
        return f"|x| <= {largest:.6g}, rounded to float{self.precision}"

    def make_head(self, d_model: int, vocab: Any = None, point: str = "threshold", mse_weight: float = 0.0):
        from ..heads import BitHead

        return BitHead(d_model, self.precision, point=point, mse_weight=mse_weight)

    def options(self) -> dict[str, Any]:
        return {"reciprocal": self.reciprocal, "precision": self.precision, "combine": self.combine}

    def limits_text(self) -> str:
        return f"BitTokens at {self.precision}-bit precision: fills carry that format's resolution."
