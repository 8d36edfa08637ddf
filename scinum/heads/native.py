"""The encodings' native heads: scalar (xVal, MSE), digits (FoNE, CE), bits (BitTokens, BCE) and
the text encodings' token head (no parameters)."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import torch
import torch.nn.functional as F

from ..tokens.bits import EXPONENT_BITS, bits_to_float, float_to_bits
from .base import MLPHead, NumberHead


class ScalarHead(MLPHead):
    """xVal's head: one number, trained with MSE. Gives no uncertainty."""

    has_smooth_point = True

    def __init__(self, d_model: int):
        super().__init__(d_model, 1)

    def forward(self, h: torch.Tensor, token_logits: torch.Tensor | None = None) -> torch.Tensor:
        return self.features(h).squeeze(-1)

    def loss(self, out: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return (out.float() - target.to(torch.float32)) ** 2

    def predict(self, out: torch.Tensor) -> torch.Tensor:
        return out.to(torch.float64)

    def smooth_point(self, out: torch.Tensor) -> torch.Tensor:
        return out


class DigitHead(MLPHead):
    """FoNE's head: a 10-way classification per decimal digit plus a 2-way sign.

    As in the FoNE paper, each digit's logits are the dot products of a 2-d slice with the ten
    points ``(cos, sin)(2πk/10)`` on the unit circle; the sign has its own two logits.
    ``out = (digit_logits float[N, n_digits, 10], sign_logits float[N, 2])``.
    """

    uncertainty_kind = "digits"

    def __init__(self, d_model: int, encoding: Any):
        super().__init__(d_model, 2 * encoding.n_digits + 2)
        self.encoding = encoding
        k = torch.arange(10, dtype=torch.float64) * (2 * torch.pi / 10)
        self.register_buffer("circle", torch.stack([k.cos(), k.sin()], -1).float(), persistent=False)

    def forward(self, h: torch.Tensor, token_logits: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
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

    def uncertainty(self, out, quantiles: Sequence[float] = ()) -> dict[str, torch.Tensor]:
        """Per-digit probabilities (MSB first), sign probability and that of the decoded number."""
        digit_p, sign_p = out[0].softmax(-1), out[1].softmax(-1)
        p_number = digit_p.max(-1).values.prod(-1) * sign_p.max(-1).values
        return {"digit_probs": digit_p, "negative_prob": sign_p[..., 1], "p_number": p_number}


class BitHead(MLPHead):
    """BitTokens' head: one logit per bit of the ``precision``-bit float (MSB first), trained
    with BCE (the mean over the bits).

    ``point``: ``"threshold"`` (the paper's decoding: each bit is its logit's sign) or
    ``"mean"``: sign and exponent thresholded, the mantissa the expected value of the bits,
    ``1 + Σ_k p_k 2^-k`` — the least-squares estimate when the bits are independent, where a
    threshold can combine the high bits of two likely values into a third, unlikely one.
    ``mse_weight > 0`` adds ``mse_weight · (Σ_k p_k 2^-k − m)²`` to the loss, ``m`` the target's
    mantissa fraction (in units of its binade's width, so scale-free): a direct regression signal
    for the trunk, as the mixture head's ``mse_weight`` (both are ours; experiments/fidelity.md).
    A prediction whose thresholded exponent is all ones (±inf/NaN) or all zeros keeps its
    thresholded value under ``"mean"`` too.
    """

    uncertainty_kind = "bits"
    place: torch.Tensor  # buffer: 2^-k of each mantissa bit

    def __init__(self, d_model: int, precision: int = 64, point: str = "threshold", mse_weight: float = 0.0):
        super().__init__(d_model, precision)
        if point not in ("threshold", "mean"):
            raise ValueError(f"bit head point must be 'threshold' or 'mean', got {point!r}")
        if not mse_weight >= 0:
            raise ValueError(f"bit head mse_weight must be >= 0, got {mse_weight!r}")
        self.precision, self.point, self.mse_weight = precision, point, float(mse_weight)
        n_exp = EXPONENT_BITS[precision]
        self.mantissa = slice(1 + n_exp, precision)
        self.register_buffer("place", 2.0 ** -torch.arange(1, precision - n_exp, dtype=torch.float64), persistent=False)

    def forward(self, h: torch.Tensor, token_logits: torch.Tensor | None = None) -> torch.Tensor:
        return self.features(h).float()

    def _fraction(self, p: torch.Tensor) -> torch.Tensor:
        """Mantissa probabilities float[N, n_mantissa] -> expected fraction in [0, 1)."""
        return p @ self.place.to(p.dtype)

    def loss(self, out: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        bits = float_to_bits(target, self.precision).to(out.dtype)
        loss = F.binary_cross_entropy_with_logits(out, bits, reduction="none").mean(-1)
        if self.mse_weight:
            truth = self._fraction(bits[..., self.mantissa])
            loss = loss + self.mse_weight * (self._fraction(torch.sigmoid(out[..., self.mantissa])) - truth) ** 2
        return loss

    def predict(self, out: torch.Tensor) -> torch.Tensor:
        bits = out > 0
        hard = bits_to_float(bits, self.precision)
        if self.point == "threshold":
            return hard
        exponent = bits[..., 1 : self.mantissa.start]
        normal = exponent.any(-1) & ~exponent.all(-1)
        base = bits.clone()
        base[..., self.mantissa] = False  # ±2^e
        fraction = self._fraction(torch.sigmoid(out[..., self.mantissa].double()))
        return torch.where(normal, bits_to_float(base, self.precision) * (1 + fraction), hard)

    def uncertainty(self, out: torch.Tensor, quantiles: Sequence[float] = ()) -> dict[str, torch.Tensor]:
        """Per-bit probabilities of a 1 (MSB first)."""
        return {"bit_probs": torch.sigmoid(out)}


class TokenHead(NumberHead):
    """The text encodings' native head: a number is its ``k`` tokens, predicted by the trunk's
    (tied) token head, so this head has no parameters. Its rows come ``k`` per number; each row
    of a number gets the number parsed from the argmax token at each of its rows.

    The loss is 0: the hidden number tokens are among the token cross-entropy's targets, which
    trains them. ``uncertainty``: ``tokens`` str[N, k] (the predicted tokens), ``p_number`` (the
    product of their probabilities) and ``unparseable`` (tokens that do not form a number)."""

    uncertainty_kind = "tokens"

    def __init__(self, encoding: Any, vocab: Any):
        if vocab is None:
            raise ValueError(f"the {encoding.name} token head needs the model's vocabulary")
        super().__init__()
        self.encoding, self.k = encoding, encoding.tokens_per_number
        self.vocab_tokens = np.array(vocab.tokens, dtype=object)

    def forward(self, h: torch.Tensor, token_logits: torch.Tensor | None = None) -> torch.Tensor:
        if token_logits is None:
            raise ValueError("TokenHead reads the token logits: call it as head(h, token_logits)")
        return token_logits.float()

    def loss(self, out: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return out.new_zeros(out.shape[0])

    def _numbers(self, out: torch.Tensor) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(tokens str[n, k], values float64[n] (NaN: unparseable), p_number float64[n])."""
        p, tok = out.softmax(-1).max(-1)
        names = self.vocab_tokens[tok.cpu().numpy().reshape(-1, self.k)]
        values = np.array([math.nan if (v := self.encoding.parse(list(t))) is None else v for t in names], np.float64)
        return names.astype(str), values, p.double().cpu().numpy().reshape(-1, self.k).prod(1)

    def predict(self, out: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(self._numbers(out)[1].repeat(self.k)).to(out.device)

    def uncertainty(self, out: torch.Tensor, quantiles: Sequence[float] = ()) -> dict[str, Any]:
        names, values, p = self._numbers(out)
        return {"tokens": names.repeat(self.k, 0), "p_number": p.repeat(self.k), "unparseable": np.isnan(values).repeat(self.k)}
