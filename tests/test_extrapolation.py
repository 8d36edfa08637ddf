"""Fill flags inputs and predictions outside each field's training range (API and CLI)."""

import json
import random
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

import scinum
from scinum.cli.main import main as scinum_cli
from scinum.train.config import load_config
from scinum.fill.extrapolation import ExtrapolationWarning, Tally, TrainingRanges
from scinum.train.fit import fit
from scinum.datasets.jsonl import build

from conftest import tiny_config  # tests/conftest.py


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory, one_thread_module):
    root = tmp_path_factory.mktemp("extrap")
    r = random.Random(0)
    recs = [{"x": round(r.uniform(10, 30), 3), "y": 0.0} for _ in range(64)]
    for rec in recs:
        rec["y"] = round(2 * rec["x"], 3)
    (root / "a.jsonl").write_text("".join(json.dumps(x) + "\n" for x in recs))
    build(root / "ds", train=[root / "a.jsonl"], progress=False)
    return fit(load_config(None, tiny_config(root / "ds", root / "run", data={"batch_size": 16}, trainer={"max_steps": 5, "devices": 1})))


def test_api_flags_an_input_far_outside_and_warns_with_a_count_per_field(ckpt):
    model = scinum.load(ckpt)
    lo, hi = model.ranges.ranges["x"]
    assert 10 <= lo < hi <= 30
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # inside the range: no warning
        inside = model.predict_many([{"x": 20.0, "y": None}])
    assert inside[0].outside == {} or "inputs" not in inside[0].outside
    with pytest.warns(ExtrapolationWarning, match=r"x: 2 inputs \(trained on \[") as caught:
        res = model.predict_many([{"x": 15000.0, "y": None}, {"x": 20.0, "y": None}, {"x": -3.0, "y": None}])
    assert res[0].outside["inputs"] == ["x"] and res[2].outside["inputs"] == ["x"]
    assert "inputs" not in res[1].outside
    assert len(caught) == 1 and "extrapolates" in str(caught[0].message)
    assert res[0].to_dict()["outside_training_range"]["inputs"] == ["x"]


def test_predictions_outside_are_flagged_by_field():
    vocab = SimpleNamespace(fields=["a", "b"], field_index={"a": 0, "b": 1})
    ranges = TrainingRanges(vocab, {"train_ranges": {"a": {"min": 0.0, "max": 1.0}, "b": {"min": 5.0, "max": 6.0}}})
    job = SimpleNamespace(
        number_slots=np.array([1, 3]),
        hidden=[1],
        paths=[("a",), ("b",)],
        encoded=SimpleNamespace(fields=np.array([-1, 0, -1, 1]), values=np.array([np.nan, 0.5, np.nan, np.nan])),
    )
    assert ranges.outside(job, [SimpleNamespace(value=7.5, path="b")]) == {"predictions": ["b"]}
    assert ranges.outside(job, [SimpleNamespace(value=5.5, path="b")]) == {}
    tally = Tally(ranges)
    tally.add({"predictions": ["b"]})
    assert tally.summary().endswith("b: 1 prediction (trained on [5, 6])")
    assert TrainingRanges(vocab, {}).outside(job, [SimpleNamespace(value=99.0, path="b")]) == {}


def test_cli_counts_on_stderr_and_flags_each_record_where_the_output_has_room(ckpt, tmp_path, capsys):
    src = tmp_path / "q.jsonl"
    src.write_text(json.dumps({"x": 15000.0, "y": None}) + "\n" + json.dumps({"x": 20.0, "y": None}) + "\n")
    capsys.readouterr()
    assert scinum_cli(["fill", "--ckpt", str(ckpt), "--input", str(src), "--with-uncertainty"]) == 0
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0]["outside_training_range"]["inputs"] == ["x"]
    assert "inputs" not in lines[1].get("outside_training_range", {})
    assert "x: 1 input (trained on [" in err and "extrapolates" in err
    assert scinum_cli(["fill", "--ckpt", str(ckpt), "--input", str(src)]) == 0
    out, err = capsys.readouterr()
    assert [json.loads(line)["x"] for line in out.splitlines()] == [15000.0, 20.0]  # data only
    assert "x: 1 input" in err
