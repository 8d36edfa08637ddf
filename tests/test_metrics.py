"""scinum.analysis.metrics against hand-computed values, edge cases and properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scinum.analysis.metrics import (
    SUMMARY_KEYS,
    adjusted_r2,
    exact_match,
    gmm_nll,
    gmm_nll_per_sample,
    integer_exact_match,
    interval_coverage,
    log_smape,
    log_smape_per_sample,
    median_relative_error,
    mse,
    r2,
    summarize,
    unparseable_fraction,
)

NAN = math.nan
finite = st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False)


def test_mse_and_r2_hand_computed():
    y, yhat = [1.0, 2.0, 3.0], [1.0, 3.0, 5.0]
    assert mse(y, yhat) == pytest.approx((0 + 1 + 4) / 3)
    # SST = 1 + 0 + 1 = 2, SSE = 5
    assert r2(y, yhat) == pytest.approx(1 - 5 / 2)


def test_nan_predictions_are_dropped_not_zeroed():
    y, yhat = [1.0, 2.0, 3.0, 10.0], [1.0, 3.0, 5.0, NAN]
    assert mse(y, yhat) == pytest.approx(5 / 3)  # as zero it would be (5 + 100) / 4
    assert r2(y, yhat) == pytest.approx(-1.5)
    assert exact_match(y, yhat) == pytest.approx(1 / 3)
    assert unparseable_fraction(yhat) == 0.25


def test_all_unparseable_and_empty_give_nan():
    y, yhat = [1.0, 2.0], [NAN, NAN]
    for f in (mse, r2, log_smape, exact_match):
        assert math.isnan(f(y, yhat))
    assert unparseable_fraction(yhat) == 1.0
    assert math.isnan(unparseable_fraction([]))
    assert math.isnan(mse([], []))


def test_constant_y_r2_is_nan_and_perfect_is_one():
    assert math.isnan(r2([2.0, 2.0, 2.0], [2.0, 2.0, 2.0]))
    assert math.isnan(r2([2.0, 2.0], [1.0, 3.0]))
    y = np.array([0.3, -1.5, 7.25])
    assert r2(y, y) == 1.0
    assert mse(y, y) == 0.0
    assert exact_match(y, y, rtol=0, atol=0) == 1.0


def test_log_smape_hand_computed():
    # exact: s = 0 -> log10(1e-100)/-15 = 6.67 -> capped at 1
    assert log_smape([3.5], [3.5]) == 1.0
    assert log_smape([0.0], [0.0]) == 1.0
    # sign error: s = 2|y| / 2|y| = 1 -> log10(1) = 0
    assert log_smape([2.0], [-2.0]) == pytest.approx(0.0, abs=1e-15)
    # y = 1, yhat = 1.001: s = 0.001 / 2.001, score = -log10(s) / 15
    assert log_smape([1.0], [1.001]) == pytest.approx(-math.log10(0.001 / 2.001) / 15)
    # error in the 8th digit: ~ 8 of 15 digits
    assert log_smape([1.0], [1.0 + 2e-8]) == pytest.approx(8 / 15, abs=1e-6)
    per = log_smape_per_sample([1.0, 2.0, 5.0], [1.0, -2.0, NAN])
    assert per[0] == 1.0 and per[1] == pytest.approx(0.0, abs=1e-15) and math.isnan(per[2])
    assert log_smape([1.0, 2.0, 5.0], [1.0, -2.0, NAN]) == pytest.approx(0.5)


def test_log_smape_infinities():
    per = log_smape_per_sample([1.0, math.inf, -math.inf], [math.inf, math.inf, math.inf])
    assert per.tolist() == [0.0, 1.0, 0.0]


def test_exact_match_tolerance():
    y = [1.0, 100.0, 0.0]
    assert exact_match(y, [1.0 + 1e-9, 100.0 + 1e-3, 1e-13]) == pytest.approx(2 / 3)
    assert exact_match(y, [1.0 + 1e-9, 100.0 + 1e-3, 1e-13], rtol=1e-4) == 1.0
    assert exact_match(y, [1.0 + 1e-9, 100.0, 0.0], rtol=0, atol=0) == pytest.approx(2 / 3)


def test_gmm_nll_hand_computed():
    # standard normal at y = 0 and y = 1: 0.5 log 2pi and 0.5 log 2pi + 0.5
    half_log_2pi = 0.5 * math.log(2 * math.pi)
    w, mu, sd = [[1.0], [1.0]], [[0.0], [0.0]], [[1.0], [1.0]]
    assert gmm_nll_per_sample([0.0, 1.0], w, mu, sd) == pytest.approx([half_log_2pi, half_log_2pi + 0.5])
    assert gmm_nll([0.0, 1.0], w, mu, sd) == pytest.approx(half_log_2pi + 0.25)
    # two equal components at ±1, sd 2, y = 1: density = 0.5 (N(0; 0, 2) + N(2; 0, 2))
    dens = 0.5 * (1 / (2 * math.sqrt(2 * math.pi))) * (1 + math.exp(-0.5))
    assert gmm_nll([1.0], [[0.3, 0.3]], [[-1.0, 1.0]], [[2.0, 2.0]]) == pytest.approx(-math.log(dens))  # weights normalized per row


def test_gmm_nll_is_stable_far_in_the_tail():
    nll = gmm_nll_per_sample([1e4], [[0.5, 0.5]], [[0.0, 1.0]], [[1e-3, 1e-3]])
    assert np.isfinite(nll).all() and nll[0] > 1e12
    assert math.isnan(gmm_nll_per_sample([0.0], [[NAN]], [[NAN]], [[NAN]])[0])
    with pytest.raises(ValueError, match=r"\[N=2, K\]"):
        gmm_nll([0.0, 1.0], [[1.0]], [[0.0]], [[1.0]])


def test_interval_coverage():
    y = [0.0, 1.0, 2.0, 3.0, 4.0]
    lo, hi = [-1.0, 1.0, 2.5, 0.0, NAN], [1.0, 1.0, 3.0, 2.0, 5.0]
    # inside (bounds inclusive): row 0, row 1; outside: row 2, row 3; row 4 has no interval
    assert interval_coverage(y, lo, hi) == 0.5
    assert math.isnan(interval_coverage([1.0], [NAN], [NAN]))


def test_summarize_keys_and_values():
    y = [1.0, 2.0, 3.0, 4.0]
    yhat = [1.0, 2.5, NAN, 4.0]
    s = summarize(y, yhat)
    assert tuple(s) == SUMMARY_KEYS
    assert s["n"] == 4 and s["unparseable"] == 0.25
    assert s["mse"] == pytest.approx(0.25 / 3)
    assert s["exact"] == pytest.approx(2 / 3)
    for k in ("nll", "coverage68", "coverage95"):
        assert math.isnan(s[k])
    s = summarize(
        y,
        yhat,
        lo68=[0.0, 0.0, 0.0, 0.0],
        hi68=[2.0, 2.0, 2.0, 2.0],
        lo95=[0.0] * 4,
        hi95=[9.0] * 4,
        weights=[[1.0]] * 4,
        means=[[0.0]] * 4,
        stds=[[1.0]] * 4,
    )
    # parseable rows y = 1, 2, 4: coverage68 2/3 (row 3 is not counted although 3 > 2)
    assert s["coverage68"] == pytest.approx(2 / 3) and s["coverage95"] == 1.0
    assert s["nll"] == pytest.approx(0.5 * math.log(2 * math.pi) + 0.5 * (1 + 4 + 16) / 3)


def test_errors():
    with pytest.raises(ValueError, match="length"):
        mse([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="NaN"):
        mse([NAN], [1.0])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(finite, finite), min_size=1, max_size=20))
def test_log_smape_in_unit_interval_and_symmetric(pairs):
    y, yhat = np.array(pairs).T
    score = log_smape_per_sample(y, yhat)
    assert ((score >= 0) & (score <= 1)).all()
    assert np.array_equal(score, log_smape_per_sample(yhat, y))


@settings(max_examples=100, deadline=None)
@given(st.lists(finite, min_size=1, max_size=20))
def test_perfect_prediction_is_perfect(values):
    y = np.array(values)
    s = summarize(y, y.copy())
    assert s["mse"] == 0.0 and s["log_smape"] == 1.0 and s["exact"] == 1.0
    assert s["unparseable"] == 0.0
    assert math.isnan(s["r2"]) if np.ptp(y) == 0 else s["r2"] == 1.0


def test_r2_of_tiny_and_huge_fields():
    """Found by hypothesis: SST of [0, 6.95e-221] underflows to 0 (ZeroDivisionError before)."""
    assert r2([0.0, 6.95e-221], [0.0, 6.95e-221]) == 1.0
    y, yhat = np.array([1.0, 2.0, 4.0, 3.0]), np.array([1.5, 2.0, 3.0, 3.5])
    for scale in (1e-300, 1e-220, 1e200):
        assert r2(y * scale, yhat * scale) == pytest.approx(r2(y, yhat), rel=1e-12)
    assert r2([1e-300, 2e-300], [1e300, 2e-300]) == -math.inf  # scaled error overflows


def test_adjusted_r2_hand_computed():
    # y = 1..5, yhat off by +1 at 2 and -1 at 4: SSE = 2, SST = 4+1+0+1+4 = 10, R² = 0.8;
    # n = 5, p = 2: adjusted = 1 - 0.2 * 4 / 2 = 0.6
    y, yhat = [1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 3.0, 3.0, 3.0, 5.0]
    assert r2(y, yhat) == pytest.approx(0.8)
    assert adjusted_r2(y, yhat, 2) == pytest.approx(0.6)
    assert adjusted_r2(y, yhat, 0) == pytest.approx(0.8)  # no predictors: plain R²
    assert adjusted_r2(y, yhat, 1) == pytest.approx(1 - 0.2 * 4 / 3)
    # NaN predictions are dropped first: n = 4 parseable -> 1 - (1 - R²_4) * 3 / 1
    y4, p4 = [1.0, 2.0, 3.0, 4.0, 9.0], [1.0, 3.0, 3.0, 3.0, NAN]
    r = r2(y4, p4)  # SST = 5, SSE = 2 -> 0.6
    assert r == pytest.approx(0.6) and adjusted_r2(y4, p4, 2) == pytest.approx(1 - 0.4 * 3)
    assert adjusted_r2(y, yhat, 3) == pytest.approx(1 - 0.2 * 4 / 1)
    assert math.isnan(adjusted_r2(y, yhat, 4))  # n = p + 1: no degrees of freedom
    assert math.isnan(adjusted_r2([2.0, 2.0, 2.0, 2.0], [1.0, 2.0, 3.0, 2.0], 1))  # SST = 0
    with pytest.raises(ValueError, match="n_predictors"):
        adjusted_r2(y, yhat, -1)


def test_integer_exact_match_hand_computed():
    y = [56088.0, 1048676.0, 7.0, 10.0, 3.0]
    #      right (rounds)  off by one  half -> even 8  -inf         unparseable
    yhat = [56088.4, 1048677.0, 7.5, -math.inf, NAN]
    assert integer_exact_match(y, yhat) == pytest.approx(1 / 4)
    assert integer_exact_match([7.0], [6.5]) == 0.0 and integer_exact_match([6.0], [6.5]) == 1.0
    assert math.isnan(integer_exact_match([1.0], [NAN]))
    with pytest.raises(ValueError, match="integers"):
        integer_exact_match([1.5], [1.5])


def test_median_relative_error_hand_computed():
    # relative errors 0.1, 0.5, 0.02, (y = 0 dropped), (NaN dropped), inf -> median of
    # [0.02, 0.1, 0.5, inf] = (0.1 + 0.5) / 2
    y = [10.0, -4.0, 100.0, 0.0, 5.0, 2.0]
    yhat = [11.0, -6.0, 98.0, 3.0, NAN, math.inf]
    assert median_relative_error(y, yhat) == pytest.approx(0.3)
    assert median_relative_error([1.0, 2.0, 4.0], [1.0, 2.2, 5.0]) == pytest.approx(0.1)
    assert math.isnan(median_relative_error([0.0], [1.0]))
