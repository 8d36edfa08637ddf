"""A prediction between the few values a field took in training widens its interval
(scinum.fill.between_values); at a training value, and for fields of many values, nothing moves."""

import random
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.special import ndtri

from scinum.fill.between_values import Z95, TrainingValues
from scinum.fill.past_range import WIDEN

from conftest import fit_asked_field  # tests/conftest.py

STEPS = (1.0, 2.0, 4.0)


def test_away_is_the_distance_to_the_nearest_training_value_past_the_predictions_own_reach():
    vocab = SimpleNamespace(field_index={"dt": 0, "x": 1, "unseen": 2})
    dt = {"count": 900, "min": 0.2, "max": 0.8, "values": [0.8, 0.2, 0.5, 0.3]}
    run = {"train_ranges": {"dt": dt, "x": {"count": 900, "min": 0.0, "max": 1.0}}}
    values = TrainingValues(vocab, run)
    assert list(values.values) == [0] and values.values[0].tolist() == [0.2, 0.3, 0.5, 0.8]
    fids = np.array([0, 0, 0, 0, 1, 2])
    pred = np.array([0.3, 0.4, 0.65, 0.05, 7.0, 3.0])
    std = np.full(6, 0.01)
    np.testing.assert_allclose(values.away(fids, pred, std), [0.0, 0.1 - Z95 * 0.01, 0.15 - Z95 * 0.01, 0.15 - Z95 * 0.01, 0.0, 0.0])
    np.testing.assert_allclose(values.away(fids, pred, None), [0.0, 0.1, 0.15, 0.15, 0.0, 0.0])
    assert not values.away(fids, pred, np.full(6, 1.0)).any()  # every gap inside its reach
    assert not TrainingValues(vocab, {}).away(fids, pred, std).any()  # a checkpoint without values
    few_rows = {"train_ranges": {"dt": {**dt, "count": 15}}}  # 4 values in 15 numbers: not a grid
    assert TrainingValues(vocab, few_rows).values == {}
    assert list(TrainingValues(vocab, {"train_ranges": {"dt": {**dt, "count": 16}}}).values) == [0]


class Steps:
    """``{"x": x, "s": s}``: s one of three step sizes, x continuous."""

    def __call__(self, i):
        r = random.Random(i)
        return {"x": round(r.uniform(0, 10), 3), "s": STEPS[i % 3]}, None


@pytest.fixture(scope="module")
def model(tmp_path_factory, one_thread_module):
    return fit_asked_field(tmp_path_factory.mktemp("between"), Steps(), "s", shard_size=96)


def test_the_checkpoint_records_the_few_values_and_a_prediction_off_them_widens(model):
    """The step sizes are recorded and x's many values are not. Moved far from the training
    values (a grid at 1000), the fill keeps its value and mean. Every quantile moves outwards
    by Φ⁻¹(p) · WIDEN · away, and the spread grows as widen says."""
    sid = model.vocab.field_index["s"]
    assert model.training_values.values[sid].tolist() == list(STEPS)
    assert model.vocab.field_index["x"] not in model.training_values.values
    rec = {"x": 3.0, "s": None}
    at_steps = model.predict(rec, ["s"], intervals=(0.95,)).predictions[0]
    model.training_values = TrainingValues(model.vocab, {})
    plain = model.predict(rec, ["s"], intervals=(0.95,)).predictions[0]
    far_grid = {"s": {"count": 96, "min": 1000.0, "max": 1000.0, "values": [1000.0]}}
    model.training_values = TrainingValues(model.vocab, {"train_ranges": far_grid})
    far = model.predict(rec, ["s"], intervals=(0.95,)).predictions[0]
    assert far.value == plain.value and far.uncertainty["mean"] == plain.uncertainty["mean"]
    away = (1000.0 - plain.value) - Z95 * plain.uncertainty["std"]
    move = WIDEN * away * ndtri(0.975)
    (lo, hi), (lo_far, hi_far) = plain.uncertainty["interval_95"], far.uncertainty["interval_95"]
    assert lo_far == pytest.approx(lo - move) and hi_far == pytest.approx(hi + move)
    assert far.uncertainty["std"] == pytest.approx(np.hypot(plain.uncertainty["std"], WIDEN * away))
    # at the recorded steps: widened only by what lies past the prediction's own reach
    gap = min(abs(plain.value - s) for s in STEPS) - Z95 * plain.uncertainty["std"]
    want = WIDEN * max(gap, 0.0) * ndtri(0.975)
    assert at_steps.uncertainty["interval_95"][1] == pytest.approx(hi + want)
