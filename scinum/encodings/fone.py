"""FoNE (seed 000): Fourier features of a number, one (cos, sin) pair per decimal digit.

With ``int_digits = m`` and ``frac_digits = n`` a value ``x`` is written ``±d_{m-1}…d_0.d_{-1}…d_{-n}``.
Digit ``10^j`` is read by the pair ``(cos, sin)(2π x / 10^{j+1})`` — the paper's features with
periods ``10^i``, ``i ∈ [-n+1, m]``. The reference implementation drops the sign; here a first
pair ``(±1, 0)`` carries it, so negative numbers are representable and every pair has unit norm
(the feature RMS is the same for every number: norm-invariant by construction).

Exact range: ``|x| < 10^m`` with at most ``n`` fractional digits. Other values with more
fractional digits are rounded to ``n`` digits (documented quantization, like xVal's float32
rounding) unless ``strict=True``, which rejects them. ``|x| ≥ 10^m`` is always rejected.

Features are computed from the integer ``N = round(|x|·10^n)`` (exact in int64 for m+n ≤ 15),
so ``x mod 10^i`` carries no floating-point error, and decoding reads digits from the least
significant up, subtracting the known lower digits before rounding.
Layout: ``features[..., 0:2]`` sign pair, then pairs for digit places ``10^{m-1}`` … ``10^{-n}``.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from .base import NumberEncoding, register


@register
class FoNE(NumberEncoding):
    name = "fone"
    combine = "add"

    def __init__(self, int_digits: int = 4, frac_digits: int = 6, strict: bool = False):
        if int_digits < 0 or frac_digits < 0 or int_digits + frac_digits < 1:
            raise ValueError(f"fone: need int_digits, frac_digits >= 0 and at least one digit, got {int_digits}, {frac_digits}")
        if int_digits + frac_digits > 15:
            raise ValueError("fone: int_digits + frac_digits must be <= 15 (exact float64 digits)")
        self.m, self.n, self.strict = int(int_digits), int(frac_digits), bool(strict)

    @property
    def n_digits(self) -> int:
        return self.m + self.n

    @property
    def dim(self) -> int:
        return 2 * self.n_digits + 2

    def _units(self, device) -> torch.Tensor:
        """int64[n_digits]: the place of each digit in units of 10^-n, MSB first."""
        return 10 ** torch.arange(self.n_digits - 1, -1, -1, dtype=torch.int64, device=device)

    def to_integer(self, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """float64[...] -> (negative bool[...], N int64[...]) with ``|x| ≈ N·10^-n``."""
        values = torch.as_tensor(values, dtype=torch.float64)
        scaled = torch.round(values.abs() * 10.0**self.n)
        scaled = torch.where(torch.isfinite(scaled), scaled, torch.zeros_like(scaled))
        limit = 10.0**self.n_digits
        return torch.signbit(values), scaled.clamp(max=limit).to(torch.int64)

    def digits(self, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """float64[...] -> (sign int64[...] 0/1, digits int64[..., n_digits] MSB first)."""
        neg, N = self.to_integer(values)
        return neg.to(torch.int64), (N.unsqueeze(-1) // self._units(N.device)) % 10

    def from_digits(self, sign: torch.Tensor, digits: torch.Tensor) -> torch.Tensor:
        """Inverse of :meth:`digits`: -> float64[...] (correctly rounded ``±N / 10^n``)."""
        N = (digits.to(torch.int64) * self._units(digits.device)).sum(-1)
        x = N.to(torch.float64) / 10.0**self.n
        return torch.where(sign.bool(), -x, x)

    def encode(self, values: torch.Tensor) -> torch.Tensor:
        neg, N = self.to_integer(values)
        periods = self._units(N.device) * 10  # in units of 10^-n, MSB first
        angle = (2 * math.pi) * (N.unsqueeze(-1) % periods).to(torch.float64) / periods.to(torch.float64)
        pairs = torch.stack([torch.cos(angle), torch.sin(angle)], dim=-1).flatten(-2)
        sign = torch.stack([torch.where(neg, -1.0, 1.0).to(torch.float64), torch.zeros_like(N, dtype=torch.float64)], dim=-1)
        return torch.cat([sign, pairs], dim=-1).to(torch.float32)

    def decode(self, features: torch.Tensor) -> torch.Tensor:
        f = features.to(torch.float64)
        neg = f[..., 0] < 0
        pairs = f[..., 2:].unflatten(-1, (self.n_digits, 2))
        turns = torch.remainder(torch.atan2(pairs[..., 1], pairs[..., 0]) / (2 * math.pi), 1.0) * 10
        digits = torch.zeros(turns.shape, dtype=torch.int64, device=f.device)
        lower = torch.zeros(turns.shape[:-1], dtype=torch.float64, device=f.device)  # in place units
        for p in range(self.n_digits - 1, -1, -1):
            unit = 10.0 ** (self.n_digits - 1 - p)
            d = torch.remainder(torch.round(turns[..., p] - lower / unit), 10).to(torch.int64)
            digits[..., p] = d
            lower = lower + d.to(torch.float64) * unit
        return self.from_digits(neg, digits)

    def representable(self, values: torch.Tensor) -> torch.Tensor:
        values = torch.as_tensor(values, dtype=torch.float64)
        ok = torch.isfinite(values) & (torch.round(values.abs() * 10.0**self.n) < 10.0**self.n_digits)
        if self.strict:
            _, N = self.to_integer(values)
            ok &= (N.to(torch.float64) / 10.0**self.n) == values.abs()
        return ok

    def range_text(self) -> str:
        frac = "exactly " if self.strict else "rounded to "
        return f"|x| < 1e{self.m}, {frac}{self.n} fractional digits"

    def make_head(self, d_model: int, vocab: Any = None):
        from ..heads import DigitHead

        return DigitHead(d_model, self)

    def options(self) -> dict[str, Any]:
        return {"int_digits": self.m, "frac_digits": self.n, "strict": self.strict}

    def limits_text(self) -> str:
        return (
            f"FoNE represents numbers with {self.m} integer and {self.n} fractional digits; "
            "per-digit argmax tends to snap fills to values seen in training."
        )
