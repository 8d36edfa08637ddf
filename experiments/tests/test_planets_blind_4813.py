"""experiments/planets-blind-4813: the published runs are the declared preset's, on a build seed no
other experiment built."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "experiments" / "planets-blind-4813"


def test_the_published_runs_are_the_preset_s():
    """The preset was `best` with only ``build.seed`` changed when it was declared (the README's
    commit); the published runs name that preset's build, budget and model."""
    blind = yaml.safe_load((HERE / "presets.yaml").read_text(encoding="utf-8"))["blind-4813"]
    meta = json.loads((HERE / "meta.json").read_text(encoding="utf-8"))
    assert meta["build"] == blind["build"] and meta["build"]["seed"] == 4813
    assert meta["budget"] == blind["budget"] and meta["seeds"] == [0, 1, 2, 3, 4] and not meta["dirty"]
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


def _figures():
    import pandas as pd

    table = pd.read_csv(HERE / "table.csv").set_index(["model", "field", "split", "metric"])["mean"]
    seeds = pd.read_csv(HERE / "seeds.csv").set_index(["seed", "field", "split"])
    atoms = pd.read_csv(HERE / "atoms.csv")
    a1 = atoms[atoms.split == "test"].assign(se=lambda f: (f.pred - f.true) ** 2).groupby(["atoms", "seed"]).se.mean()
    return table, seeds, a1


E, A, DT = "description.planet0.e", "description.planet0.a", "description.stepsize"


def _cells(values, digits: str) -> str:
    return ", ".join(format(v, digits) for v in values)


@pytest.mark.parametrize("seeds_read", [(0, 1), (0, 1, 2, 3, 4)], ids=["step 1", "step 2"])
def test_the_readme_tables_are_the_published_figures(seeds_read):
    """Each step's table: its seeds' means and per-seed values, from seeds.csv and atoms.csv; the
    standard models from table.csv (fitted once, the same in both steps)."""
    import numpy as np
    from published import readme

    text = readme("planets-blind-4813")
    table, seeds, a1 = _figures()
    r2 = [seeds.loc[(s, E, "test"), "r2"] for s in seeds_read]
    assert f"| e₁ test, R² | **{np.mean(r2):.3f}** ({_cells(r2, '.3f')}) |" in text
    assert f"| {table['ridge', E, 'test', 'r2']:.3f} | {table['boosted trees', E, 'test', 'r2']:.3f} |" in text
    for state, label in (("off", "a₁ test, the atom fill off | "), ("on", "a₁ test, the atom fill on (the product) | **")):
        per = [a1[state, s] for s in seeds_read]
        close = "** " if state == "on" else " "
        assert f"| {label}{np.mean(per):.6f}{close}({_cells(per, '.6f')}) |" in text, state
    assert all(a1["on", s] < table["boosted trees", A, "test", "mse"] for s in seeds_read)
    dt = [seeds.loc[(s, DT, "ood_stepsize"), "mse"] for s in seeds_read]
    assert f"| Δt `ood_stepsize` | **{np.mean(dt):.5f}** " in text
    assert f"| {table['ridge', DT, 'ood_stepsize', 'mse']:.5f} | {table['boosted trees', DT, 'ood_stepsize', 'mse']:.5f} |" in text
    if len(seeds_read) == 5:  # the whole report: its mean is the five seeds'
        assert abs(table["xval+gmm", A, "test", "mse"] - np.mean([a1["on", s] for s in seeds_read])) < 1e-9
        assert sum(v < table["ridge", DT, "ood_stepsize", "mse"] for v in dt) == 4


def test_the_readme_sentence_is_the_five_seeds_figures():
    import numpy as np

    table, seeds, a1 = _figures()
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    dt = [seeds.loc[(s, DT, "ood_stepsize"), "mse"] for s in range(5)]
    ridge_between = table["ridge", DT, "ood_stepsize", "mse"]
    assert (
        f"gives e₁ R² {table['xval+gmm', E, 'test', 'r2']:.3f}, a₁ {table['xval+gmm', A, 'test', 'mse']:.5f} with the atom fill "
        f"(the trees: {table['boosted trees', A, 'test', 'mse']:.5f}; below them on every seed), "
        f"Δt {table['xval+gmm', DT, 'test', 'mse']:.1e} (ridge: {table['ridge', DT, 'test', 'mse']:.1e}) and Δt between the "
        f"training values {np.mean(dt):.5f} (ridge: {ridge_between:.5f}; below it on four seeds of five)"
    ) in text
    assert all(a1["on", s] < table["boosted trees", A, "test", "mse"] for s in range(5))
    assert sum(v < ridge_between for v in dt) == 4
