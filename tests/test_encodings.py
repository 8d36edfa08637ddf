"""Number encodings: exact decode over each documented range, feature properties, heads."""

import math

import pytest
import torch
from hypothesis import assume, given, settings, strategies as st

from scinum import encodings
from scinum.errors import ValueOutOfRange


def bits_of(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.float64).view(torch.int64)


any_float64 = st.integers(-(2**63), 2**63 - 1).map(lambda i: torch.tensor([i], dtype=torch.int64).view(torch.float64).item())


@settings(max_examples=300)
@given(st.lists(any_float64, min_size=1, max_size=20), st.booleans())
def test_bittokens_bit_exact_on_every_float64(values, reciprocal):
    enc = encodings.get("bittokens", reciprocal=reciprocal)
    x = torch.tensor(values, dtype=torch.float64)
    f = enc.encode(x)
    assert f.shape == (len(values), enc.dim)
    assert set(f.unique().tolist()) <= {-1.0, 1.0}
    assert torch.equal(bits_of(enc.decode(f)), bits_of(x))


def test_bittokens_specials_and_layout():
    enc = encodings.get("bittokens")
    specials = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, -2.2e-308, 1.0])
    assert torch.equal(bits_of(enc.decode(enc.encode(specials))), bits_of(specials))
    one = enc.encode(torch.tensor([1.0]))[0]
    # 1.0 = sign 0, exponent 01111111111, mantissa 0: MSB first
    assert one[0] == -1 and one[1] == -1 and (one[2:12] == 1).all() and (one[12:] == -1).all()
    assert enc.encode(torch.tensor([-1.0]))[0, 0] == 1


NARROW = {32: (torch.float32, torch.int32), 16: (torch.float16, torch.int16)}


@settings(max_examples=200)
@given(st.lists(any_float64, min_size=1, max_size=20), st.sampled_from([32, 16]), st.booleans())
def test_bittokens_narrow_precision_is_the_rounded_format_bit_for_bit(values, precision, reciprocal):
    """precision 32/16: the features are the bits of the value rounded to float32/half (so
    decode gives exactly that rounding, its sign, infinities and NaN included)."""
    fdtype, idtype = NARROW[precision]
    enc = encodings.get("bittokens", precision=precision, reciprocal=reciprocal)
    x = torch.tensor(values, dtype=torch.float64)
    f = enc.encode(x)
    assert f.shape == (len(values), enc.dim) and enc.dim == precision * (1 + reciprocal)
    rounded = x.to(fdtype)
    words = rounded.view(idtype).to(torch.int64)
    expected = ((words.unsqueeze(-1) >> torch.arange(precision - 1, -1, -1)) & 1) * 2 - 1
    assert torch.equal(f[:, :precision], expected.float())
    back = enc.decode(f)
    assert torch.equal(back.isnan(), rounded.isnan())
    ok = ~rounded.isnan()
    assert torch.equal(back[ok].to(fdtype).view(idtype), rounded[ok].view(idtype))
    assert torch.equal(enc.representable(x), rounded.isfinite() | ~x.isfinite())


def test_bittokens_half_layout_and_range():
    enc = encodings.get("bittokens", precision=16)
    one = enc.encode(torch.tensor([1.5]))[0]  # 1.5 = sign 0, exponent 01111, mantissa 1000000000
    assert one.tolist() == [-1, -1, 1, 1, 1, 1, 1] + [-1] * 9
    assert enc.representable(torch.tensor([65504.0, 65520.0, -1e6, math.inf])).tolist() == [True, False, False, True]
    assert "65504" in enc.range_text()
    with pytest.raises(ValueError, match="precision"):
        encodings.get("bittokens", precision=8)


@st.composite
def fone_cases(draw):
    m = draw(st.integers(0, 8))
    n = draw(st.integers(0, 15 - m))
    assume(m + n >= 1)
    N = draw(st.integers(0, 10 ** (m + n) - 1))
    sign = draw(st.sampled_from([1, -1]))
    return m, n, sign * N / 10**n  # the float64 nearest to that decimal


@settings(max_examples=400)
@given(fone_cases())
def test_fone_exact_for_representable_numbers(case):
    m, n, x = case
    enc = encodings.get("fone", int_digits=m, frac_digits=n, strict=True)
    t = torch.tensor([x], dtype=torch.float64)
    assert enc.representable(t).all()
    f = enc.encode(t)
    assert f.shape[-1] == enc.dim == 2 * (m + n) + 2
    # norm-invariant: every (cos, sin) pair, the sign pair included, has unit norm
    assert torch.allclose(f.pow(2).mean(-1), torch.tensor(0.5), atol=1e-6)
    back = enc.decode(f)
    assert back.item() == x and math.copysign(1, back.item()) == math.copysign(1, x)


def test_fone_sign_and_digits():
    enc = encodings.get("fone", int_digits=2, frac_digits=2)
    sign, digits = enc.digits(torch.tensor([-12.34, 5.6]))
    assert sign.tolist() == [1, 0]
    assert digits.tolist() == [[1, 2, 3, 4], [0, 5, 6, 0]]
    assert enc.from_digits(sign, digits).tolist() == [-12.34, 5.6]


def test_fone_range_errors_and_rounding():
    enc = encodings.get("fone", int_digits=2, frac_digits=1)
    with pytest.raises(ValueOutOfRange, match="100.0 is outside .* 1e2"):
        enc.check(torch.tensor([1.0, 100.0]))
    assert enc.decode(enc.encode(torch.tensor([3.14159]))).item() == 3.1  # documented rounding
    strict = encodings.get("fone", int_digits=2, frac_digits=1, strict=True)
    with pytest.raises(ValueOutOfRange, match="3.14159"):
        strict.check(torch.tensor([3.14159]))
    with pytest.raises(ValueError, match="<= 15"):
        encodings.get("fone", int_digits=10, frac_digits=6)


@given(st.lists(st.floats(-1e30, 1e30, allow_nan=False), min_size=1, max_size=20))
def test_xval_within_float32_rounding(values):
    enc = encodings.get("xval")
    x = torch.tensor(values, dtype=torch.float64)
    back = enc.decode(enc.encode(x))
    assert torch.equal(back, x.to(torch.float32).to(torch.float64))
    # relative float32 rounding, or underflow below the smallest float32 subnormal (2^-149)
    assert torch.all((back - x).abs() <= torch.clamp(x.abs() * 2.0**-24, min=2.0**-150))


def test_xval_range():
    with pytest.raises(ValueOutOfRange, match="6.0 is outside"):
        encodings.get("xval", max_abs=5).check(torch.tensor([1.0, 6.0]))
    with pytest.raises(ValueOutOfRange):
        encodings.get("xval").check(torch.tensor([1e39]))


@pytest.mark.parametrize("name", ["xval", "fone", "bittokens"])
def test_registry_config_round_trip_and_heads(name):
    enc = encodings.get(name)
    again = encodings.from_config(enc.config())
    assert again.config() == enc.config() and type(again) is type(enc)
    assert enc.combine in ("multiply", "add")
    head = enc.make_head(16)
    out = head(torch.randn(5, 16))
    target = torch.tensor([0.5, -1.25, 2.0, 0.0, 3.75], dtype=torch.float64)
    loss = head.loss(out, target)
    assert loss.shape == (5,) and torch.isfinite(loss).all() and (loss >= 0).all()
    loss.sum().backward()
    assert head.predict(out).dtype == torch.float64


def test_unknown_encoding():
    with pytest.raises(ValueError, match="unknown number encoding 'p10x'"):
        encodings.get("p10x")


@pytest.mark.parametrize("name, tol", [("xval", 1e-3), ("fone", 0.0), ("bittokens", 0.0)])
def test_native_heads_fit_a_value(name, tol):
    """Each native head can learn to predict a fixed target exactly (decoded as float64)."""
    torch.manual_seed(0)
    target = torch.tensor([-2.5, 1.75], dtype=torch.float64)
    head = encodings.get(name).make_head(8)
    h = torch.randn(2, 8)
    opt = torch.optim.Adam(head.parameters(), lr=1e-2)
    for _ in range(300):
        opt.zero_grad()
        head.loss(head(h), target).mean().backward()
        opt.step()
    pred = head.predict(head(h))
    assert torch.allclose(pred, target, atol=tol), pred
