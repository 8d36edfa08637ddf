"""Fill holds the network's part on top of a line within the line's reach (scinum.fill.line_reach)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.stats import norm

from scinum.fill.line_reach import hold
from scinum.fill.past_range import WIDEN

LEVELS = np.array([0.025, 0.16, 0.5, 0.84, 0.975])


def _gaussian(part: np.ndarray, std: np.ndarray) -> dict[str, np.ndarray]:
    return {
        "mean": part.copy(),
        "std": std.copy(),
        "means": np.stack([part - std, part + std], 1),
        "stds": np.stack([std, 2 * std], 1),
        "weights": np.full((len(part), 2), 0.5),
        "quantiles": part[:, None] + std[:, None] * norm.ppf(LEVELS)[None, :],
    }


finite = st.floats(-50, 50, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(finite, st.floats(0.01, 10), st.floats(-5, 0), st.floats(0, 5)), min_size=1, max_size=8))
def test_within_the_reach_nothing_moves_and_past_it_the_mean_holds_and_the_spread_grows(rows):
    part, std, lo, hi = (np.array(c, np.float64) for c in zip(*rows))
    unc = _gaussian(part, std)
    held, out = hold(part, unc, lo, hi, LEVELS)
    shift = np.clip(part, lo, hi) - part
    if not shift.any():
        assert held is part and out is unc  # exactly as it was
        return
    away = WIDEN * np.abs(shift)
    np.testing.assert_array_equal(held, np.clip(part, lo, hi))
    np.testing.assert_allclose(out["mean"], unc["mean"] + shift)
    np.testing.assert_allclose(out["means"], unc["means"] + shift[:, None])
    np.testing.assert_allclose(out["std"] ** 2, std**2 + away**2, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(out["stds"] ** 2, unc["stds"] ** 2 + away[:, None] ** 2, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(out["weights"], unc["weights"])
    q = out["quantiles"]
    assert (np.diff(q, axis=1) > 0).all()  # still in order of their levels
    # at least as wide as the widened Gaussian's own quantiles around the held mean
    own = held[:, None] + np.sqrt(std**2 + away**2)[:, None] * norm.ppf(LEVELS)[None, :]
    assert (q[:, 0] <= own[:, 0] + 1e-9).all() and (q[:, -1] >= own[:, -1] - 1e-9).all()
    np.testing.assert_allclose(q[:, 2], held, atol=1e-9)  # the median moves with the mean


def test_a_field_without_a_reach_is_never_held():
    part = np.array([1e6, -1e6, 0.0])
    unc = {"std": np.ones(3)}
    held, out = hold(part, unc, np.full(3, -np.inf), np.full(3, np.inf), ())
    assert held is part and out is unc


def test_only_the_rows_past_their_reach_change():
    part = np.array([0.5, 9.0, -7.0])
    held, out = hold(part, {"std": np.ones(3)}, np.array([-1.0, -1.0, -2.0]), np.array([1.0, 3.0, 2.0]), ())
    assert held.tolist() == [0.5, 3.0, -2.0]
    assert out["std"] == pytest.approx([1.0, np.hypot(1, WIDEN * 6), np.hypot(1, WIDEN * 5)])
