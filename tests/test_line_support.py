"""A fill's prediction widened where the line under it was held (scinum.fill.line_support)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st
from scipy.stats import norm

from scinum.fill.line_support import widen
from scinum.fill.past_range import WIDEN

LEVELS = np.array([0.025, 0.16, 0.5, 0.84, 0.975])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(-50, 50), st.floats(0.01, 10), st.floats(-100, 100)), min_size=1, max_size=8))
def test_the_spread_grows_by_half_the_move_and_the_quantiles_stay_ordered_and_wide_enough(rows):
    centre, std, move = (np.array(c, np.float64) for c in zip(*rows))
    unc = {
        "mean": centre.copy(),
        "std": std.copy(),
        "stds": np.stack([std, 2 * std], 1),
        "weights": np.full((len(std), 2), 0.5),
        "quantiles": centre[:, None] + std[:, None] * norm.ppf(LEVELS)[None, :],
    }
    out = widen(unc, move, LEVELS)
    if not move.any():
        assert out is unc
        return
    away = WIDEN * np.abs(move)
    np.testing.assert_allclose(out["std"] ** 2, std**2 + away**2, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(out["stds"] ** 2, unc["stds"] ** 2 + away[:, None] ** 2, rtol=1e-9, atol=1e-12)
    for key in ("mean", "weights"):
        np.testing.assert_array_equal(out[key], unc[key])  # locations carry the held line already
    q = out["quantiles"]
    assert (np.diff(q, axis=1) > 0).all()
    own = centre[:, None] + np.sqrt(std**2 + away**2)[:, None] * norm.ppf(LEVELS)[None, :]
    assert (q[:, 0] <= own[:, 0] + 1e-9).all() and (q[:, -1] >= own[:, -1] - 1e-9).all()
    np.testing.assert_allclose(q[:, 2], centre, atol=1e-9)
