"""IEEE-754 float64 <-> its 64 bits, MSB first (sign, 11 exponent bits, 52 mantissa bits).

Shared by the BitTokens encoding (features) and the bit head (targets, decoding), so neither
imports the other.
"""
from __future__ import annotations

import torch

__all__ = ["float64_to_bits", "bits_to_float64"]

_SHIFTS = torch.arange(63, -1, -1, dtype=torch.int64)  # MSB first


def float64_to_bits(values: torch.Tensor) -> torch.Tensor:
    """float64[...] -> int64[..., 64] of 0/1, MSB (sign) first."""
    words = torch.as_tensor(values, dtype=torch.float64).contiguous().view(torch.int64)
    return (words.unsqueeze(-1) >> _SHIFTS.to(words.device)) & 1


def bits_to_float64(bits: torch.Tensor) -> torch.Tensor:
    """int/bool[..., 64] of 0/1, MSB first -> float64[...] (two's-complement wrap is intended)."""
    words = (bits.to(torch.int64) << _SHIFTS.to(bits.device)).sum(-1)
    return words.view(torch.float64)
