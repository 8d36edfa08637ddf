"""Number heads: the Gaussian-mixture head (NLL floor, init, point predictions, quantiles, samples)."""

import math

import pytest
import torch

from scinum import encodings
from scinum.heads import BitHead, DigitHead, MixtureHead, ScalarHead, make_head


def _out(log_w, mu, sigma):
    t = lambda x: torch.tensor(x, dtype=torch.float32)  # noqa: E731
    return t(log_w), t(mu), t(sigma)


def test_mixture_nll_finite_on_repeated_identical_targets():
    torch.manual_seed(0)
    head = MixtureHead(8, n_components=3, sigma_min=1e-3)
    h = torch.randn(64, 8)
    target = torch.full((64,), 1.2345, dtype=torch.float64)
    opt = torch.optim.Adam(head.parameters(), lr=3e-2)
    for _ in range(20):
        loss = head.loss(head(h), target).mean()
        opt.zero_grad()
        loss.backward()
        assert all(torch.isfinite(p.grad).all() for p in head.parameters())
        opt.step()
    # the limit training drives towards: every sigma collapsed, every mean on the target
    with torch.no_grad():
        head.out.weight.zero_()
        head.out.bias[3:6] = 1.2345
        head.out.bias[6:] = -1e4
    out = head(h)
    assert (out[2] == 1e-3).all()
    nll = head.loss(out, target)
    floor = -math.log(1 / (1e-3 * math.sqrt(2 * math.pi)))
    assert torch.isfinite(nll).all() and nll.min().item() >= floor - 1e-3
    far = head.loss(out, target + 10.0)
    assert torch.isfinite(far).all()
    (nll.mean() + far.mean()).backward()
    assert all(torch.isfinite(p.grad).all() for p in head.parameters())


def test_mixture_means_start_spread_over_range():
    head = MixtureHead(16, n_components=5, init_range=(-5, 5))
    _, mu, sigma = head(torch.zeros(1, 16))
    assert torch.allclose(mu[0], torch.linspace(-5, 5, 5), atol=0.1)
    assert (sigma > 0.5).all()


def test_mixture_point_predictions_and_uncertainty():
    out = _out([[math.log(0.25), math.log(0.75)]], [[-2.0, 4.0]], [[1.0, 0.5]])
    mean = MixtureHead(4, 2, point="mean").predict(out)
    mode = MixtureHead(4, 2, point="mode").predict(out)
    assert mean.dtype == torch.float64 and mean.item() == pytest.approx(2.5)
    assert mode.item() == 4.0
    u = MixtureHead(4, 2).uncertainty(out)
    var = 0.25 * (1 + 4) + 0.75 * (0.25 + 16) - 2.5**2
    assert u["std"].item() == pytest.approx(math.sqrt(var))
    assert u["weights"].sum().item() == pytest.approx(1.0)
    assert set(u) == {"weights", "means", "stds", "mean", "std"}


def test_mixture_quantiles_invert_the_cdf():
    head = MixtureHead(4, 1)
    out = _out([[0.0]], [[1.5]], [[2.0]])
    q = head.quantile(out, [0.1, 0.5, 0.975])
    ref = torch.distributions.Normal(1.5, 2.0).icdf(torch.tensor([0.1, 0.5, 0.975], dtype=torch.float64))
    assert torch.allclose(q[0], ref, atol=1e-9)
    two = MixtureHead(4, 2)
    out2 = _out([[math.log(0.3), math.log(0.7)]], [[-3.0, 2.0]], [[0.5, 1.0]])
    for p in (0.05, 0.3, 0.6, 0.99):
        assert two.cdf(out2, two.quantile(out2, p).unsqueeze(-1)).item() == pytest.approx(p, abs=1e-9)


def test_mixture_quantiles_per_row_invert_the_cdf_without_a_torch_operation_per_halving():
    """Levels per row ([N, Q]) land where the head's own CDF reaches them; the 60 halvings run
    outside torch (numpy), so the torch operations of a call do not grow with them: each would
    hand the GIL to the other threads of a fill and wait to get it back."""
    from torch.utils._python_dispatch import TorchDispatchMode

    from scinum.heads import mixture

    g = torch.Generator().manual_seed(0)
    n, k = 37, 8
    out = (
        torch.log_softmax(torch.randn(n, k, generator=g) * 3, -1),
        torch.randn(n, k, generator=g) * 4,
        torch.rand(n, k, generator=g) * 0.5 + 1e-3,
    )
    head = MixtureHead(4, k)
    levels = torch.rand(n, 3, generator=g, dtype=torch.float64) * 0.98 + 0.01

    class Count(TorchDispatchMode):
        calls = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            Count.calls += 1
            return func(*args, **(kwargs or {}))

    with Count():
        q = head.quantile(out, levels)
    assert q.shape == (n, 3) and q.dtype == torch.float64
    assert Count.calls < 30  # the terms of the CDF and the result's conversions, not 60 × a dozen
    at = head.cdf(out, q)
    assert torch.allclose(at, levels, atol=1e-9, rtol=0)
    # past NUMPY_TERMS the same bisection runs in torch (its erfc is vectorised): the same quantiles
    many = torch.rand(n, mixture.NUMPY_TERMS // (n * k) + 1, generator=g, dtype=torch.float64) * 0.98 + 0.01
    terms = mixture._cdf_terms(out)
    in_torch, in_numpy = mixture._bisect_torch(terms, many, 60), mixture._bisect_numpy(terms, many, 60)
    assert torch.allclose(head.quantile(out, many), in_torch, rtol=0, atol=0)
    assert torch.allclose(in_numpy, in_torch, rtol=1e-11, atol=1e-12)


def test_mixture_samples_match_moments():
    head = MixtureHead(4, 2)
    out = _out([[math.log(0.3), math.log(0.7)]], [[-3.0, 2.0]], [[0.5, 1.0]])
    g = torch.Generator().manual_seed(0)
    s = head.sample(out, 40000, generator=g)
    u = head.uncertainty(out)
    assert s.shape == (1, 40000) and s.dtype == torch.float64
    assert s.mean().item() == pytest.approx(u["mean"].item(), abs=0.05)
    assert s.std().item() == pytest.approx(u["std"].item(), rel=0.03)


def test_make_head_kinds():
    xval, fone, bits = encodings.get("xval"), encodings.get("fone"), encodings.get("bittokens")
    assert isinstance(make_head(xval, 8), ScalarHead)
    assert isinstance(make_head(fone, 8, {"kind": "native"}), DigitHead)
    assert isinstance(make_head(bits, 8), BitHead)
    m = make_head(bits, 8, {"kind": "mixture", "n_components": 3, "point": "mode"})
    assert isinstance(m, MixtureHead) and m.k == 3 and m.point == "mode"
    with pytest.raises(ValueError):
        make_head(xval, 8, {"kind": "gmm"})
    with pytest.raises(ValueError):
        MixtureHead(8, point="median")


@pytest.mark.parametrize("name", ["xval", "fone", "bittokens"])
def test_heads_are_finite_under_bf16_autocast(name):
    enc = encodings.get(name)
    for head in (enc.make_head(16), MixtureHead(16, 4)):
        target = torch.tensor([0.5, -1.25, 3.0], dtype=torch.float64)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = head(torch.randn(3, 16))
            loss = head.loss(out, target)
        assert loss.dtype == torch.float32 and torch.isfinite(loss).all()
        assert head.predict(out).dtype == torch.float64


def test_mixture_mse_weight_adds_the_squared_error_of_the_mean():
    torch.manual_seed(0)
    plain, mixed = MixtureHead(8, 3), MixtureHead(8, 3, mse_weight=0.5)
    mixed.load_state_dict(plain.state_dict())
    h, target = torch.randn(5, 8), torch.tensor([0.3, -1.0, 2.0, 0.0, 4.5], dtype=torch.float64)
    out = plain(h)
    mean = (out[0].exp() * out[1]).sum(-1)
    expected = plain.loss(out, target) + 0.5 * (mean - target.float()) ** 2
    assert torch.allclose(mixed.loss(mixed(h), target), expected, rtol=1e-6)
    assert make_head(encodings.get("xval"), 8, {"kind": "mixture", "mse_weight": 1.0}).mse_weight == 1.0


def test_bit_head_mean_point_and_mantissa_mse():
    """point=mean: sign and exponent by threshold, mantissa the expected value of its bits;
    confident logits decode to the exact half-precision value either way; mse_weight adds the
    squared error of the expected mantissa fraction."""
    from scinum.tokens.bits import float_to_bits

    enc = encodings.get("bittokens", precision=16)
    target = torch.tensor([1.3, 1.5, 1.74, 1.25], dtype=torch.float64)
    sure = (float_to_bits(target, 16).float() * 2 - 1) * 30
    assert torch.equal(make_head(enc, 8).predict(sure), target.half().double())
    mean = make_head(enc, 8, {"kind": "native", "point": "mean"}).predict(sure)
    assert torch.allclose(mean, target.half().double(), rtol=1e-12, atol=0)
    # an undecided top mantissa bit between 1.25 (1.01b) and 1.75 (1.11b): the threshold picks
    # one of them, the mean lies half-way
    logits = sure[3:4].clone()
    logits[0, 6] = 0.0
    mean_head = make_head(enc, 8, {"kind": "native", "point": "mean"})
    assert mean_head.predict(logits).item() == pytest.approx(1.5, abs=1e-3)
    # all-ones exponent: the mean point keeps the thresholded inf
    inf_logits = sure[:1].clone()
    inf_logits[0, 1:6] = 30.0
    inf_logits[0, 6:] = -30.0
    assert mean_head.predict(inf_logits).item() == math.inf
    torch.manual_seed(0)
    plain = make_head(enc, 8)
    mixed = make_head(enc, 8, {"kind": "native", "mse_weight": 3.0})
    out = torch.randn(4, 16)
    fraction = torch.sigmoid(out[:, 6:].double()) @ (2.0 ** -torch.arange(1, 11, dtype=torch.float64))
    expected = plain.loss(out, target) + 3.0 * (fraction - (target.half().double() - 1)).float() ** 2
    assert torch.allclose(mixed.loss(out, target), expected, rtol=1e-5)
    with pytest.raises(ValueError, match="point"):
        make_head(enc, 8, {"kind": "native", "point": "median"})
    with pytest.raises(ValueError, match="takes no option"):
        make_head(encodings.get("fone"), 8, {"kind": "native", "mse_weight": 1.0})


def test_mixture_precondition_keeps_the_nll_and_scales_its_gradients_by_sigma_squared():
    torch.manual_seed(0)
    target = torch.tensor([0.3, -1.0, 2.0, 0.0], dtype=torch.float64)
    raw = (torch.randn(4, 3).log_softmax(-1), torch.randn(4, 3), torch.rand(4, 3) + 0.05)
    grads, losses = [], []
    for precondition in (False, True):
        out = tuple(x.clone().requires_grad_() for x in raw)
        loss = MixtureHead(8, 3, precondition=precondition).loss(out, target)
        loss.sum().backward()
        losses.append(loss.detach())
        grads.append([x.grad for x in out])
    (gw, gm, gs), (pw, pm, ps) = grads
    assert torch.equal(losses[0], losses[1]) and torch.allclose(gw, pw)
    assert torch.allclose(pm, gm * raw[2] ** 2) and torch.allclose(ps, gs * raw[2] ** 2)


def test_mixture_shared_location_moves_every_mean_and_gets_their_gradients():
    torch.manual_seed(0)
    free, shared = MixtureHead(8, 3), MixtureHead(8, 3, location="shared")
    assert shared.out.out_features == free.out.out_features + 1
    h = torch.randn(5, 8)
    _, mu, _ = shared(h)
    loc = shared.features(h)[:, -1:]
    # the means are the spread-out offsets plus one location per number
    assert torch.allclose(mu - loc, shared.features(h)[:, 3:6], atol=1e-6)
    with torch.no_grad():
        shared.out.bias[-1] += 2.5
    _, mu2, _ = shared(h)
    assert torch.allclose(mu2 - mu, torch.full_like(mu, 2.5), atol=1e-5)
    # the NLL's gradient on the location is the sum of its gradients on the means
    target = torch.tensor([0.3, -1.0, 2.0, 0.0, 4.5], dtype=torch.float64)
    z = shared.features(h).detach().requires_grad_()
    shared.features = lambda _: z  # the head's forward on these outputs
    shared.loss(shared(h), target).sum().backward()
    assert torch.allclose(z.grad[:, 9], z.grad[:, 3:6].sum(-1), rtol=1e-5, atol=1e-7)
    assert make_head(encodings.get("xval"), 8, {"kind": "mixture", "location": "shared"}).shared_location
    with pytest.raises(ValueError, match="location"):
        MixtureHead(8, location="pooled")
