"""Recipes end to end at their tiny presets (slow: builds, trains and evaluates 4 models each)."""

import json
import subprocess
from pathlib import Path

import pandas as pd
import torch
import pytest

from recipes.presets import load_preset
from recipes.runner import run_recipe
from scinum.util.provenance import result_provenance
from scinum.errors import RecipeError

RECIPES = Path(__file__).resolve().parent.parent / "recipes"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["planets", "era5"])
def test_tiny_recipe_end_to_end(tmp_path, name):
    preset = load_preset(RECIPES / f"{name}.yaml", "tiny")
    out = run_recipe(name, preset, work=tmp_path / "work", out=tmp_path / "results", workers=1, log=lambda s: None)
    for f in ("table.md", "table.csv", "predictions.csv", "train_values.json", "meta.json"):
        assert (out / f).stat().st_size > 0
    everything = pd.read_csv(out / "table.csv")
    # the standard references of the same records beside the models (scinum.analysis.baselines)
    table, refs = everything[everything["kind"] == "model"], everything[everything["kind"] != "model"]
    assert {"ridge", "boosted trees", "train mean"} <= set(refs["model"])
    assert set(refs["split"]) == set(table["split"])
    models = list(preset["models"])
    meta = json.loads((out / "meta.json").read_text())
    assert meta["preset"] == preset and set(meta["models"]) == set(models)
    # the tiny presets name no positions: the run config's default (it was "learned" when this was written)
    from scinum.train.config import assemble_config

    assert meta["models"]["xval"]["model"]["positions"] == assemble_config()["model"]["positions"] == "structure"
    splits = sorted(
        s.name for s in (tmp_path / "work" / "data").iterdir() if s.is_dir() and (s.name == "test" or s.name.startswith("ood_"))
    )
    sub = table[table["subset"] != "all"]  # interp/extrap rows of declared training ranges
    assert set(sub["subset"]) <= {"interp", "extrap"} and set(sub["split"]) <= {"ood_stepsize"}
    for (m, f, sp), rows in sub.groupby(["model", "field", "split"]):
        whole = table[(table.model == m) & (table.field == f) & (table.split == sp) & (table.subset == "all")]
        assert sorted(rows["subset"]) == ["extrap", "interp"] and rows["n"].sum() == whole["n"].item()
    table = table[table["subset"] == "all"]
    n_fields = table["field"].nunique()
    assert len(table) == len(models) * n_fields * len(splits)
    assert set(table["model"]) == set(models) and sorted(table["split"].unique()) == splits
    assert not table.duplicated(["model", "field", "split"]).any()
    # every cell is scored; an 8-step BitTokens model may predict ~1e200, whose MSE is inf
    assert not table["mse"].isna().any() and (table["n"] > 0).all()
    # training curves for every model that logged (8-step models log no row at 10-step intervals)
    logged = [m for m in models if (tmp_path / "work" / "models" / m / "logs" / "metrics.csv").is_file()]
    assert logged and sorted(p.stem for p in (out / "logs").glob("*.csv")) == sorted(logged)
    curves = {p.name for p in (out / "plots").glob("curves_*.png")}
    assert curves == {f"curves_{m.replace('+', '_')}.png" for m in logged}
    # every model exported to share, its card holding its rows of the table
    for m in models:
        card = (out / "models" / m / "README.md").read_text()
        assert card.startswith("---\nlibrary_name: scinum") and f"# {m}:" in card
        assert all(f"| {s} |" in card for s in splits)
    pngs = list((out / "plots").glob("*.png"))
    assert pngs and all(p.stat().st_size > 5000 for p in pngs)
    # re-running reuses the finished dataset and models (resumable recipe)
    again = run_recipe(name, preset, work=tmp_path / "work", out=tmp_path / "results2", workers=1, log=lambda s: None)
    assert pd.read_csv(again / "table.csv").equals(everything)


def test_results_carry_the_commit_that_made_them():
    """Published numbers name the code that produced them (results/*/meta.json)."""
    p = result_provenance()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=RECIPES.parent, capture_output=True, text=True).stdout.strip()
    assert p["commit"] == (head or None) and isinstance(p["machine"], str) and p["finished"]
    assert p["torch_threads"] == torch.get_num_threads()  # float results depend on it
    if head:
        assert p["dirty"] in (True, False)


def test_publish_refuses_uncommitted_results_and_names_the_commit(tmp_path):
    from recipes.publish import publish

    res = tmp_path / "res"
    (res / "plots").mkdir(parents=True)
    (res / "table.md").write_text("| a |\n|---|\n| 1 |\n")
    (res / "table.csv").write_text("a\n1\n")
    (res / "plots" / "ood_x.png").write_bytes(b"png")
    meta = {
        "recipe": "planets",
        "commit": "0123456789abcdef",
        "dirty": True,
        "machine": "m",
        "elapsed_s": 600.4,
        "preset_name": "quick",
        "finished": "2026-11-22T12:00:00+00:00",
    }
    (res / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(RecipeError, match="uncommitted"):
        publish(res, tmp_path / "docs")
    (res / "meta.json").write_text(json.dumps({**meta, "dirty": False}))
    out = publish(res, tmp_path / "docs")
    text = (out / "table.md").read_text()
    assert "`0123456789`" in text and "10 min 0 s" in text and text.endswith("| 1 |\n")
    assert "python recipes/planets.py --preset quick" in text
    assert (out / "ood_x.png").read_bytes() == b"png"
    (tmp_path / "clone" / ".git").mkdir(parents=True)  # published from another checkout:
    out = publish(res, (tmp_path / "clone" / "docs" / "results" / "q").resolve())
    assert "recipes.publish results/planets docs/results/q`" in (out / "table.md").read_text()
    presetless = {k: v for k, v in meta.items() if k != "preset_name"}  # a recipe without presets (co2)
    (res / "meta.json").write_text(json.dumps({**presetless, "recipe": "co2", "dirty": False}))
    text = (publish(res, tmp_path / "docs3") / "table.md").read_text()
    assert "Results of `python recipes/co2.py` at commit" in text and "--preset" not in text


def test_publish_brings_each_budgets_own_report(tmp_path):
    """A comparison under several budgets: the side-by-side table and its plots at the top, each
    budget's report (tables, paired differences, meta, plots) in its own subdirectory."""
    from recipes.publish import publish

    res = tmp_path / "res"
    (res / "plots").mkdir(parents=True)
    for name in ("table.md", "table.csv", "seeds.csv"):
        (res / name).write_text(name)
    (res / "plots" / "budgets_mse.png").write_bytes(b"png")
    meta = {
        "recipe": "era5",
        "commit": "0123456789abcdef",
        "dirty": False,
        "machine": "m",
        "elapsed_s": 60.0,
        "preset_name": "compare",
        "finished": "2026-11-23T12:00:00+00:00",
        "command": "python recipes/era5.py --preset compare --seeds 3",
        "core_seconds": 600,
        "per_budget": {"equal samples": "equal-samples", "equal tokens": "equal-tokens"},
    }
    (res / "meta.json").write_text(json.dumps(meta))
    for slug in meta["per_budget"].values():
        (res / slug / "plots").mkdir(parents=True)
        for name in ("table.md", "table.csv", "seeds.csv", "paired.csv", "predictions.csv.gz", "meta.json"):
            (res / slug / name).write_text(f"{slug} {name}")
        (res / slug / "plots" / "compare_mse.png").write_bytes(slug.encode())
    out = publish(res, tmp_path / "docs")
    assert (out / "budgets_mse.png").read_bytes() == b"png" and (out / "seeds.csv").read_text() == "seeds.csv"
    assert (out / "equal-tokens" / "paired.csv").read_text() == "equal-tokens paired.csv"
    assert (out / "equal-samples" / "compare_mse.png").read_bytes() == b"equal-samples"
    assert (out / "equal-samples" / "predictions.csv.gz").read_text() == "equal-samples predictions.csv.gz"
    assert "10 core-minutes" in (out / "table.md").read_text()
    (res / "equal-tokens" / "paired.csv").unlink()  # a budget's report incomplete: nothing published
    with pytest.raises(RecipeError, match="equal-tokens/paired.csv"):
        publish(res, tmp_path / "docs2")
    assert not (tmp_path / "docs2").exists()


def test_era5_paper_preset_refuses_the_synthetic_field(tmp_path, capsys):
    """The paper's data is real ERA5: without --source the recipe stops, saying how to get it."""
    from recipes.runner import main

    preset = load_preset(RECIPES / "era5.yaml", "paper")
    assert preset["build"]["source"] is None
    assert main("era5", ["--preset", "paper", "--work", str(tmp_path / "w"), "--out", str(tmp_path / "r")]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "build.source is null" in err and "--source PATH" in err
    assert "Copernicus" in err and "era5/README.md" in err
    assert not (tmp_path / "w").exists()
    with pytest.raises(RecipeError, match="build.source is null"):
        run_recipe("era5", preset, work=tmp_path / "w", out=tmp_path / "r", log=lambda s: None)


def test_planets_paper_preset_is_the_papers_and_the_references():
    """Normalizer none for xVal (App. B.2 values fed as generated), T drawn in 30..59 per sample
    (xVal reference construct_example), BitTokens with reciprocal bits replacing the embedding
    (every BitTokens reference config)."""
    from scinum import encodings
    from scinum.model.config import ModelConfig
    from scinum_simulations.planets_prior import PlanetsConfig

    preset = load_preset(RECIPES / "planets.yaml", "paper")
    assert PlanetsConfig(steps=preset["build"]["steps"]).steps_range() == (30, 59)
    models = preset["models"]
    assert models["xval"]["normalizer"] == "none" and models["xval+gmm"]["normalizer"] == "none"
    enc = encodings.from_config(models["bittokens"]["encoding"])
    assert (enc.reciprocal, enc.combine, enc.precision) == (True, "replace", 64)
    ModelConfig(
        vocab_size=8,
        num_dim=enc.dim,
        combine=enc.combine,
        max_positions=8,
        **{k: preset["train"]["model"][k] for k in ("d_model", "n_layers", "n_heads")},
    )


def test_sample_curve_learns_a_difference_and_counts_targets(tmp_path, capsys):
    """recipes/sample_curve.py: rows at epochs 1, 2, 4 with targets = epochs x records, and an
    MLP that learns y = a - b (a field no single input predicts) is far better after 4 epochs."""
    pytest.importorskip("sklearn")
    import random

    from recipes import sample_curve
    from scinum.datasets.directory import DatasetWriter

    def sample(i):
        rng = random.Random(i)
        a, b = rng.uniform(0, 1), rng.uniform(0, 1)
        return {"a": a, "b": b, "y": a - b}, {}

    w = DatasetWriter(tmp_path / "d", builder="toy", version="1", parameters={}, seed=0, shard_size=64)
    w.write_split("train", 256, sample)
    w.write_split("test", 64, sample)
    w.finish()
    rows = sample_curve.curve(str(tmp_path / "d"), "y", max_epochs=4, hidden=(64,))
    assert [r["epochs"] for r in rows] == [1, 2, 4]
    assert [r["targets"] for r in rows] == [256, 512, 1024]
    assert rows[0]["test_r2"] < 0.5 < 0.9 < rows[-1]["test_r2"]
    assert sample_curve.main([str(tmp_path / "d"), "--field", "y", "--epochs", "1"]) == 0
    assert "| 1 | 256 |" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="no number at 'nope'"):
        sample_curve.curve(str(tmp_path / "d"), "nope", max_epochs=1)


def test_a_comparisons_command_names_the_presets_file_and_source_that_chose_it(tmp_path):
    """The results' command reruns what ran: another presets file and a data source are in it;
    the recipe's own presets file is left implicit."""
    import argparse

    from recipes.runner import _options

    own = Path("recipes") / "era5.yaml"
    assert _options(argparse.Namespace(presets=own, source=None), own) == []
    other = Path("experiments/era5-target-alone/presets.yaml")
    assert _options(argparse.Namespace(presets=other, source="era5/t2m.nc"), own) == ["--presets", str(other), "--source", "era5/t2m.nc"]


def test_the_presets_reference_lists_every_preset_of_each_recipe():
    import re

    import yaml

    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "reference" / "presets.md").read_text()
    for name in ("planets", "era5", "arithmetic"):
        listed = re.search(rf"python recipes/{name}\.py --preset (\S+)", text).group(1).split("|")
        assert set(listed) == set(yaml.safe_load((root / "recipes" / f"{name}.yaml").read_text())), name
