"""Comparison presets: one budget for all, seeds, refusal of per-model settings, end to end."""

import json
from pathlib import Path

import pandas as pd
import pytest

from recipes.compare import model_configs
from scinum.util.provenance import versions
from recipes.presets import override_words
from recipes.presets import load_preset
from scinum.errors import ConfigError, RecipeError

RECIPES = Path(__file__).resolve().parent.parent / "recipes"


def _preset():
    return load_preset(RECIPES / "planets.yaml", "compare")


def test_every_model_and_seed_gets_the_same_budget_and_settings(tmp_path):
    preset = _preset()
    configs = model_configs("planets", preset, tmp_path / "data", tmp_path, seeds=3)
    labels = list(preset["models"])
    assert len(labels) == 9 and {"p10", "p1000", "b1999", "fp15", "xval", "fone", "bittokens"} <= set(labels)
    assert set(configs) == {(lb, s) for lb in labels for s in range(3)}
    for (label, seed), cfg in configs.items():
        assert cfg["seed"] == seed and cfg["budget"] == preset["budget"]
        assert cfg["out_dir"] == str(tmp_path / "models" / label / f"seed{seed}")
        # what is not the model itself is the preset's, for every model
        assert cfg["data"]["batch_size"] == preset["train"]["data"]["batch_size"]
        assert cfg["optim"]["lr"] == preset["train"]["optim"]["lr"]
        assert cfg["model"]["d_model"] == preset["train"]["model"]["d_model"]
    # the paper's BitTokens: float64, raw values, threshold decoding; the tuned row says how it departs
    paper = configs[("bittokens", 0)]
    assert paper["encoding"].get("precision", 64) == 64 and paper["normalizer"] == "none"
    assert paper["head"].get("point", "threshold") == "threshold" and not paper["head"].get("mse_weight")
    tuned = [lb for lb in labels if lb.startswith("bittokens-tuned")]
    assert len(tuned) == 1 and configs[(tuned[0], 0)]["encoding"]["precision"] == 16


def test_compare_preset_lays_out_table_5_with_the_papers_rows():
    t = _preset()["table"]
    assert [c["name"] for c in t["columns"]] == ["a₁", "a₁ (OoD)", "e₁", "Δt", "Δt (OoD)", "m₁"]
    assert set(t["paper"]) == {"p10", "p1000", "b1999", "fp15", "xval"}
    assert all(len(row) == 6 for row in t["paper"].values())
    assert t["paper"]["xval"][0] == "6.4e-5" and t["paper"]["fp15"][4].startswith("0.0075")


def test_every_row_of_a_published_comparison_is_labelled_in_its_table(tmp_path):
    """What each row is comes from its resolved config (the normalizer it really got), and the
    preset declares how every row departs from its paper, printed under the table itself."""
    from recipes.compare_runs import row_settings
    from scinum.analysis.report import _settings_md

    preset = _preset()
    settings = row_settings(model_configs("planets", preset, tmp_path / "data", tmp_path, seeds=2))
    assert settings["xval"]["normalizer"] == "minmax" and settings["bittokens"]["normalizer"] == "none"
    assert settings["bittokens-tuned(16bit,binade,mean,mse30)"]["encoding"] == "bittokens(precision=16)"
    assert settings["xval+gmm(mse1)"]["head"] == "mixture(n_components=8, mse_weight=1.0)"
    assert {s["positions"] for s in settings.values()} == {"learned"}
    md = _settings_md({"row_settings": settings}, preset["table"], list(settings))
    assert "in every row: a 64 × 2 trunk" in md and "overrides" not in md
    words = override_words({"model": {"value_path": "linear_mlp", "d_model": 32}, "normalizer": "scale"})
    assert words == ["model.value_path=linear_mlp", "model.d_model=32", "normalizer=scale"]
    changed = _settings_md({"row_settings": settings, "overrides": words}, preset["table"], list(settings))
    assert "**This run overrides the preset for every row** (`--set model.value_path=linear_mlp model.d_model=32" in changed
    assert "| xval | xval | minmax | native | learned |" in md and "the paper's xVal: none" in md
    for recipe, name in (("planets", "compare"), ("planets", "best"), ("era5", "compare")):
        p = load_preset(RECIPES / f"{recipe}.yaml", name)
        assert set(p["table"]["departures"]) == {"all", *p["models"]}, (recipe, name)


@pytest.mark.parametrize(
    "change,match",
    [
        (lambda p: p["models"]["xval"].update(optim={"lr": 1e-3}), r"compare\.models\.xval\.optim"),
        (lambda p: p["models"]["fone"].update(data={"batch_size": 32}), r"compare\.models\.fone\.data"),
        (lambda p: p["models"]["xval"].update(budget={"samples": 9}), r"compare\.models\.xval\.budget"),
        (lambda p: p.pop("budget"), "needs a budget"),
        (lambda p: p.update(budget={"samples": 1, "tokens": 2}), r"compare\.budget"),
    ],
)
def test_a_comparison_refuses_what_would_make_it_unequal(tmp_path, change, match):
    preset = _preset()
    change(preset)
    with pytest.raises((RecipeError, ConfigError), match=match):
        model_configs("planets", preset, tmp_path, tmp_path, seeds=2, where="planets.yaml: compare")


def test_declared_tuning_allows_per_model_settings_and_overrides_cannot_change_the_budget(tmp_path):
    preset = _preset()
    preset["models"]["xval"]["optim"] = {"lr": 1e-3}
    preset["tuning"] = "LR from {1e-3, 2e-3} per model on val, 800 steps each"
    assert model_configs("planets", preset, tmp_path, tmp_path, 1)[("xval", 0)]["optim"]["lr"] == 1e-3
    with pytest.raises(RecipeError, match="budget"):
        model_configs("planets", preset, tmp_path, tmp_path, 1, overrides={"budget": {"samples": 5}})
    with pytest.raises(RecipeError, match="--seeds"):
        model_configs("planets", preset, tmp_path, tmp_path, 0)


def test_versions_name_the_packages_a_result_depends_on():
    """One ``versions()`` (scinum.util.provenance) for checkpoints, results and comparisons."""
    v = versions()
    assert {"python", "torch", "numpy", "lightning", "rebound", "scipy", "pandas"} <= set(v) and v["torch"]


@pytest.mark.slow
def test_tiny_comparison_end_to_end(tmp_path):
    from recipes.compare import run_comparison

    preset = load_preset(RECIPES.parent / "tests" / "presets" / "planets.yaml", "compare-tiny")
    models = ["xval", "p1000", "bittokens", "xval+gmm(mse1)"]
    out = run_comparison("planets", preset, work=tmp_path / "w", out=tmp_path / "r", seeds=2, models=models, workers=1, log=lambda s: None)
    everything = pd.read_csv(out / "table.csv")
    assert list(everything.columns) == [
        "model",
        "kind",
        "field",
        "split",
        "metric",
        "mean",
        "ci95_low",
        "ci95_high",
        "n_seeds",
        "median",
        "n_diverged",
        "n_records",
        "n",
        "seeds",
        "interval",
    ]
    long = everything[everything["kind"] == "model"].dropna(axis=1, how="all")
    assert set(long["model"]) == set(models)
    refs = everything[everything["kind"] != "model"]  # the standard references, fitted once
    assert {"ridge", "boosted trees", "train mean"} <= set(refs["model"]) and set(refs["seeds"]) == {0}
    assert not long.duplicated(["model", "field", "split", "metric"]).any()
    xval = long[(long.model == "xval") & (long.metric == "mse")]
    assert (xval["n_seeds"] == 2).all()  # one value per seed in every cell
    # 4 fields x (test + 2 ood), and Δt's training range splits ood_stepsize into its
    # interpolation and extrapolation subsets, each a cell of its own
    assert len(xval[~xval.split.str.contains(":")]) == 4 * 3
    assert set(xval[xval.split.str.contains(":")].split) <= {"ood_stepsize:interp", "ood_stepsize:extrap"}
    assert (xval["ci95_low"] <= xval["mean"]).all() and (xval["mean"] <= xval["ci95_high"]).all()
    per_seed = pd.read_csv(out / "seeds.csv")
    assert sorted(per_seed["seed"].unique()) == [0, 1]
    meta = json.loads((out / "meta.json").read_text())
    assert meta["budget"] == {"samples": 64} and meta["seeds"] == [0, 1] and not meta["missing"]
    assert {"torch", "numpy", "lightning", "rebound", "python"} <= set(meta["versions"])
    assert meta["command"] == "python recipes/planets.py --preset compare --seeds 2 --models xval p1000 bittokens 'xval+gmm(mse1)'"
    runs = meta["runs"]
    assert {r["steps"] for r in runs.values()} == {8} and {r["samples"] for r in runs.values()} == {64}
    # text encodings spend more tokens on the same samples
    assert runs["p1000/seed0"]["tokens"] > runs["xval/seed0"]["tokens"]
    md = (out / "table.md").read_text()
    assert "xval (paper) | 6.4e-5 | 0.0021" in md and "Paired differences against xval" in md
    assert "| bittokens | bittokens | none | native | structure |" in md  # each row's form, in the table
    paired = pd.read_csv(out / "paired.csv")
    assert len(paired) == 3 * 2 and (paired["resamples"] == 10000).all() and paired["p_holm"].notna().all()
    assert (paired["n_records"] > 0).all() and (paired["n_seeds"] == 2).all()
    # every model's predictions, unparsed ones scored; seeds.csv's MSE recomputes from them
    preds = pd.read_csv(out / "predictions.csv.gz")
    assert set(preds["model"]) == set(models) and sorted(preds["seed"].unique()) == [0, 1]
    seeds = pd.read_csv(out / "seeds.csv").set_index(["model", "seed", "field", "split"])
    p = preds[(preds["model"] == "p1000") & (preds["seed"] == 1) & (preds["split"] == "test") & (preds["field"] == "description.planet0.a")]
    assert ((p["prediction"] - p["truth"]) ** 2).mean() == pytest.approx(seeds.loc[("p1000", 1, "description.planet0.a", "test"), "mse"])
    assert seeds.loc[("p1000", 1, "description.planet0.a", "test"), "n_unparsed"] == p["unparsed"].sum()
    assert all((out / "plots" / f).stat().st_size > 5000 for f in ("compare_mse.png", "compare_r2.png"))
    # finished runs are reused; --collect reports without training
    (out / "table.md").unlink()
    again = run_comparison(
        "planets", preset, work=tmp_path / "w", out=tmp_path / "r2", seeds=2, models=models, collect=True, log=lambda s: None
    )
    assert pd.read_csv(again / "table.csv").equals(everything)
    # a missing run is named, the rest still reported
    import shutil

    shutil.rmtree(tmp_path / "w" / "models" / "p1000" / "seed1")
    again = run_comparison(
        "planets", preset, work=tmp_path / "w", out=tmp_path / "r3", seeds=2, models=models, collect=True, log=lambda s: None
    )
    meta = json.loads((again / "meta.json").read_text())
    assert meta["missing"] == ["p1000 seed 1"] and "Missing" in (again / "table.md").read_text()
