"""Models exported by an earlier scinum keep loading and fill the same numbers.

``tests/data/export-a11b41d`` is a tiny export (xVal, a 2-component mixture head with its
recalibration tables) written by ``scinum export`` at commit a11b41d, with the fills and
predictions that version gave for four records (``expected.json``)."""
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
    for case in CASES:
        got = json.loads(json.dumps(model.predict(case["record"], mask=case["mask"]).to_dict()))
        assert got == case["predicted"]
    assert any(c["predicted"]["predictions"] for c in CASES)


def test_old_export_keeps_its_calibration(model):
    config = json.loads((EXPORT / "config.json").read_text())
    assert set(model.meta.calibration) == set(config["calibration"]) == {"dt", "a"}
