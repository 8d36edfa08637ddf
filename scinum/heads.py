"""Number heads: from the trunk's hidden state at a masked number to a prediction and a loss.

Every head works in the encoding's (normalized) value space; :mod:`scinum.normalize` maps
predictions back to a record's units. Interface (:class:`NumberHead`), over the N hidden number
*tokens* of a batch in row-major order (an encoding with ``k`` tokens per number gives its k
rows one after another):

* ``forward(h: float[N, d], token_logits: float[N, V] | None = None) -> out`` (a tensor or a
  tuple of tensors, head-specific; ``token_logits`` are the trunk's token-head logits at the
  same rows, which :class:`TokenHead` reads and the others ignore);
* ``loss(out, target: float64[N]) -> float32[N]``: per-row loss;
* ``predict(out) -> float64[N]``: point prediction (every row of a number holds the number's);
* ``uncertainty(out, quantiles=()) -> dict[str, Tensor | ndarray]``: what the head knows about
  its own error, one entry per row (empty for the scalar head, which has none); heads with a
  distribution add ``quantiles`` [N, Q] at the levels asked for. An ``unparseable`` entry (bool)
  marks predictions that are not numbers at all (their value is NaN).

:class:`MixtureHead` (a Gaussian mixture) can replace any encoding's native head. It models the
*normalized* value, so pair it with a normalizer that brings values to O(1) (``minmax`` or
``standard``; :func:`scinum.config` picks ``standard`` when the encoding's default is ``none``).
"""
from __future__ import annotations

import inspect
import math
from typing import Any, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .bits import EXPONENT_BITS, bits_to_float, float_to_bits
from .normalize import BOUND

__all__ = ["NumberHead", "MLPHead", "ScalarHead", "DigitHead", "BitHead", "MixtureHead", "TokenHead",
           "make_head"]


#: the mixture head's default variance floor (normalized units); checkpoints written before it was
#: raised have no ``sigma_min`` in their head config and keep :data:`LEGACY_SIGMA_MIN`
SIGMA_MIN, LEGACY_SIGMA_MIN = 0.05, 1e-3


def _grad_times(x: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    """``x`` in the forward pass; its gradient multiplied by ``factor`` (no gradient) backward."""
    return x.detach() + (x - x.detach()) * factor


class NumberHead(nn.Module):
    """The interface (module docstring). ``uncertainty_kind`` names what :meth:`uncertainty`
    returns (``none``, ``digits``, ``bits``, ``mixture``, ``tokens``): what fill reports as the
    prediction's uncertainty."""

    uncertainty_kind = "none"
    #: whether the head predicts a distribution with ``cdf(out, x)`` and quantiles (its intervals
    #: can then be recalibrated, :mod:`scinum.calibration`)
    has_distribution = False

    def loss(self, out: Any, target: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def predict(self, out: Any) -> torch.Tensor:
        raise NotImplementedError

    def uncertainty(self, out: Any, quantiles: Sequence[float] = ()) -> dict[str, Any]:
        return {}


class MLPHead(NumberHead):
    """A head reading the hidden state through an MLP with one hidden layer (as in the xVal
    paper) that feeds ``n_out`` outputs."""

    def __init__(self, d_model: int, n_out: int):
        super().__init__()
        self.hidden = nn.Linear(d_model, d_model)
        self.out = nn.Linear(d_model, n_out)

    def features(self, h: torch.Tensor) -> torch.Tensor:
        return self.out(F.gelu(self.hidden(h)))


class ScalarHead(MLPHead):
    """xVal's head: one number, trained with MSE. Gives no uncertainty."""

    def __init__(self, d_model: int):
        super().__init__(d_model, 1)

    def forward(self, h: torch.Tensor, token_logits: torch.Tensor | None = None) -> torch.Tensor:
        return self.features(h).squeeze(-1)

    def loss(self, out: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return (out.float() - target.to(torch.float32)) ** 2

    def predict(self, out: torch.Tensor) -> torch.Tensor:
        return out.to(torch.float64)


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

    def forward(self, h: torch.Tensor, token_logits: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor]:
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
    for the trunk, as the mixture head's ``mse_weight`` (both are ours; docs/fidelity.md).
    A prediction whose thresholded exponent is all ones (±inf/NaN) or all zeros keeps its
    thresholded value under ``"mean"`` too.
    """

    uncertainty_kind = "bits"

    def __init__(self, d_model: int, precision: int = 64, point: str = "threshold",
                 mse_weight: float = 0.0):
        super().__init__(d_model, precision)
        if point not in ("threshold", "mean"):
            raise ValueError(f"bit head point must be 'threshold' or 'mean', got {point!r}")
        if not mse_weight >= 0:
            raise ValueError(f"bit head mse_weight must be >= 0, got {mse_weight!r}")
        self.precision, self.point, self.mse_weight = precision, point, float(mse_weight)
        n_exp = EXPONENT_BITS[precision]
        self.mantissa = slice(1 + n_exp, precision)
        self.register_buffer("place", 2.0 ** -torch.arange(1, precision - n_exp, dtype=torch.float64),
                             persistent=False)

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
        exponent = bits[..., 1:self.mantissa.start]
        normal = exponent.any(-1) & ~exponent.all(-1)
        base = bits.clone()
        base[..., self.mantissa] = False  # ±2^e
        fraction = self._fraction(torch.sigmoid(out[..., self.mantissa].double()))
        return torch.where(normal, bits_to_float(base, self.precision) * (1 + fraction), hard)

    def uncertainty(self, out: torch.Tensor, quantiles: Sequence[float] = ()) -> dict[str, torch.Tensor]:
        """Per-bit probabilities of a 1 (MSB first)."""
        return {"bit_probs": torch.sigmoid(out)}


class MixtureHead(MLPHead):
    """Gaussian mixture over the normalized value: ``K`` components.

    ``out = (log_w float32[N, K], mu float32[N, K], sigma float32[N, K])`` with log-weights by
    log-softmax, ``sigma = softplus(·) + sigma_min`` and means initialised spread evenly over
    ``init_range`` (the normalized range, xVal: [-5, 5]). The loss is the NLL by logsumexp in
    float32, plus ``mse_weight ·`` (mixture mean − target)² when ``mse_weight > 0``: the squared
    error gives the trunk the direct signal xVal's MSE head has, which the NLL alone gives slowly
    (planets quick preset: Δt/a₁ R² 0.79/0.96 → 1.00/0.99, docs/fidelity.md).

    Two things keep the NLL's training stable (docs/fidelity.md, *Mixture head dynamics*). The
    NLL's gradient on a component's mean is ``r (mu − t) / sigma²`` and its curvature
    ``1 / sigma²``: as sigmas sharpen it swamps every other gradient (the token loss included,
    through the shared trunk and the gradient clip) and outgrows what a fixed learning rate can
    follow. ``precondition`` (default on) multiplies the NLL's gradient on each component's mean
    and sigma by that component's ``sigma²`` (detached; the Gaussian's inverse Fisher
    information up to a constant): the loss value and its minima are unchanged, the means get an
    MSE-like pull ``r (mu − t)``. ``sigma_min`` (0.05 normalized units; 1e-3 before, which
    checkpoints without the key keep) is a variance floor: the NLL keeps pulling sigma down
    once the means are right, and below ~0.03 the sharpening outruns the optimizer and the
    fitted means blow up (measured on the overfit test).
    Point prediction: the mixture mean (``point="mean"``) or the mean of the heaviest component
    (``point="mode"``, closer to the mode of a multi-modal prediction).
    """

    uncertainty_kind = "mixture"
    has_distribution = True

    def __init__(self, d_model: int, n_components: int = 8, sigma_min: float = SIGMA_MIN,
                 point: str = "mean", init_range: Sequence[float] = (-BOUND, BOUND),
                 mse_weight: float = 0.0, precondition: bool = True):
        if n_components < 1 or not sigma_min > 0:
            raise ValueError(f"mixture head: need n_components >= 1 and sigma_min > 0, "
                             f"got {n_components}, {sigma_min}")
        if point not in ("mean", "mode"):
            raise ValueError(f"mixture head: point must be 'mean' or 'mode', got {point!r}")
        super().__init__(d_model, 3 * n_components)
        self.k, self.sigma_min, self.point = int(n_components), float(sigma_min), point
        self.mse_weight, self.precondition = float(mse_weight), bool(precondition)
        self.init_range = (float(init_range[0]), float(init_range[1]))
        lo, hi = self.init_range
        with torch.no_grad():
            k = self.k
            self.out.weight[k:2 * k].mul_(0.1)  # means start near their spread-out biases
            self.out.bias.zero_()
            self.out.bias[k:2 * k] = torch.linspace(lo, hi, k) if k > 1 else (lo + hi) / 2
            half_gap = (hi - lo) / (2 * k)  # neighbouring components overlap at about 1 sigma
            self.out.bias[2 * k:] = math.log(math.expm1(max(half_gap, 2 * self.sigma_min)))

    def forward(self, h: torch.Tensor, token_logits: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        z = self.features(h).float()
        logits, mu, s = z.split(self.k, dim=-1)
        return logits.log_softmax(-1), mu, F.softplus(s) + self.sigma_min

    def loss(self, out, target: torch.Tensor) -> torch.Tensor:
        log_w, mu, sigma = out
        t = target.to(torch.float32).unsqueeze(-1)
        if self.precondition:
            mu, sigma = _grad_times(mu, sigma.detach() ** 2), _grad_times(sigma, sigma.detach() ** 2)
        log_p = -0.5 * ((t - mu) / sigma) ** 2 - sigma.log() - 0.5 * math.log(2 * math.pi)
        nll = -torch.logsumexp(log_w + log_p, dim=-1)
        if self.mse_weight:
            mean = (log_w.exp() * out[1]).sum(-1)
            nll = nll + self.mse_weight * (mean - t.squeeze(-1)) ** 2
        return nll

    def _moments(self, out) -> tuple[torch.Tensor, torch.Tensor]:
        log_w, mu, sigma = (o.double() for o in out)
        w = log_w.exp()
        mean = (w * mu).sum(-1)
        var = (w * (sigma ** 2 + mu ** 2)).sum(-1) - mean ** 2
        return mean, var.clamp(min=0).sqrt()

    def predict(self, out) -> torch.Tensor:
        if self.point == "mean":
            return self._moments(out)[0]
        log_w, mu, _ = out
        return mu.gather(-1, log_w.argmax(-1, keepdim=True)).squeeze(-1).double()

    def uncertainty(self, out, quantiles: Sequence[float] = ()) -> dict[str, torch.Tensor]:
        """``weights``, ``means``, ``stds`` [N, K], the mixture's ``mean``, ``std`` [N] and, when
        asked, its ``quantiles`` [N, Q] at the levels ``quantiles`` ([Q], or [N, Q]: per row)
        (float64)."""
        log_w, mu, sigma = out
        mean, std = self._moments(out)
        res = {"weights": log_w.double().exp(), "means": mu.double(), "stds": sigma.double(),
               "mean": mean, "std": std}
        if torch.as_tensor(quantiles).numel():
            res["quantiles"] = self.quantile(out, quantiles)
        return res

    def sample(self, out, n: int = 1, generator: torch.Generator | None = None) -> torch.Tensor:
        """``n`` draws per number: float64[N, n]."""
        log_w, mu, sigma = (o.double() for o in out)
        comp = torch.multinomial(log_w.exp(), n, replacement=True, generator=generator)
        eps = torch.randn(comp.shape, dtype=torch.float64, device=comp.device, generator=generator)
        return mu.gather(-1, comp) + sigma.gather(-1, comp) * eps

    def cdf(self, out, x: torch.Tensor) -> torch.Tensor:
        """Mixture CDF at ``x`` float64[N, ...] -> float64[N, ...]."""
        log_w, mu, sigma = (o.double() for o in out)
        shape = (x.shape[0],) + (1,) * (x.dim() - 1) + (self.k,)
        z = (x.unsqueeze(-1) - mu.view(shape)) / sigma.view(shape)
        return (log_w.exp().view(shape) * 0.5 * torch.erfc(-z / math.sqrt(2))).sum(-1)

    def quantile(self, out, q: Any, iters: int = 60) -> torch.Tensor:
        """Quantiles ``q`` (in (0, 1); [Q] for every row, or [N, Q] per row) of each mixture by
        bisection on the CDF: float64[N, Q] (float64[N] for a scalar ``q``). 60 halvings of a
        bracket ±12σ wide: ~1e-16 relative."""
        _, mu, sigma = (o.double() for o in out)
        qs = torch.as_tensor(q, dtype=torch.float64, device=mu.device)
        scalar = qs.dim() == 0
        qs = qs if qs.dim() == 2 else qs.reshape(1, -1).expand(mu.shape[0], -1)
        lo = (mu - 12 * sigma).min(-1, keepdim=True).values.expand_as(qs).clone()
        hi = (mu + 12 * sigma).max(-1, keepdim=True).values.expand_as(qs).clone()
        for _ in range(iters):
            mid = (lo + hi) / 2
            below = self.cdf(out, mid) < qs
            lo, hi = torch.where(below, mid, lo), torch.where(below, hi, mid)
        res = (lo + hi) / 2
        return res[:, 0] if scalar else res


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
        values = np.array([math.nan if (v := self.encoding.parse(list(t))) is None else v
                           for t in names], np.float64)
        return names.astype(str), values, p.double().cpu().numpy().reshape(-1, self.k).prod(1)

    def predict(self, out: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(self._numbers(out)[1].repeat(self.k)).to(out.device)

    def uncertainty(self, out: torch.Tensor, quantiles: Sequence[float] = ()) -> dict[str, Any]:
        names, values, p = self._numbers(out)
        return {"tokens": names.repeat(self.k, 0), "p_number": p.repeat(self.k),
                "unparseable": np.isnan(values).repeat(self.k)}


def make_head(encoding: Any, d_model: int, config: dict[str, Any] | None = None,
              vocab: Any = None) -> NumberHead:
    """The number head a config names: ``{"kind": "native", **options}`` (the encoding's own
    head; BitTokens' takes ``point`` and ``mse_weight``) or
    ``{"kind": "mixture", n_components, sigma_min, point, init_range, mse_weight}`` (for
    encodings that write a number as one token). ``vocab``: the model's vocabulary (heads that
    read tokens need it)."""
    config = dict(config or {"kind": "native"})
    kind = config.pop("kind", "native")
    if kind == "native":
        try:
            inspect.signature(encoding.make_head).bind(d_model, vocab, **config)
        except TypeError:
            raise ValueError(f"the native head of {encoding.name} takes no option(s) "
                             f"{sorted(config)}") from None
        return encoding.make_head(d_model, vocab, **config)
    if kind == "mixture":
        if encoding.tokens_per_number != 1:
            raise ValueError(f"encoding {encoding.name} writes a number as "
                             f"{encoding.tokens_per_number} tokens: its head must be "
                             f"{{kind: native}} (the mixture head reads one token per number)")
        return MixtureHead(d_model, **config)
    raise ValueError(f"unknown head kind {kind!r}; choose 'native' or 'mixture'")
