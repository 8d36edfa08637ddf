"""Standard references beside scinum's models (scinum.baselines, scinum.analysis.baselines):
features from any record's structure, the regressors, the oracles, and their rows in evaluate,
the comparison report and the model card."""

import math
import random
import sys

import numpy as np
import pandas as pd
import pytest

from scinum.analysis.baselines import baseline_results, comparison_baselines
from scinum.baselines import INSTALL_HINT, fit_slots, predict_baselines, rows_of
from scinum.train.config import load_config
from scinum.records.paths import format_path

from conftest import tiny_config, write_dataset  # tests/conftest.py

NAN = math.nan


def test_features_of_records_with_nested_lists_of_other_lengths_and_missing_keys():
    r0 = {"name": "a", "p": {"x": 1.0, "y": 2}, "s": [[1, 2, 3], [4, 5]]}
    r1 = {"name": "b", "p": {"x": 3.0}, "s": [[6, 7]], "flag": True}
    slots = fit_slots([r0, r1])
    assert [format_path(p) for p in slots.paths] == ["p.x", "p.y", "s[0][0]", "s[0][1]", "s[0][2]", "s[1][0]", "s[1][1]"]
    assert slots.dropped == 0
    # the last number of each inner list: both of r0's masked jointly, one row each
    rows = rows_of([r0, r1], "s[*][-1]", slots)
    #         p.x  p.y  s00  s01  s02  s10  s11 | idx inner, outer, third | lags -1..-4
    want = [
        [1, 2, 1, 2, NAN, 4, NAN, 2, -1, 0, -2, NAN, NAN, 2, 1, NAN, NAN],
        [1, 2, 1, 2, NAN, 4, NAN, 1, -1, 1, -1, NAN, NAN, 4, NAN, NAN, NAN],
        [3, NAN, 6, NAN, NAN, NAN, NAN, 1, -1, 0, -1, NAN, NAN, 6, NAN, NAN, NAN],
    ]
    np.testing.assert_array_equal(rows.x, np.array(want, dtype=np.float32))
    assert rows.x.dtype == np.float32 and rows.y.tolist() == [3.0, 5.0, 7.0]
    assert rows.record.tolist() == [0, 0, 1] and rows.path == ["s[0][2]", "s[1][1]", "s[0][1]"]
    # a whole list masked: its own elements are no lags of each other
    whole = rows_of([r0], "s[0][*]", slots)
    assert np.isnan(whole.x[:, 2:5]).all() and np.isnan(whole.x[:, -4:]).all()
    # a key missing in a record: no row there; elsewhere the target's slot is NaN
    y = rows_of([r0, r1], "p.y", slots)
    assert y.record.tolist() == [0] and math.isnan(y.x[0, 1]) and y.x[0, 0] == 1.0
    # the cap keeps the most frequent paths (ties: first seen) and says how many it dropped
    capped = fit_slots([r0, r1], max_slots=3)
    assert [format_path(p) for p in capped.paths] == ["p.x", "s[0][0]", "s[0][1]"]
    assert capped.dropped == 4


class Linear:
    """y = 2a - 3b + 0.5d + 1 (d = 0 where ``meta`` is missing), lists of 2 or 3 numbers."""

    def __init__(self, lo=-1.0, hi=1.0):
        self.lo, self.hi = lo, hi

    def __call__(self, i):
        rng = random.Random(i)
        a, b, d = rng.uniform(self.lo, self.hi), rng.uniform(-1, 1), rng.uniform(-1, 1)
        rec = {"x": [a, b] + ([rng.uniform(-1, 1)] if i % 3 == 0 else []), "meta": {"d": d}, "s": [rng.uniform(-1, 1) for _ in range(3)]}
        if i % 4 == 0:
            del rec["meta"]
            d = 0.0
        rec["y"] = 2 * a - 3 * b + 0.5 * d + 1
        return rec, {}


@pytest.fixture(scope="module")
def linear(tmp_path_factory):
    path = tmp_path_factory.mktemp("linear") / "data"
    splits = {"train": 400, "val": 16, "test": 60, "ood_wide": (40, Linear(1.0, 2.0))}
    evaluation = {"fields": ["y"], "train_ranges": {"y": [-2.0, 4.0]}}
    return write_dataset(path, Linear(), splits, builder="linear", shard_size=256, evaluation=evaluation)


def test_ridge_recovers_a_linear_relation_and_oracles_are_exact(linear):
    table, pred, info = baseline_results(linear, ["y", "s[-1]"], ["test", "ood_wide"], seed=0, log=lambda s: None)
    cell = table.set_index(["model", "field", "split", "subset"])
    assert cell.loc[("ridge", "y", "test", "all"), "r2"] > 0.99
    assert cell.loc[("ridge", "y", "ood_wide", "all"), "r2"] > 0.99  # a line extrapolates
    assert set(table["kind"]) == {"regressor", "reference", "oracle"}
    y = pred[(pred["field"] == "y") & (pred["split"] == "ood_wide")]
    truth = y[y["model"] == "train mean"]["true"].to_numpy()
    clamp = y[y["model"] == "oracle: truth clamped to training range"]["pred"].to_numpy()
    np.testing.assert_array_equal(clamp, np.clip(truth, -2.0, 4.0))  # the declared range
    seen = np.sort(np.array([r["y"] for r in map(lambda i: Linear()(i)[0], range(400))]))
    nearest = y[y["model"] == "oracle: nearest training value"]["pred"].to_numpy()
    np.testing.assert_array_equal(nearest, seen[np.abs(truth[:, None] - seen).argmin(1)])
    assert cell.loc[("oracle: truth clamped to training range", "y", "ood_wide", "extrap"), "mse"] == pytest.approx(
        float(np.mean((np.clip(truth, -2, 4) - truth)[truth > 4] ** 2))
    )
    mean = np.mean([Linear()(i)[0]["y"] for i in range(400)])
    assert (y[y["model"] == "train mean"]["pred"] == mean).all()
    # s[-1] has its lag -1 in every record: persistence is its previous element
    s = pred[(pred["field"] == "s[-1]") & (pred["model"] == "persistence") & (pred["split"] == "test")]
    assert s["pred"].tolist() == [Linear()(i)[0]["s"][1] for i in range(60)]
    # x[0..2], meta.d, s[0..2], y
    assert info["slots"] == info["numeric_paths"] == 8 and info["fields"]["y"]["train_rows"] == 400


def test_no_persistence_where_a_target_has_no_previous_element(linear):
    pred, _ = predict_baselines(linear, ["s[*]"], ["test"], limit=5, log=lambda s: None)
    assert "persistence" not in set(pred["model"]) and "ridge" in set(pred["model"])
    assert len(pred[pred["model"] == "ridge"]) == 15  # 3 numbers in each of 5 records


def test_without_scikit_learn_one_line_and_the_numpy_rows_only(linear, monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)  # import sklearn raises ImportError
    said = []
    table, _, info = baseline_results(linear, ["y", "s[-1]"], ["test"], log=said.append)
    assert said == [INSTALL_HINT] and 'pip install "scinum[baselines]"' in said[0]
    assert set(table["model"]) == {"train mean", "persistence", "oracle: truth clamped to training range", "oracle: nearest training value"}
    assert info["skipped"] == [INSTALL_HINT]


def test_comparison_rows_carry_kind_n_seeds_and_a_bootstrap_interval(linear, tmp_path):
    from scinum.analysis.report import write_comparison

    base = comparison_baselines(linear, ["y"], limit=None, seed=0, log=lambda s: None)
    r = base[(base["model"] == "ridge") & (base["split"] == "test") & (base["metric"] == "mse")].iloc[0]
    assert r["kind"] == "regressor" and r["n"] == 60 and r["seeds"] == "0"
    assert r["ci95_low"] <= r["mean"] <= r["ci95_high"]
    assert {"ood_wide:interp", "ood_wide:extrap"} <= set(base["split"])
    per_seed = pd.DataFrame([{"model": "m", "seed": s, "field": "y", "split": "test", "mse": 0.5 + s, "r2": 0.1} for s in range(2)])
    out = write_comparison(tmp_path, per_seed, {"budget": {"samples": 8}, "seeds": [0, 1]}, baselines=base)
    long = pd.read_csv(out / "table.csv")
    assert set(long["kind"]) == {"model", "regressor", "reference", "oracle"}
    md = (out / "table.md").read_text()
    assert "*ridge* (standard regressor, fitted on the train split, seed 0;" in md
    assert "*oracle: nearest training value* (ORACLE: reads the truth;" in md and "(n 60)" in md


@pytest.fixture(scope="module")
def evaluated(linear, tmp_path_factory):
    """A tiny model trained on the linear records, evaluated by the CLI (baselines on)."""
    from scinum.cli.main import main
    from scinum.train.fit import fit

    root = tmp_path_factory.mktemp("linear-run")
    trainer = {"max_steps": 10, "devices": 1, "val_check_interval": 1000, "checkpoint_every_n_steps": 1000}
    cfg = load_config(overrides=tiny_config(linear, root / "run", data={"batch_size": 16}, trainer=trainer))
    ckpt = fit(cfg)
    assert (
        main(["evaluate", "--ckpt", str(ckpt), "--data", str(linear), "--out", str(root / "res"), "--labels", "mine", "--limit", "30"]) == 0
    )
    return ckpt, root / "res"


def test_evaluate_tables_carry_the_baselines_beside_the_model(evaluated, linear, tmp_path):
    from scinum.cli.main import main

    ckpt, res = evaluated
    table = pd.read_csv(res / "table.csv")
    kinds = table.groupby("model")["kind"].first().to_dict()
    assert kinds["mine"] == "model" and kinds["ridge"] == kinds["boosted trees"] == "regressor"
    assert kinds["oracle: nearest training value"] == "oracle" and kinds["train mean"] == "reference"
    assert set(table[table["model"] == "ridge"]["split"]) == set(table[table["model"] == "mine"]["split"])
    assert table[(table["model"] == "ridge") & (table["split"] == "test")]["n"].iloc[0] == 30
    pred = pd.read_csv(res / "predictions.csv")
    assert len(pred[pred["model"] == "ridge"]) == len(pred[pred["model"] == "mine"])
    assert (
        main(["evaluate", "--ckpt", str(ckpt), "--data", str(linear), "--out", str(tmp_path / "r"), "--limit", "5", "--no-baselines"]) == 0
    )
    assert set(pd.read_csv(tmp_path / "r" / "table.csv")["kind"]) == {"model"}


def test_the_card_shows_the_baselines_beside_the_model(evaluated):
    from scinum.share.card_results import read_results
    from scinum.share.export import export

    ckpt, res = evaluated
    ev = read_results(res, {})  # the one model of the table, the references beside it
    assert ev["label"] == "mine" and {r["model"] for r in ev["rows"]} == {"mine"}
    assert {r["kind"] for r in ev["baselines"]} == {"regressor", "reference", "oracle"}
    out = export(ckpt, res.parent / "export", res, label="mine")
    card = (out / "README.md").read_text()
    assert "Beside standard references" in card and "ridge (regressor)" in card
    assert "oracle: truth clamped to training range (oracle)" in card


def test_evaluate_without_scikit_learn_says_so_once(evaluated, linear, tmp_path, monkeypatch, capsys):
    from scinum.cli.main import main

    monkeypatch.setitem(sys.modules, "sklearn", None)
    ckpt, _ = evaluated
    assert main(["evaluate", "--ckpt", str(ckpt), "--data", str(linear), "--out", str(tmp_path / "r"), "--limit", "5"]) == 0
    said = capsys.readouterr()
    assert (said.out + said.err).count('pip install "scinum[baselines]"') == 1
    table = pd.read_csv(tmp_path / "r" / "table.csv")
    assert "ridge" not in set(table["model"]) and "train mean" in set(table["model"])
