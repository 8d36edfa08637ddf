"""The Gaussian-mixture head: a distribution over the normalized value, for any encoding that
writes a number as one token."""

from __future__ import annotations

import json
import math
from typing import Any, Sequence

import numpy as np
import torch
from scipy.special import erfc
import torch.nn.functional as F

from ..tokens.normalize import BOUND
from .base import HeadOutputs, MLPHead

#: the most CDF terms (rows × levels × components) a quantile call bisects in numpy; more go to
#: torch (:meth:`MixtureHead.quantile`), at the size where the two cross on one thread
#: (experiments/fill-throughput)
NUMPY_TERMS = 2048

#: the mixture head's default variance floor (normalized units); checkpoints written before it was
#: raised have no ``sigma_min`` in their head config and keep :data:`LEGACY_SIGMA_MIN`
SIGMA_MIN, LEGACY_SIGMA_MIN = 0.05, 1e-3


def _grad_times(x: torch.Tensor, factor: torch.Tensor) -> torch.Tensor:
    """``x`` in the forward pass; its gradient multiplied by ``factor`` (no gradient) backward."""
    return x.detach() + (x - x.detach()) * factor


class MixtureHead(MLPHead):
    """Gaussian mixture over the normalized value: ``K`` components.

    ``out = (log_w float32[N, K], mu float32[N, K], sigma float32[N, K])`` with log-weights by
    log-softmax, ``sigma = softplus(·) + sigma_min`` and means initialised spread evenly over
    ``init_range`` (free means: the normalized range, xVal's [-5, 5]). The loss is the NLL by logsumexp in
    float32, plus ``mse_weight ·`` (mixture mean − target)² when ``mse_weight > 0``: the squared
    error gives the trunk the direct signal xVal's MSE head has, which the NLL alone gives slowly
    (experiments/fidelity.md).

    Two things keep the NLL's training stable (experiments/fidelity.md, *Mixture head dynamics*). The
    NLL's gradient on a component's mean is ``r (mu − t) / sigma²`` and its curvature
    ``1 / sigma²``: as sigmas sharpen it swamps every other gradient (the token loss included,
    through the shared trunk and the gradient clip) and outgrows what a fixed learning rate can
    follow. ``precondition`` (default on) multiplies the NLL's gradient on each component's mean
    and sigma by that component's ``sigma²`` (detached; the Gaussian's inverse Fisher
    information up to a constant): the loss value and its minima are unchanged, the means get an
    MSE-like pull ``r (mu − t)``. ``sigma_min`` (0.05 normalized units; 1e-3 before, which
    checkpoints without the key keep) is a variance floor: the NLL keeps pulling sigma down
    once the means are right; too low a floor lets the sharpening outrun the optimizer.
    Point prediction: the mixture mean (``point="mean"``) or the mean of the heaviest component
    (``point="mode"``, closer to the mode of a multi-modal prediction).

    ``location`` says where the components' means come from. ``"free"`` (the default, and what
    checkpoints without the key hold): each mean is its own output, starting near its spread-out
    bias, so the mixture starts as a soft classification over bins spread across the normalized
    range. ``"shared"``: one more output, a location ``loc`` read from the hidden state as xVal's
    head reads its value, and ``mu_k = loc + offset_k`` (the offsets are the spread-out outputs,
    starting over ``init_range`` = [-1, 1] unless given: a band around the location, not bins
    across the range). Every component's gradient reaches ``loc``, so the mixture's mean is
    trained as a regression output while the weights, offsets and sigmas give the distribution,
    and predictions can follow a trend past the training range as xVal's head's do; with
    ``mse_weight`` 1 it is ``scinum.Regressor``'s default head (experiments/tabular.md).
    """

    uncertainty_kind = "mixture"
    has_distribution = True
    has_smooth_point = True  # the mixture's mean, whichever point it predicts
    outputs = HeadOutputs(
        point="mean (or mode) of the mixture",
        uncertainty="quantiles",
        columns=("mean", "std", "lo68", "hi68", "lo95", "hi95", "mixture"),
        label="gmm",
        normalizer="standard",
        density="mixture",
    )

    @classmethod
    def check_encoding(cls, encoding: Any) -> None:
        if encoding.tokens_per_number != 1:
            raise ValueError(
                f"encoding {encoding.name} writes a number as "
                f"{encoding.tokens_per_number} tokens: its head must be "
                f"{{kind: native}} (the mixture head reads one token per number)"
            )

    @classmethod
    def evaluation_columns(cls, u: dict[str, Any]) -> dict[str, Any]:
        if "means" not in u:
            return {}
        nan2 = [math.nan] * 2
        return {
            "mean": u["mean"],
            "std": u["std"],
            "lo68": u.get("interval_68", nan2)[0],
            "hi68": u.get("interval_68", nan2)[1],
            "lo95": u.get("interval_95", nan2)[0],
            "hi95": u.get("interval_95", nan2)[1],
            "mixture": json.dumps({"weights": u["weights"], "means": u["means"], "stds": u["stds"]}),
        }

    @classmethod
    def summary_inputs(cls, frame: Any) -> dict[str, Any]:
        if "mixture" not in frame:
            return {}
        mix = [json.loads(m) for m in frame["mixture"]]
        return {
            "lo68": frame["lo68"].to_numpy(),
            "hi68": frame["hi68"].to_numpy(),
            "lo95": frame["lo95"].to_numpy(),
            "hi95": frame["hi95"].to_numpy(),
            "weights": np.array([m["weights"] for m in mix]),
            "means": np.array([m["means"] for m in mix]),
            "stds": np.array([m["stds"] for m in mix]),
        }

    def __init__(
        self,
        d_model: int,
        n_components: int = 8,
        sigma_min: float = SIGMA_MIN,
        point: str = "mean",
        init_range: Sequence[float] | None = None,
        mse_weight: float = 0.0,
        precondition: bool = True,
        location: str = "free",
    ):
        if n_components < 1 or not sigma_min > 0:
            raise ValueError(f"mixture head: need n_components >= 1 and sigma_min > 0, got {n_components}, {sigma_min}")
        if point not in ("mean", "mode"):
            raise ValueError(f"mixture head: point must be 'mean' or 'mode', got {point!r}")
        if location not in ("free", "shared"):
            raise ValueError(f"mixture head: location must be 'free' or 'shared', got {location!r}")
        shared = location == "shared"
        super().__init__(d_model, 3 * n_components + shared)
        self.shared_location = shared
        self.k, self.sigma_min, self.point = int(n_components), float(sigma_min), point
        self.mse_weight, self.precondition = float(mse_weight), bool(precondition)
        if init_range is None:  # offsets around a shared location: a band of ±1 normalized unit
            init_range = (-1.0, 1.0) if shared else (-BOUND, BOUND)
        self.init_range = (float(init_range[0]), float(init_range[1]))
        lo, hi = self.init_range
        with torch.no_grad():
            k = self.k
            self.out.weight[k : 2 * k].mul_(0.1)  # means start near their spread-out biases
            self.out.bias.zero_()
            self.out.bias[k : 2 * k] = torch.linspace(lo, hi, k) if k > 1 else (lo + hi) / 2
            half_gap = (hi - lo) / (2 * k)  # neighbouring components overlap at about 1 sigma
            self.out.bias[2 * k : 3 * k] = math.log(math.expm1(max(half_gap, 2 * self.sigma_min)))
            # a shared location (last output) starts at 0 with the default init of its row

    def forward(self, h: torch.Tensor, token_logits: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        z = self.features(h).float()
        logits, mu, s = z[..., : 3 * self.k].split(self.k, dim=-1)
        if self.shared_location:
            mu = mu + z[..., 3 * self.k :]
        return logits.log_softmax(-1), mu, F.softplus(s) + self.sigma_min

    def loss(self, out, target: torch.Tensor) -> torch.Tensor:
        log_w, mu, sigma = out
        t = target.to(torch.float32).unsqueeze(-1)
        if self.precondition:
            mu, sigma = _grad_times(mu, sigma.detach() ** 2), _grad_times(sigma, sigma.detach() ** 2)
        log_p = -0.5 * ((t - mu) / sigma) ** 2 - sigma.log() - 0.5 * math.log(2 * math.pi)
        nll = -torch.logsumexp(log_w + log_p, dim=-1)
        if self.mse_weight:
            nll = nll + self.mse_weight * (self.smooth_point(out) - t.squeeze(-1)) ** 2
        return nll

    def _moments(self, out) -> tuple[torch.Tensor, torch.Tensor]:
        log_w, mu, sigma = (o.double() for o in out)
        w = log_w.exp()
        mean = (w * mu).sum(-1)
        var = (w * (sigma**2 + mu**2)).sum(-1) - mean**2
        return mean, var.clamp(min=0).sqrt()

    def smooth_point(self, out) -> torch.Tensor:
        log_w, mu, _ = out
        return (log_w.exp() * mu).sum(-1)

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
        res = {"weights": log_w.double().exp(), "means": mu.double(), "stds": sigma.double(), "mean": mean, "std": std}
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
        """Mixture CDF at ``x`` float64[N, ...] -> float64[N, ...], in [0, 1]: the weights are
        renormalised in float64 (float32 log-softmax weights can sum to 1 + 1e-7) and the sum
        clamped (its rounding)."""
        return _cdf_at(_cdf_terms(out), x)

    def quantile(self, out, q: Any, iters: int = 60) -> torch.Tensor:
        """Quantiles ``q`` (in (0, 1); [Q] for every row, or [N, Q] per row) of each mixture by
        bisection on the CDF: float64[N, Q] (float64[N] for a scalar ``q``). 60 halvings of a
        bracket ±12σ wide: ~1e-16 relative.

        Up to :data:`NUMPY_TERMS` terms of the CDF (N·Q·K; a fill's batch asks a few levels of
        a few dozen numbers) the halvings run in numpy with scipy's ``erfc``: there torch's cost
        per operation, and its handing of the GIL to a fill's other threads and back at each one,
        outweighed the arithmetic (experiments/fill-throughput). Above it, as torch operations,
        whose ``erfc`` is vectorised. The two ``erfc`` differ in their last digits, and the
        quantiles with them (experiments/fill-throughput)."""
        terms = _cdf_terms(out)
        qs = torch.as_tensor(q, dtype=torch.float64).to(terms[1].device)
        scalar = qs.dim() == 0
        qs = qs if qs.dim() == 2 else qs.reshape(1, -1).expand(terms[1].shape[0], -1)
        bisect = _bisect_numpy if qs.numel() * self.k <= NUMPY_TERMS else _bisect_torch
        res = bisect(terms, qs, iters)
        return res[:, 0] if scalar else res


def _cdf_terms(out) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """A mixture's ``(w / 2, mu, sigma)`` float64[N, K], the weights renormalised in float64:
    what its CDF reads at every point (:func:`_cdf_at`, :func:`_bisect_numpy`)."""
    log_w, mu, sigma = (o.double() for o in out)
    w = log_w.exp()
    return w / w.sum(-1, keepdim=True) * 0.5, mu, sigma


def _bisect_numpy(terms: tuple[torch.Tensor, ...], qs: torch.Tensor, iters: int) -> torch.Tensor:
    """:meth:`MixtureHead.quantile`'s bisection in numpy: levels ``qs`` float64[N, Q] of the
    mixtures of :func:`_cdf_terms` -> float64[N, Q] on their device."""
    half_w, mu, sigma = (t.detach().cpu().numpy()[:, None, :] for t in terms)  # [N, 1, K]
    q = qs.cpu().numpy()
    lo = np.broadcast_to((mu - 12 * sigma).min(-1), q.shape).copy()
    hi = np.broadcast_to((mu + 12 * sigma).max(-1), q.shape).copy()
    for _ in range(iters):
        mid = (lo + hi) / 2
        below = (half_w * erfc((mu - mid[..., None]) / sigma / math.sqrt(2))).sum(-1) < q  # the CDF < q
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return torch.from_numpy((lo + hi) / 2).to(terms[1].device)


def _bisect_torch(terms: tuple[torch.Tensor, ...], qs: torch.Tensor, iters: int) -> torch.Tensor:
    """The same bisection as :func:`_bisect_numpy`, on :func:`_cdf_at`."""
    _, mu, sigma = terms
    lo = (mu - 12 * sigma).amin(-1, keepdim=True).expand_as(qs).clone()
    hi = (mu + 12 * sigma).amax(-1, keepdim=True).expand_as(qs).clone()
    for _ in range(iters):
        mid = (lo + hi) / 2
        below = _cdf_at(terms, mid) < qs
        lo, hi = torch.where(below, mid, lo), torch.where(below, hi, mid)
    return (lo + hi) / 2


def _cdf_at(terms: tuple[torch.Tensor, ...], x: torch.Tensor) -> torch.Tensor:
    """The CDF of the mixtures of :func:`_cdf_terms` at ``x`` float64[N, ...] -> float64[N, ...],
    clamped to [0, 1] (the sum's rounding)."""
    half_w, mu, sigma = terms
    shape = (x.shape[0],) + (1,) * (x.dim() - 1) + (mu.shape[-1],)
    z = (x.unsqueeze(-1) - mu.view(shape)) / sigma.view(shape)
    return (half_w.view(shape) * torch.erfc(-z / math.sqrt(2))).sum(-1).clamp(0.0, 1.0)
