"""Number heads: from the trunk's hidden state at a masked number to a prediction and a loss.

Every head works in the encoding's (normalized) value space; :mod:`scinum.normalize` maps
predictions back to a record's units. Interface (:class:`NumberHead`):

* ``forward(h: float[N, d]) -> out`` (a tensor or a tuple of tensors, head-specific);
* ``loss(out, target: float64[N]) -> float32[N]``: per-number loss;
* ``predict(out) -> float64[N]``: point prediction;
* ``uncertainty(out) -> dict[str, Tensor]``: what the head knows about its own error
  (empty for the scalar head, which has none).
"""
from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["NumberHead", "ScalarHead", "DigitHead", "BitHead"]


class NumberHead(nn.Module):
    """Base: an MLP with one hidden layer (as in the xVal paper) feeding ``n_out`` outputs."""

    def __init__(self, d_model: int, n_out: int):
        super().__init__()
        self.hidden = nn.Linear(d_model, d_model)
        self.out = nn.Linear(d_model, n_out)

    def features(self, h: torch.Tensor) -> torch.Tensor:
        return self.out(F.gelu(self.hidden(h)))

    def uncertainty(self, out: Any) -> dict[str, torch.Tensor]:
        return {}


class ScalarHead(NumberHead):
    """xVal's head: one number, trained with MSE. Gives no uncertainty."""

    def __init__(self, d_model: int):
        super().__init__(d_model, 1)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.features(h).squeeze(-1)

    def loss(self, out: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return (out.float() - target.to(torch.float32)) ** 2

    def predict(self, out: torch.Tensor) -> torch.Tensor:
        return out.to(torch.float64)


class DigitHead(NumberHead):
    """FoNE's head: a 10-way classification per decimal digit plus a 2-way sign.

    As in the FoNE paper, each digit's logits are the dot products of a 2-d slice with the ten
    points ``(cos, sin)(2πk/10)`` on the unit circle; the sign has its own two logits.
    ``out = (digit_logits float[N, n_digits, 10], sign_logits float[N, 2])``.
    """

    def __init__(self, d_model: int, encoding: Any):
        super().__init__(d_model, 2 * encoding.n_digits + 2)
        self.encoding = encoding
        k = torch.arange(10, dtype=torch.float64) * (2 * torch.pi / 10)
        self.register_buffer("circle", torch.stack([k.cos(), k.sin()], -1).float(), persistent=False)

    def forward(self, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        z = self.features(h).float()
        slices = z[..., 2:].unflatten(-1, (self.encoding.n_digits, 2))
        return slices @ self.circle.T, z[..., :2]

    def loss(self, out, target: torch.Tensor) -> torch.Tensor:
        digit_logits, sign_logits = out
        sign, digits = self.encoding.digits(target)
        ce = F.cross_entropy(digit_logits.transpose(1, 2), digits, reduction="none").sum(-1)
        ce = ce + F.cross_entropy(sign_logits, sign, reduction="none")
        return ce / (self.encoding.n_digits + 1)

    def predict(self, out) -> torch.Tensor:
        digit_logits, sign_logits = out
        return self.encoding.from_digits(sign_logits.argmax(-1), digit_logits.argmax(-1))

    def uncertainty(self, out) -> dict[str, torch.Tensor]:
        """Per-digit probabilities (MSB first), sign probability and that of the decoded number."""
        digit_p, sign_p = out[0].softmax(-1), out[1].softmax(-1)
        p_number = digit_p.max(-1).values.prod(-1) * sign_p.max(-1).values
        return {"digit_probs": digit_p, "negative_prob": sign_p[..., 1], "p_number": p_number}


class BitHead(NumberHead):
    """BitTokens' head: 64 logits, one per float64 bit (MSB first), trained with BCE."""

    def __init__(self, d_model: int):
        super().__init__(d_model, 64)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.features(h).float()

    def loss(self, out: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        from .encodings.bittokens import float64_to_bits
        bits = float64_to_bits(target).to(out.dtype)
        return F.binary_cross_entropy_with_logits(out, bits, reduction="none").mean(-1)

    def predict(self, out: torch.Tensor) -> torch.Tensor:
        from .encodings.bittokens import bits_to_float64
        return bits_to_float64(out > 0)

    def uncertainty(self, out: torch.Tensor) -> dict[str, torch.Tensor]:
        """Per-bit probabilities of a 1 (MSB first)."""
        return {"bit_probs": torch.sigmoid(out)}
