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


#: how far a float32 model's numbers may move on another CPU's matrix kernels (measured: 3e-8
#: relative on an AMD EPYC against the machine that wrote expected.json; ATEN_CPU_CAPABILITY does
#: not choose those kernels)
REL = 1e-6


def _same(got, want) -> bool:
    """Equal structure and text; floats within ``REL``."""
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and all(_same(got[k], want[k]) for k in want)
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want))
    if isinstance(want, float) and not isinstance(got, bool):
        return got == pytest.approx(want, rel=REL)
    return type(got) is type(want) and got == want


def test_old_export_fills_as_it_did(model):
    for case in CASES:
        assert _same(model.fill(case["record"], mask=case["mask"]), case["filled"]), case["record"]


def test_old_export_predicts_as_it_did(model):
    """Values, mixture parameters and intervals as at a11b41d, within ``REL``: the mixture CDF the
    intervals invert is now renormalised in float64 and clamped to [0, 1] (issue 37), which moves
    a quantile by float32 rounding, ~1e-7, and other CPUs' kernels move every number by as much."""
    for case in CASES:
        got = json.loads(json.dumps(model.predict(case["record"], mask=case["mask"]).to_dict()))
        want = case["predicted"]
        got.pop("outside_training_range", None)  # added since a11b41d (fill flags extrapolation)
        assert got.keys() == want.keys() and got["predictions"].keys() == want["predictions"].keys()
        for path, pred in got["predictions"].items():
            old = want["predictions"][path]
            assert pred.keys() == old.keys()
            for key, value in pred.items():
                assert _same(value, old[key]), (path, key, value, old[key])
        assert _same({k: v for k, v in got.items() if k != "predictions"}, {k: v for k, v in want.items() if k != "predictions"})
    assert any(c["predicted"]["predictions"] for c in CASES)


def test_old_export_keeps_its_calibration(model):
    config = json.loads((EXPORT / "config.json").read_text())
    assert set(model.meta.calibration) == set(config["calibration"]) == {"dt", "a"}


#: a checkpoint and an export written at e5afef6 (tests/data/fit-e5afef6/README.md): the run
#: config's defaults have changed since (value path, weight averaging) and mixup's keys left it
E5 = Path(__file__).resolve().parent / "data" / "fit-e5afef6"


@pytest.mark.parametrize("name", ["model.ckpt", "export"])
def test_a_checkpoint_and_an_export_written_at_e5afef6_fill_and_predict_as_they_did(name):
    want = json.loads((E5 / "expected.json").read_text())
    key = "run/model.ckpt" if name == "model.ckpt" else "export"
    model = scinum.load(E5 / name)
    assert model.model.trunk.cfg.value_path == "layernorm"  # what it was trained with, not today's default
    for record, fill, preds in zip(want["records"], want[key]["fills"], want[key]["predictions"]):
        assert _same(model.fill(dict(record), mask=["y"]), fill)
        got = [
            {"path": p.path, "value": p.value, "uncertainty": p.uncertainty} for p in model.predict(dict(record), mask=["y"]).predictions
        ]
        assert _same(json.loads(json.dumps(got, default=float)), preds)
