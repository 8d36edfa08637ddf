"""IEEE-754 floats <-> their bits, MSB first (sign, exponent bits, mantissa bits).

``width`` picks the format: 64 (float64: 1 + 11 + 52 bits), 32 (float32: 1 + 8 + 23) or 16
(IEEE half: 1 + 5 + 10). Values are rounded to that format (round to nearest) before their
bits are read; decoding gives the float64 of the format's value. Shared by the BitTokens
encoding (features) and the bit head (targets, decoding), so neither imports the other.
"""

from __future__ import annotations

import torch

__all__ = ["WIDTHS", "EXPONENT_BITS", "float_to_bits", "bits_to_float"]

#: bit width -> (float dtype, integer dtype of the same width)
WIDTHS = {64: (torch.float64, torch.int64), 32: (torch.float32, torch.int32), 16: (torch.float16, torch.int16)}
#: bit width -> exponent bits (the sign bit comes first, the mantissa bits last)
EXPONENT_BITS = {64: 11, 32: 8, 16: 5}


def _shifts(width: int, device) -> torch.Tensor:
    return torch.arange(width - 1, -1, -1, dtype=torch.int64, device=device)  # MSB first


def float_to_bits(values: torch.Tensor, width: int = 64) -> torch.Tensor:
    """float[...] -> int64[..., width] of 0/1, MSB (sign) first, of the values rounded to the
    ``width``-bit IEEE format (values beyond its range become ±inf)."""
    fdtype, idtype = WIDTHS[width]
    words = torch.as_tensor(values, dtype=torch.float64).to(fdtype).contiguous().view(idtype)
    return (words.to(torch.int64).unsqueeze(-1) >> _shifts(width, words.device)) & 1


def bits_to_float(bits: torch.Tensor, width: int = 64) -> torch.Tensor:
    """int/bool[..., width] of 0/1, MSB first -> float64[...]: the ``width``-bit float they spell."""
    fdtype, idtype = WIDTHS[width]
    words = (bits.to(torch.int64) << _shifts(width, bits.device)).sum(-1)  # wraps for width 64
    if width < 64:  # the top bit is the sign of the two's-complement word
        words = torch.where(words >= 1 << (width - 1), words - (1 << width), words)
    return words.to(idtype).view(fdtype).to(torch.float64)
