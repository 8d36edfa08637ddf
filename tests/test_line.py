"""scinum.fill.line: the least-squares line under a Regressor's network, and the edges that choose it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scinum.fill.line import BEND_FOLDS, Line, bends_clearly, edge_errors, held_edges

sklearn = pytest.importorskip("sklearn")


def _records(X: np.ndarray, y: np.ndarray, names=("a", "b", "c")) -> list[dict]:
    return [{**{n: float(v) for n, v in zip(names, row)}, "y": float(t)} for row, t in zip(X, y)]


def test_the_line_is_ordinary_least_squares():
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    y = X @ [1.5, -2.0, 0.3] + 4 + rng.normal(0, 0.5, 50)
    line = Line.fit(_records(X, y), ["y"], choose=False)
    ols = LinearRegression().fit(X, y)
    assert line.inputs == ["a", "b", "c"] and line.used.tolist() == [True]
    np.testing.assert_allclose(line.coef[0], ols.coef_, rtol=1e-10)
    np.testing.assert_allclose(line.intercept[0], ols.intercept_, rtol=1e-10)
    np.testing.assert_allclose(line.predict(_records(X, y))[:, 0], ols.predict(X), rtol=1e-10)
    assert (line.lo[0], line.hi[0]) == (y.min(), y.max())


@settings(max_examples=30, deadline=None)
@given(
    w=st.lists(st.floats(-100, 100), min_size=2, max_size=2),
    b=st.floats(-1e3, 1e3),
    seed=st.integers(0, 2**16),
)
def test_residuals_and_the_line_add_back_to_the_target(w, b, seed):
    X = np.random.default_rng(seed).uniform(-5, 5, size=(20, 2))
    y = X @ w + b
    records = _records(X, y, names=("a", "b"))
    line = Line.fit(records, ["y"], choose=False)
    left = line.residuals(records)
    back = np.array([r["y"] for r in left]) + line.predict(records)[:, 0]
    np.testing.assert_allclose(back, y, rtol=1e-9, atol=1e-9 * (1 + np.abs(y).max()))
    np.testing.assert_allclose([r["y"] for r in left], 0, atol=1e-7 * (1 + np.abs(y).max()))  # an exact line leaves nothing
    assert [r["a"] for r in left] == [r["a"] for r in records] and records[0]["y"] == y[0]  # inputs and the caller's rows kept


def test_the_edges_choose_a_line_for_a_straight_target_and_not_for_a_saturating_one():
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 1, (200, 1))
    straight = 2 * x[:, 0] + 1 + rng.normal(0, 0.02, 200)
    saturating = np.tanh(4 * x[:, 0]) + rng.normal(0, 0.02, 200)
    line, trees, held = edge_errors(x, straight)
    assert held == 40 and line < trees / 10  # a tenth at the top, a tenth at the bottom
    line, trees, held = edge_errors(x, saturating)
    assert held == 40 and line > trees
    both = Line.fit([{"x": float(v), "s": float(a), "t": float(b)} for v, a, b in zip(x[:, 0], straight, saturating)], ["s", "t"])
    assert both.used.tolist() == [True, False]
    assert both.coef[1].tolist() == [0.0] and both.intercept[1] == 0.0  # no line: predicts 0, leaves the target as it is
    rows = [{"x": 0.5, "s": 2.0, "t": 0.7}]
    assert both.residuals(rows)[0]["t"] == 0.7


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_deciding_only_fits_fewer_trees_and_chooses_the_same(seed, monkeypatch):
    """``decide_only`` (what Line.fit uses) stops fitting trees once their sum passes the line's:
    the same line sum, rows held out and choice as with every edge fitted, on a straight, a
    saturating and a near-tie target; a straight target needs one tree fit of 2 per input."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    fits = []
    real = HistGradientBoostingRegressor.fit
    monkeypatch.setattr(HistGradientBoostingRegressor, "fit", lambda self, *a, **k: fits.append(1) or real(self, *a, **k))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(150, 3))
    targets = {
        "straight": X @ [1.0, -2.0, 0.5] + rng.normal(0, 0.05, 150),
        "saturating": np.tanh(3 * X[:, 0]) + rng.normal(0, 0.05, 150),
        "noise": rng.normal(size=150),
    }
    for name, y in targets.items():
        fits.clear()
        line, trees, held = edge_errors(X, y)
        assert len(fits) == 6, name  # 3 inputs x 2 edges
        fits.clear()
        quick_line, quick_trees, quick_held = edge_errors(X, y, decide_only=True)
        assert (quick_line, quick_held) == (line, held) and (quick_line < quick_trees) == (line < trees), name
        assert quick_trees <= trees and (quick_trees == trees) == (len(fits) == 6), name
        if name == "straight":
            assert len(fits) == 1 and quick_trees > quick_line
        if name == "saturating":
            assert len(fits) == 6 and quick_trees == trees


def test_too_few_rows_or_values_hold_out_no_edge():
    x = np.arange(9.0)[:, None]  # 9 distinct values: fewer than an input is tested with
    assert edge_errors(x, 2 * x[:, 0]) == (0.0, 0.0, 0)
    assert Line.fit([{"x": float(v), "y": 2 * float(v)} for v in x[:, 0]], ["y"]).used.tolist() == [False]


def test_inputs_are_the_top_level_numbers_and_a_missing_one_reads_its_mean():
    records = [
        {"a": 1.0, "s": "north", "flag": True, "l": [1, 2], "mixed": 1.0, "y": 2.0},
        {"a": 2.0, "s": "south", "flag": False, "l": [3], "mixed": "x", "y": 4.0},
        {"a": 3.0, "s": "north", "flag": True, "l": [], "y": 6.0},
    ]
    line = Line.fit(records, ["y"], choose=False)
    assert line.inputs == ["a"] and line.means.tolist() == [2.0]
    np.testing.assert_allclose(line.predict([{"a": None}, {}, {"a": float("nan")}, {"a": 10.0}])[:, 0], [4.0, 4.0, 4.0, 20.0])


def test_a_nested_target_and_its_round_trip_through_a_dict():
    rng = np.random.default_rng(2)
    x = rng.uniform(0, 1, 60)
    records = [{"x": float(v), "out": {"y": [0.0, float(3 * v - 1)]}} for v in x]
    line = Line.fit(records, ["out.y[1]"])
    assert line.used.tolist() == [True]
    left = line.residuals(records)
    assert abs(left[0]["out"]["y"][1]) < 1e-9 and records[0]["out"]["y"][1] == 3 * x[0] - 1  # a copy, not the caller's
    again = Line.from_dict(line.to_dict())
    np.testing.assert_array_equal(again.predict(records), line.predict(records))
    assert again.targets == ["out.y[1]"] and again.used.tolist() == [True]


def test_a_line_that_overflows_on_the_rows_is_not_kept():
    x = np.linspace(0, 1, 40)
    records = [{"x": float(v) * 1e300, "y": float(v) * 1e308} for v in x]
    line = Line.fit(records, ["y"], choose=False)
    assert line.used.tolist() == [False] and not line
    assert line.residuals(records) == records and (line.predict(records) == 0).all()


def _straight_and_saturating(seed: int, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """Inputs U(0, 1)²; a target straight in ``a``, and in ``b`` up to 0.8, flat above it."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, 2))
    return X, 2 * X[:, 0] + np.minimum(X[:, 1], 0.8) + rng.normal(0, 0.02, n)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_the_edges_hold_a_saturating_input_at_its_top_and_carry_the_straight_one(seed):
    X, y = _straight_and_saturating(seed)
    held = held_edges(X, y)
    assert held.tolist() == [[False, False], [True, False]]  # b's top is flat; its bottom and a are straight
    line = Line.fit(_records(X, y, names=("a", "b")), ["y"])
    assert line.used.tolist() == [True] and line.held[0].tolist() == held.tolist()


def test_a_held_input_reads_its_edge_past_the_range_and_the_others_go_on():
    X, y = _straight_and_saturating(0)
    line = Line.fit(_records(X, y, names=("a", "b")), ["y"])
    a_hi, b_hi, b_lo = X[:, 0].max(), X[:, 1].max(), X[:, 1].min()
    rows = [{"a": 0.5, "b": 1.6}, {"a": 1.4, "b": 0.5}, {"a": 1.4, "b": 1.6}, {"a": 0.5, "b": -0.5}, {"a": 0.5, "b": 0.5}]
    clipped = [{"a": min(r["a"], a_hi), "b": min(max(r["b"], b_lo), b_hi)} for r in rows]
    got = line.predict(rows, clipped)[:, 0]
    trend = line.predict(rows)[:, 0]
    a, b = line.coef[0]
    at = lambda x, z: line.intercept[0] + a * x + b * z  # noqa: E731
    np.testing.assert_allclose(got, [at(0.5, b_hi), at(1.4, 0.5), at(1.4, b_hi), at(0.5, -0.5), at(0.5, 0.5)], rtol=1e-12)
    np.testing.assert_array_equal(got[[1, 3, 4]], trend[[1, 3, 4]])  # a is carried on, b's bottom too, inside nothing moves
    assert (got[[0, 2]] < trend[[0, 2]]).all()  # b's slope is positive: holding it at the top stays lower
    again = Line.from_dict(line.to_dict())
    np.testing.assert_array_equal(again.predict(rows, clipped)[:, 0], got)
    old = line.to_dict()
    del old["held"]  # a Regressor saved before the holds: the line goes on in every input
    np.testing.assert_array_equal(Line.from_dict(old).predict(rows, clipped)[:, 0], trend)


def test_no_input_is_held_for_a_straight_target_or_where_no_line_is_kept():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3))
    assert not held_edges(X, X @ [1.0, -2.0, 0.5] + rng.normal(0, 0.05, 200)).any()
    saturating = np.tanh(4 * X[:, 0]) + rng.normal(0, 0.02, 200)
    line = Line.fit(_records(X, saturating), ["y"])
    assert line.used.tolist() == [False] and not line.held.any()


def test_rows_bend_clearly_where_trees_beat_a_line_inside_the_range_and_not_otherwise():
    """bends_clearly: a saturating and an exponential target bend (trees better than a line in
    5-fold cross-validation by 2 standard errors a row), a straight one and pure noise do not; a
    table too small for the folds, one without numeric inputs, and a non-finite target never do."""
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, 200)

    def recs(y, n=200):
        return [{"x": float(a), "y": float(b)} for a, b in zip(x[:n], y[:n])]

    assert bends_clearly(recs(np.tanh(4 * x) + rng.normal(0, 0.02, 200)), ["y"]).tolist() == [True]
    assert bends_clearly(recs(np.exp(2 * x) + rng.normal(0, 0.02, 200)), ["y"]).tolist() == [True]
    assert bends_clearly(recs(3 * x - 1 + rng.normal(0, 0.05, 200)), ["y"]).tolist() == [False]
    assert bends_clearly(recs(rng.normal(0, 1, 200)), ["y"]).tolist() == [False]
    assert bends_clearly(recs(np.tanh(4 * x), n=2 * BEND_FOLDS - 1), ["y"]).tolist() == [False]
    assert bends_clearly([{"s": "a", "y": float(v)} for v in x], ["y"]).tolist() == [False]
    two = [{"x": float(a), "y": float(np.tanh(4 * a)), "z": 2 * float(a)} for a in x]
    assert bends_clearly(two, ["y", "z"]).tolist() == [True, False]
