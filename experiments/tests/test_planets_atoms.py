"""experiments/planets-atoms: the table and the figures its README quotes, recomputed from the
predictions beside it; the recorded atoms are what the product's field_ranges finds."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from published import readme, script

ROOT = Path(__file__).resolve().parents[2]
FOLDER = "planets-atoms"
HERE = ROOT / "experiments" / FOLDER


def test_the_readme_table_is_table_py_s():
    assert script(FOLDER, "table").table() in (HERE / "README.md").read_text(encoding="utf-8")


def test_the_quoted_figures_are_the_predictions():
    table = script(FOLDER, "table")
    p = table.frame()
    text = readme(FOLDER)
    below = []
    for build in table.BUILDS:
        g = p[(p.build == build) & (p.split == "test")]
        per_seed = g[g.atoms == "on"].groupby("seed").se.mean()
        below.append(int((per_seed <= g[g.atoms == "boosted trees"].se.mean()).sum()))
    assert below == [4, 2 - 1]
    assert "below the trees on 4 of 5 seeds (seed 1: 0.000405)" in text and "below them on 1 of 2 seeds (0.000161 and 0.000235)" in text
    dev, test = (table.figures(p, b, "ood_a1") for b in table.BUILDS)
    assert (
        f"rose by {100 * (dev['on'] / dev['off'] - 1):.1f} % (development) and {100 * (test['on'] / test['off'] - 1):.1f} % (test)" in text
    )
    for f in (dev, test):
        assert f["on"] < min(f["ridge"], f["boosted trees"])  # "stays below ridge and the trees on both builds"
    cover = f"({dev['off_cover']:.3f} → {dev['on_cover']:.3f}, {test['off_cover']:.3f} → {test['on_cover']:.3f})"
    assert f"The intervals cover as often as before there {cover}" in text and cover == "(0.707 → 0.710, 0.792 → 0.802)"


def test_the_atoms_are_the_four_semi_major_axes_at_one():
    atoms = json.loads((HERE / "atoms.json").read_text())
    for build in atoms.values():
        assert sorted(build) == [f"description.planet{k}.a" for k in range(4)]
        assert {a["value"] for a in build.values()} == {1.0} and all(0.166 < a["gap"] < 0.176 for a in build.values())
    assert atoms["development (build 0)"]["description.planet0.a"]["count"] == 1426


def test_the_quick_models_figures_are_quick_csv():
    quick = script(FOLDER, "quick")
    s = quick.summary(pd.read_csv(HERE / "quick.csv"))
    text = readme(FOLDER)
    for split in ("test", "ood_a1"):
        row = s.loc[split]
        assert f"| {split} | {row['off']:.6f} | {row['on']:.6f} | {int(row['moved'])} of 200 |" in text
        assert row["on"] <= row["off"]  # "both splits gain a little"


def test_the_fresh_fit_reproduced_the_weights_the_atoms_and_the_fills():
    fresh = json.loads((HERE / "fresh.json").read_text())
    assert fresh["weights_equal"] and fresh["atoms_equal"] and fresh["predictions"] == 400 and fresh["max_abs_diff"] == 0.0
    assert fresh["atoms"] == [f"description.planet{k}.a" for k in range(4)]
    assert "its weights equal the published seed-0 checkpoint's bit for bit, after all 16 935 steps its `training.json` counts" in readme(
        FOLDER
    )
