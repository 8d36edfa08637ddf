"""Comparisons under several budgets (the xVal paper's Table 4), `varies`, and non-learned baselines."""

import json
from itertools import islice
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from recipes.compare import budgets_of, model_configs
from recipes.presets import load_preset
from scinum.analysis.report import write_budgets
from scinum.errors import ConfigError, RecipeError

RECIPES = Path(__file__).resolve().parent.parent / "recipes"


def test_budgets_name_each_comparison_and_one_budget_keeps_its_old_form():
    era5 = load_preset(RECIPES / "era5.yaml", "compare")
    assert list(budgets_of(era5)) == ["equal samples", "equal tokens", "equal runtime"]
    assert budgets_of(era5)["equal tokens"] == {"tokens": 1265000}
    assert budgets_of({"budget": {"samples": 8}}) == {"": {"samples": 8}}


@pytest.mark.parametrize(
    "preset,match",
    [
        ({"budget": {"samples": 1}, "budgets": {"a": {"samples": 1}}}, "not both"),
        ({"budgets": {}}, "mapping"),
        ({"budgets": {"a b": {"samples": 1}, "a-b": {"samples": 2}}}, "distinct"),
        ({"budgets": {"fast": {"samples": -1}}}, r"budgets\.fast\.samples"),
        ({}, "needs a budget"),
    ],
)
def test_bad_budgets_are_refused_naming_the_key(preset, match):
    with pytest.raises((RecipeError, ConfigError), match=match):
        budgets_of(preset, "x.yaml: compare")


def test_varies_lets_models_set_what_the_comparison_is_about(tmp_path):
    preset = load_preset(RECIPES.parent / "experiments" / "presets" / "planets.yaml", "e1-curve")
    assert preset["varies"] == ["model"]
    configs = model_configs("planets", {**preset, "budget": {"samples": 8}}, tmp_path, tmp_path, 1)
    widths = {label: cfg["model"]["d_model"] for (label, _), cfg in configs.items()}
    assert len(set(widths.values())) > 1  # the curve's models differ in trunk size
    preset["varies"] = []
    with pytest.raises(RecipeError, match=r"models\.\S+\.model.*varies"):
        model_configs("planets", {**preset, "budget": {"samples": 8}}, tmp_path, tmp_path, 1)
    with pytest.raises(RecipeError, match="varies"):
        model_configs("planets", {**preset, "budget": {"samples": 8}, "varies": ["encoding?"]}, tmp_path, tmp_path, 1)


@pytest.fixture(scope="module")
def era5_data(tmp_path_factory):
    from scinum_era5 import builder

    out = tmp_path_factory.mktemp("era5") / "data"
    builder.build(
        out, source="synthetic", synthetic_days=40, synthetic_resolution=10, train=20, val=4, test=12, stations=[4, 6], steps=[8, 9], seed=0
    )
    return out


def test_baselines_match_a_hand_computation_with_a_record_bootstrap(era5_data):
    from scinum_era5.tasks import baseline_mse, comparison_baselines
    from scinum.datasets.directory import Dataset

    ds = Dataset(era5_data)
    rows = pd.DataFrame(comparison_baselines(era5_data, "test", limit=10))
    assert set(rows["model"]) == {"persistence", "climatology"}
    assert set(rows["metric"]) == {"mse", "mse_K2", "r2"} and (rows["n_records"] == 10).all()
    hand = baseline_mse(islice(ds.records("test"), 10))
    y, p = [], []
    for r in islice(ds.records("test"), 10):  # persistence by hand: each station's previous value
        y += [s[-1] for s in r["data"]]
        p += [s[-2] for s in r["data"]]
    y, p = np.array(y), np.array(p)
    cell = rows.set_index(["model", "metric"])
    assert cell.loc[("persistence", "mse"), "mean"] == pytest.approx(np.mean((y - p) ** 2), rel=1e-12)
    assert cell.loc[("persistence", "mse"), "mean"] == pytest.approx(hand["persistence"], rel=1e-12)
    assert cell.loc[("climatology", "mse"), "mean"] == pytest.approx(hand["climatology"], rel=1e-12)
    r2 = 1 - np.sum((y - p) ** 2) / np.sum((y - y.mean()) ** 2)
    assert cell.loc[("persistence", "r2"), "mean"] == pytest.approx(r2, rel=1e-12)
    std = ds.manifest["normalization"]["std"]
    assert cell.loc[("persistence", "mse_K2"), "mean"] == pytest.approx(hand["persistence"] * std**2)
    assert (rows["ci95_low"] <= rows["mean"]).all() and (rows["mean"] <= rows["ci95_high"]).all()
    assert (rows["ci95_low"] < rows["ci95_high"]).all()
    again = pd.DataFrame(comparison_baselines(era5_data, "test", limit=10))
    assert again.equals(rows)  # the bootstrap is seeded


def _per_seed(model_mse: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"model": m, "seed": s, "field": "data[*][-1]", "split": "test", "mse": v, "mse_K2": v * 400, "r2": 1 - v, "unparseable": 0.0}
            for m, vals in model_mse.items()
            for s, v in enumerate(vals)
        ]
    )


def test_budgets_report_lays_out_table_4_with_intervals_runtime_and_baselines(tmp_path):
    per_seed = {
        "equal samples": _per_seed({"xval": [0.1, 0.2, 0.3], "p10": [0.5, 0.6, 0.7]}),
        "equal tokens": _per_seed({"xval": [0.05, 0.06, 0.07], "p10": [0.5, 0.6, 0.7]}),
    }
    metas = {
        b: {
            "budget": {"samples": 8},
            "runs": {f"{m}/seed{s}": {"train_seconds": t * (s + 1)} for m, t in (("xval", 10), ("p10", 40)) for s in range(3)},
        }
        for b in per_seed
    }
    base = pd.DataFrame(
        [
            {
                "model": "persistence",
                "field": "data[*][-1]",
                "split": "test",
                "metric": k,
                "mean": v,
                "ci95_low": v - 0.01,
                "ci95_high": v + 0.01,
                "n_records": 200,
                "interval": "95 % bootstrap over the 200 test records",
            }
            for k, v in (("mse_K2", 17.0), ("r2", 0.95))
        ]
    )
    spec = {
        "metric": "mse_K2",
        "reference": "xval",
        "source": "Table 4",
        "columns": [{"name": "next step", "field": "data[*][-1]", "split": "test"}],
        "paper": {"xval": ["1.75", "9h", "1.62", "1d 15h"]},
    }
    meta = {"seeds": [0, 1, 2], "per_budget": {"equal samples": "equal-samples", "equal tokens": "equal-tokens"}}
    out = write_budgets(tmp_path, per_seed, metas, meta, spec, baselines=base)
    md = (out / "table.md").read_text()
    assert (
        "| model | next step — equal samples | training s — equal samples | next step — equal tokens | training s — equal tokens |"
    ) in md
    # xval, mean 0.2 x 400 = 80 ± 4.303 * 40 / sqrt(3) = [-19, 1.8e+02]; 24 ± 4.303 * 4 / sqrt(3) = [14, 34]
    assert "| **xval** | 80 [0, 1.8e+02] (n 3 seeds) | 20 | 24 [14, 34] (n 3 seeds) | 20 |" in md
    assert "| xval (paper) | 1.75 | 9h | 1.62 | 1d 15h |" in md
    assert "*persistence* (no training; 95 % bootstrap over the 200 test records) | 17 [17, 17] | – |" in md
    long = pd.read_csv(out / "table.csv")
    assert list(long.columns[:2]) == ["budget", "model"]
    assert set(long["budget"]) == set(per_seed) and len(pd.read_csv(out / "seeds.csv")) == 12
    assert all((out / "plots" / f"budgets_{m}.png").stat().st_size > 5000 for m in ("mse_K2", "r2"))


@pytest.mark.slow
def test_tiny_era5_comparison_under_three_budgets_end_to_end(tmp_path):
    from recipes.compare import run_comparison

    preset = load_preset(RECIPES.parent / "tests" / "presets" / "era5.yaml", "compare-tiny")
    out = run_comparison(
        "era5",
        preset,
        work=tmp_path / "w",
        out=tmp_path / "r",
        seeds=2,
        models=["xval", "p10"],
        preset_name="compare-tiny",
        log=lambda s: None,
    )
    meta = json.loads((out / "meta.json").read_text())
    assert list(meta["budgets"]) == ["equal samples", "equal tokens", "equal runtime"] and not meta["missing"]
    for b in meta["per_budget"].values():  # each budget a whole comparison with its own report
        sub = json.loads((out / b / "meta.json").read_text())
        assert {"xval/seed0", "xval/seed1", "p10/seed0", "p10/seed1"} == set(sub["runs"])
    samples = json.loads((out / "equal-samples" / "meta.json").read_text())["runs"]
    tokens = json.loads((out / "equal-tokens" / "meta.json").read_text())["runs"]
    # 32 samples from 60 training records in batches of 8 (a short batch ends each pass): the
    # steps are where the sampler's own stream reaches 32, never fewer samples
    assert all(32 <= r["samples"] < 40 for r in samples.values())
    # equal tokens: the one-token encoding sees more records for the same tokens
    assert tokens["xval/seed0"]["samples"] > tokens["p10/seed0"]["samples"]
    assert min(r["tokens"] for r in tokens.values()) >= 12000
    # a seconds budget: the steps the clock allowed, and what they saw, counted after training
    runtime = json.loads((out / "equal-runtime" / "meta.json").read_text())["runs"]
    assert all(1 <= r["steps"] <= 40 and 4 * r["steps"] <= r["samples"] <= 8 * r["steps"] < r["tokens"] for r in runtime.values())
    md = (out / "table.md").read_text()
    assert "*climatology* (no training" in md and "training s — equal runtime" in md
    long = pd.read_csv(out / "table.csv")
    assert set(long["budget"]) == set(meta["budgets"]) and {"xval", "p10"} <= set(long["model"])


def test_each_budget_report_gets_its_own_paper_cells():
    """A several-budget preset's paper rows hold every budget's cells and runtime side by side
    (Table 4); a budget's own report shows only its columns' cells (the ERA5 report once put all
    six in a one-column table)."""
    from recipes.compare import _budget_table

    table = load_preset(RECIPES / "era5.yaml", "compare")["table"]
    assert _budget_table(table, 0)["paper"]["xval"] == ["1.75"]
    assert _budget_table(table, 2)["paper"]["fp15"] == ["1.85"]
    assert _budget_table(table, 1)["columns"] == table["columns"] and table["paper"]["xval"][2] == "1.62"
    assert _budget_table(None, 1) is None
