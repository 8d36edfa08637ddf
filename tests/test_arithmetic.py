"""recipes/arithmetic.py: its records (deterministic, disjoint splits, value ranges), its preset
errors, and the tiny preset end to end (slow)."""

import json
from pathlib import Path

import pandas as pd
import pytest

from recipes.arithmetic import load_tasks, main, run
from recipes.arithmetic_data import Task, generate, operand_range, task_from_config, write_jsonl
from recipes.presets import load_preset
from scinum.errors import RecipeError

RECIPES = Path(__file__).resolve().parent.parent / "recipes"


def _pairs(recs):
    return {(min(r["a"], r["b"]), max(r["a"], r["b"])) for r in recs}


@pytest.mark.parametrize("op, digits, result", [("mul", 3, "product"), ("mul", 5, "product"), ("add", 6, "sum")])
def test_records_are_right_in_range_and_disjoint(op, digits, result):
    task = Task("t", op, digits, train=3000, val=200, test=300)
    recs = generate(task, seed=7)
    assert {s: len(r) for s, r in recs.items()} == {"train": 3000, "val": 200, "test": 300}
    lo, hi = operand_range(digits)
    for split in recs.values():
        for r in split:
            assert list(r) == ["a", "b", result]
            assert lo <= r["a"] <= hi and lo <= r["b"] <= hi
            assert r[result] == (r["a"] * r["b"] if op == "mul" else r["a"] + r["b"])
            assert all(type(v) is int for v in r.values())  # JSON integers, exact
    # disjoint as unordered pairs: a*b in test never appears as a*b or b*a in train/val
    tr, va, te = (_pairs(recs[s]) for s in ("train", "val", "test"))
    assert len(tr) == 3000 and not (tr & te) and not (tr & va) and not (va & te)
    # digits: both operands use the whole range (leading digit 1..9)
    firsts = {str(r["a"])[0] for r in recs["train"]}
    assert firsts == set("123456789")


def test_records_are_deterministic_and_test_split_ignores_train_size():
    a = generate(Task("t", "mul", 3, 500, 50, 100), seed=0)
    b = generate(Task("t", "mul", 3, 500, 50, 100), seed=0)
    c = generate(Task("t", "mul", 3, 2000, 50, 100), seed=0)
    d = generate(Task("t", "mul", 3, 500, 50, 100), seed=1)
    assert a == b
    assert c["test"] == a["test"] and c["val"] == a["val"] and c["train"][:500] == a["train"]
    assert d["test"] != a["test"]
    assert generate(Task("t", "add", 3, 500, 50, 100), seed=0)["test"] != a["test"]


def test_write_jsonl_and_build(tmp_path):
    from scinum.datasets.jsonl import build

    task = Task("mul3", "mul", 3, 40, 8, 8)
    files = write_jsonl(generate(task, 0), tmp_path / "rec")
    first = json.loads(files["test"].read_text().splitlines()[0])
    assert set(first) == {"a", "b", "product"}
    manifest = build(
        tmp_path / "data", train=[files["train"]], val=[files["val"]], test=[files["test"]], fields=[task.field], progress=False
    )
    assert manifest["evaluation"]["fields"] == ["product"]


def test_task_errors_name_the_task_and_key():
    with pytest.raises(ValueError, match="task 'm9'.*op must be one of"):
        task_from_config("m9", {"op": "div", "digits": 3, "train": 1, "val": 1, "test": 1})
    with pytest.raises(ValueError, match="task 'm3'.*unknown key.*'digit'.*missing key.*'digits'"):
        task_from_config("m3", {"op": "mul", "digit": 3, "train": 1, "val": 1, "test": 1})
    with pytest.raises(ValueError, match="task 'm3'.*train must be a non-negative integer"):
        task_from_config("m3", {"op": "mul", "digits": 3, "train": -5, "val": 1, "test": 1})
    with pytest.raises(ValueError, match="task 'm1'.*distinct unordered pairs"):
        Task("m1", "mul", 1, 100, 0, 0)  # 1-digit operands: 55 pairs
    with pytest.raises(RecipeError, match="arithmetic.yaml: preset 'x': unknown task.*'mul7'"):
        load_tasks(
            {"tasks": {"mul3": {"op": "mul", "digits": 3, "train": 1, "val": 1, "test": 1}}}, "arithmetic.yaml: preset 'x'", ["mul7"]
        )


@pytest.mark.parametrize("name", ["../../x", "..", ".", "a/b", "/abs", ".hidden", "", 3])
def test_a_task_name_is_one_directory_under_work(name):
    """Issue 37 case 7: task names became path parts unchecked (``../../x`` escaped --work)."""
    with pytest.raises(RecipeError, match="a task name is letters"):
        load_tasks({"tasks": {name: {"op": "mul", "digits": 3, "train": 1, "val": 1, "test": 1}}}, "arithmetic.yaml: preset 'x'")
    assert (
        load_tasks({"tasks": {"mul-3.v2": {"op": "mul", "digits": 3, "train": 1, "val": 1, "test": 1}}}, "arithmetic.yaml: preset 'x'")[
            0
        ].name
        == "mul-3.v2"
    )


def test_unknown_preset_and_model_are_one_line_errors(tmp_path, capsys):
    assert main(["--preset", "nope", "--work", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "arithmetic.yaml: no preset 'nope'" in err
    assert main(["--preset", "tiny", "--models", "p7", "--work", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "unknown model(s) ['p7']" in err


def test_every_preset_has_every_encoding_and_valid_tasks():
    for name in ("tiny", "quick", "paper"):
        preset = load_preset(RECIPES / "arithmetic.yaml", name)
        encodings = {(m.get("encoding") or {}).get("name") for m in preset["models"].values()}
        assert encodings == {"xval", "fone", "bittokens", "p10", "p1000", "b1999", "fp15"}, name
        assert "xval+gmm" in preset["models"]
        tasks = {t.name: t for t in load_tasks(preset, name)}
        assert {"mul3", "add6"} <= set(tasks)
    paper = {t.name for t in load_tasks(load_preset(RECIPES / "arithmetic.yaml", "paper"), "paper")}
    assert paper == {"mul3", "mul4", "mul5", "add6"}  # Table 2's three columns + FoNE's task


@pytest.mark.slow
def test_tiny_preset_end_to_end(tmp_path):
    preset = load_preset(RECIPES / "arithmetic.yaml", "tiny")
    out = run(preset, work=tmp_path / "work", out=tmp_path / "res", preset_name="tiny", log=lambda s: None)
    table = pd.read_csv(out / "table.csv")
    models = list(preset["models"])
    ours = table[table["kind"] == "model"]
    assert len(ours) == 2 * len(models) and set(table["task"]) == {"mul3", "add6"}
    assert set(ours["model"]) == set(models) and (table["n"] == 32).all()
    for col in ("adj_r2", "exact", "log_smape", "median_rel_err", "unparseable"):
        assert col in table.columns
    # the paper's figures stand beside ours where the paper has them
    row = table[(table["task"] == "mul3") & (table["model"] == "p10")].iloc[0]
    assert row["paper_adj_r2"] == 0.9989
    meta = json.loads((out / "meta.json").read_text())
    assert meta["n_predictors_adj_r2"] == 2 and meta["preset_name"] == "tiny"
    fone = meta["models"]["add6/fone"]["encoding"]
    assert fone["int_digits"] == 7 and meta["models"]["mul3/fone"]["encoding"]["int_digits"] == 6
    assert meta["models"]["add6/xval"]["data"]["mask_fields"] == ["sum"]
    preds = pd.read_csv(out / "predictions.csv")
    assert set(preds["field"]) == {"mul3.product", "add6.sum"}
    plots = {p.name for p in (out / "plots").glob("*.png")}
    assert {"fig7_test__mul3.product.png", "scatter_test__add6.sum.png"} <= plots


def test_the_standard_references_stand_in_the_table(tmp_path):
    """Reference rows (kind regressor/reference) are fitted on the task's training records and
    scored like the models: ridge on the two operands adds exactly; the train mean does not."""
    pytest.importorskip("sklearn")
    preset = load_preset(RECIPES / "arithmetic.yaml", "tiny")
    out = run(preset, work=tmp_path / "work", out=tmp_path / "res", preset_name="tiny", tasks=["add6"], models=["xval"], log=lambda s: None)
    table = pd.read_csv(out / "table.csv").set_index("model")
    assert table.loc["xval", "kind"] == "model"
    assert table.loc["ridge", "kind"] == "regressor" and table.loc["train mean", "kind"] == "reference"
    assert table.loc["ridge", "exact"] == 1.0 and table.loc["ridge", "r2"] > 0.999999
    assert table.loc["train mean", "exact"] == 0.0 and table.loc["train mean", "r2"] <= 0.0
    preds = pd.read_csv(out / "predictions.csv")
    assert {"xval", "ridge", "boosted trees", "train mean"} <= set(preds["model"])
