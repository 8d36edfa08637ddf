"""BitTokens (seeds 003/004): the 64 IEEE-754 float64 bits of a value as ±1 features.

Bits are MSB first (sign, 11 exponent bits, 52 mantissa bits); bit 1 -> +1, bit 0 -> -1.
With ``reciprocal=True`` the 64 bits of ``1/x`` follow (the paper's option that eases
division). Every float64 is representable and decodes bit-exactly (±0, ±inf, NaN payloads,
subnormals). The native head predicts the 64 bits with BCE.
"""
from __future__ import annotations

from typing import Any

import torch

from ..bits import bits_to_float64, float64_to_bits
from .base import NumberEncoding, register

@register
class BitTokens(NumberEncoding):
    name = "bittokens"
    combine = "add"

    def __init__(self, reciprocal: bool = False):
        self.reciprocal = bool(reciprocal)

    @property
    def dim(self) -> int:
        return 128 if self.reciprocal else 64

    def encode(self, values: torch.Tensor) -> torch.Tensor:
        values = torch.as_tensor(values, dtype=torch.float64)
        feats = float64_to_bits(values)
        if self.reciprocal:
            with torch.no_grad():
                feats = torch.cat([feats, float64_to_bits(1.0 / values)], dim=-1)
        return feats.to(torch.float32) * 2 - 1

    def decode(self, features: torch.Tensor) -> torch.Tensor:
        return bits_to_float64(features[..., :64] > 0)

    def representable(self, values: torch.Tensor) -> torch.Tensor:
        return torch.ones_like(torch.as_tensor(values, dtype=torch.float64), dtype=torch.bool)

    def range_text(self) -> str:
        return "every float64"

    def make_head(self, d_model: int, vocab: Any = None):
        from ..heads import BitHead
        return BitHead(d_model)

    def options(self) -> dict[str, Any]:
        return {"reciprocal": self.reciprocal}
