"""Normalizers: fitted statistics, documented range, inverse within one ulp, JSON round trip."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from scinum.tokens.normalize import Normalizer

finite = st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize("method", ["minmax", "standard", "binade", "none"])
@given(train=st.lists(finite, min_size=1, max_size=30), test=st.lists(finite, min_size=1, max_size=30))
def test_inverse_is_exact_to_one_ulp(method, train, test):
    norm = Normalizer.fit(["f"], [(np.zeros(len(train), int), np.array(train))], method)
    x = np.array(test)
    fid = np.zeros(len(x), int)
    back = norm.inverse(norm.forward(x, fid), fid)
    tol = np.spacing(np.maximum(np.abs(x), np.abs(norm.shift[0])))
    underflow = norm.scale[0] * 2.0**-1074  # subnormal results of the division lose bits
    assert np.all(np.abs(back - x) <= np.maximum(tol, underflow))
    if norm.shift[0] == 0 and np.all(np.abs(x) >= 2.0**-1000):
        assert np.array_equal(back, x)
    assert np.log2(norm.scale[0]) == round(np.log2(norm.scale[0]))  # power of two


def test_minmax_maps_training_range_into_bound():
    v = np.array([3.0, 7.0, 11.0, 4.5])
    n = Normalizer.fit(["f"], [(np.zeros(4, int), v)], "minmax", bound=5.0)
    y = n.forward(v, np.zeros(4, int))
    assert np.abs(y).max() <= 5.0 and np.abs(y).max() > 2.5
    assert n.shift[0] == 7.0


@given(lo=st.floats(-1e6, 1e6), width=st.floats(0, 1e6))
def test_binade_puts_the_training_range_in_one_binade(lo, width):
    """Every training value maps into [1.25, 1.75]: sign and exponent bits of the float64 are
    those of 1.5, so only mantissa bits vary (what a bit head then has to predict)."""
    v = np.linspace(lo, lo + width, 7)
    n = Normalizer.fit(["f"], [(np.zeros(7, int), v)], "binade")
    y = n.forward(v, np.zeros(7, int))
    assert np.all((y >= 1.25) & (y <= 1.75)), y
    assert np.all(np.frexp(y)[1] == np.frexp(1.5)[1])
    if width > 1e-9 * abs(lo):  # distinct values, not lost to rounding
        assert y.max() - y.min() > 0.12  # the range fills at least a quarter of the binade


def test_standard_statistics_and_fields_independent():
    rng = np.random.default_rng(0)
    a, b = rng.normal(100, 3, 1000), rng.normal(-2, 0.01, 1000)
    fids = np.r_[np.zeros(1000, int), np.ones(1000, int), -np.ones(3, int)]
    vals = np.r_[a, b, [np.nan] * 3]
    n = Normalizer.fit(["a", "b"], [(fids[:1500], vals[:1500]), (fids[1500:], vals[1500:])], "standard")
    assert n.shift == pytest.approx([a.mean(), b.mean()], rel=1e-12)
    y = n.forward(vals, fids)
    assert 0.5 < y[:1000].std() <= 1 and 0.5 < y[1000:2000].std() <= 1
    assert np.isnan(y[-3:]).all()  # off-number positions untouched
    m = Normalizer.from_dict(n.to_dict())
    assert np.array_equal(m.forward(vals[:2000], fids[:2000]), y[:2000])


def test_unknown_method():
    with pytest.raises(ValueError, match="unknown normalizer method"):
        Normalizer.fit(["f"], [], "zscore")
