"""Models exported by an earlier scinum keep loading and fill the same numbers.

``tests/data/export-a11b41d`` is a tiny export (xVal, a 2-component mixture head with its
recalibration tables) written by ``scinum export`` at commit a11b41d, with the fills and
predictions that version gave for four records (``expected.json``). Its ``config.json`` is in
export format 2 (the same entries plus their digest; format 1, without digests, is refused since
issue 37): the weights, vocabulary, normalizers and tables are a11b41d's, byte for byte."""

import json
from pathlib import Path

import pytest

import scinum

EXPORT = Path(__file__).resolve().parent / "data" / "export-a11b41d"
CASES = json.loads((EXPORT / "expected.json").read_text())

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


@pytest.fixture(scope="module")
def model():
    return scinum.load(EXPORT)


def test_old_export_fills_as_it_did(model):
    for case in CASES:
        assert model.fill(case["record"], mask=case["mask"]) == case["filled"]


def test_old_export_predicts_as_it_did(model):
    """Values and mixture parameters exactly as at a11b41d; the intervals within 1e-6 relative:
    the mixture CDF they invert is now renormalised in float64 and clamped to [0, 1] (issue 37),
    which moves a quantile by float32 rounding, ~1e-7."""
    for case in CASES:
        got = json.loads(json.dumps(model.predict(case["record"], mask=case["mask"]).to_dict()))
        want = case["predicted"]
        got.pop("outside_training_range", None)  # added since a11b41d (fill flags extrapolation)
        assert got.keys() == want.keys() and got["predictions"].keys() == want["predictions"].keys()
        for path, pred in got["predictions"].items():
            old = want["predictions"][path]
            assert pred.keys() == old.keys()
            for key, value in pred.items():
                if key.startswith("interval_"):
                    assert value == pytest.approx(old[key], rel=1e-6), (path, key)
                else:
                    assert value == old[key], (path, key)
        assert {k: v for k, v in got.items() if k != "predictions"} == {k: v for k, v in want.items() if k != "predictions"}
    assert any(c["predicted"]["predictions"] for c in CASES)


def test_old_export_keeps_its_calibration(model):
    config = json.loads((EXPORT / "config.json").read_text())
    assert set(model.meta.calibration) == set(config["calibration"]) == {"dt", "a"}
