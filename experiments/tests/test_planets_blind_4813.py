"""experiments/planets-blind-4813: the published runs are the declared preset's, on a build seed no
other experiment built."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "experiments" / "planets-blind-4813"


def test_the_published_runs_are_the_preset_s():
    """The preset was `best` with only ``build.seed`` changed when it was declared (the README's
    commit); the published runs name that preset's build, budget and model."""
    blind = yaml.safe_load((HERE / "presets.yaml").read_text(encoding="utf-8"))["blind-4813"]
    meta = json.loads((HERE / "meta.json").read_text(encoding="utf-8"))
    assert meta["build"] == blind["build"] and meta["build"]["seed"] == 4813
    assert meta["budget"] == blind["budget"] and meta["seeds"] == [0, 1] and not meta["dirty"]
    assert set(meta["models"]) == set(blind["models"]) == {"xval+gmm"}


def test_no_other_experiment_built_seed_4813():
    seeds = set()
    for presets in ROOT.glob("experiments/*/presets.yaml"):
        if presets.parent == HERE:
            continue
        for preset in (yaml.safe_load(presets.read_text(encoding="utf-8")) or {}).values():
            if isinstance(preset, dict) and isinstance(preset.get("build"), dict):
                seeds.add(preset["build"].get("seed"))
    assert 2718 in seeds and 4813 not in seeds


def test_the_readme_table_is_the_published_figures():
    import pandas as pd
    from published import readme

    text = readme("planets-blind-4813")
    table = pd.read_csv(HERE / "table.csv").set_index(["model", "field", "split", "metric"])["mean"]
    seeds = pd.read_csv(HERE / "seeds.csv").set_index(["seed", "field", "split"])
    atoms = pd.read_csv(HERE / "atoms.csv")
    a1 = atoms[atoms.split == "test"].assign(se=lambda f: (f.pred - f.true) ** 2).groupby(["atoms", "seed"]).se.mean()
    e, a, dt = "description.planet0.e", "description.planet0.a", "description.stepsize"
    r2 = [seeds.loc[(s, e, "test"), "r2"] for s in (0, 1)]
    assert f"| e₁ test, R² | **{table['xval+gmm', e, 'test', 'r2']:.3f}** ({r2[0]:.3f}, {r2[1]:.3f}) |" in text
    assert f"| {table['ridge', e, 'test', 'r2']:.3f} | {table['boosted trees', e, 'test', 'r2']:.3f} |" in text
    off, on = ((f"{a1[state].mean():.6f}", f"({a1[state, 0]:.6f}, {a1[state, 1]:.6f})") for state in ("off", "on"))
    assert f"| a₁ test, the atom fill off | {off[0]} {off[1]} |" in text
    assert f"| a₁ test, the atom fill on (the product) | **{on[0]}** {on[1]} |" in text
    assert abs(a1["on"].mean() - table["xval+gmm", a, "test", "mse"]) < 1e-9  # the recipe's a₁ is the fill with the atoms
    assert f"{table['boosted trees', a, 'test', 'mse']:.6f}" in text and f"{table['ridge', a, 'test', 'mse']:.5f}" in text
    assert f"| Δt `ood_stepsize` | **{table['xval+gmm', dt, 'ood_stepsize', 'mse']:.5f}** " in text
    assert f"| {table['ridge', dt, 'ood_stepsize', 'mse']:.5f} | {table['boosted trees', dt, 'ood_stepsize', 'mse']:.5f} |" in text
    assert all(seeds.loc[(s, dt, "ood_stepsize"), "mse"] < table["ridge", dt, "ood_stepsize", "mse"] for s in (0, 1))
    assert all(a1["on", s] < table["boosted trees", a, "test", "mse"] for s in (0, 1))
