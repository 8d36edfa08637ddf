"""experiments/era5-target-alone/README.md: every figure recomputed from the published runs' files;
the preset it adopted is the recipe's."""

import json
from pathlib import Path

import pandas as pd
import yaml

EXP = Path(__file__).resolve().parents[1]
HERE = EXP / "era5-target-alone"
TEXT = " ".join((HERE / "README.md").read_text().split())


def _test_mse(folder: Path) -> dict[str, float]:
    t = pd.read_csv(folder / "table.csv")
    t = t[(t.metric == "mse_K2") & (t.split == "test")]
    return dict(zip(t.model, t["mean"]))


def _seeds(folder: Path) -> list[float]:
    s = pd.read_csv(folder / "seeds.csv").sort_values("seed")
    return list(s.mse_K2)


def _val(folder: Path) -> pd.DataFrame:
    return pd.read_csv(folder / "val.csv")


def test_the_choice_read_the_validation_split():
    v = _val(HERE / "selection")
    ours = v[v.seed.notna()].set_index("model").mse_K2
    refs = v[v.seed.isna()].set_index("model").mse_K2
    rows = [
        ("`best` as it was", ours["xval+gmm"]),
        ("**the next step asked alone**", ours["xval+gmm, target alone"]),
        ("ridge", refs["ridge"]),
        ("boosted trees", refs["boosted trees"]),
        ("persistence", refs["persistence"]),
    ]
    for label, value in rows:
        cell = f"**{value:.2f}**" if label.startswith("**") else f"{value:.2f}"
        assert f"| {label} | {cell} |" in TEXT, label
    assert ours["xval+gmm, target alone"] < refs["ridge"] < ours["xval+gmm"]
    test = _test_mse(HERE / "selection")
    assert f"3.82 against {test['xval+gmm']:.2f} as it was" in TEXT and f"{test['xval+gmm, target alone']:.2f}" == "3.82"
    assert f"{_seeds(EXP / 'era5-best')[0]:.2f}" == f"{test['xval+gmm']:.2f}"  # the same run as era5-best's seed 0


def test_the_three_seeds_and_their_references():
    best = HERE / "best"
    ours, before = _seeds(best), _seeds(EXP / "era5-best")
    t = pd.read_csv(best / "table.csv")
    (row,) = t[(t.metric == "mse_K2") & (t.split == "test") & (t.model == "xval+gmm")].itertuples()
    cells = " | ".join(f"{x:.2f}" for x in ours)
    assert f"| `best`, the next step asked alone | {cells} | **{row.mean:.2f} [{row.ci95_low:.2f}, {row.ci95_high:.2f}]** |" in TEXT
    cells = " | ".join(f"{x:.2f}" for x in before)
    assert f"| {cells} | {sum(before) / 3:.2f} |" in TEXT
    refs = _test_mse(best)
    for label, name in (("ridge (fitted once on the same training records)", "ridge"), ("boosted trees", "boosted trees")):
        assert f"| {label} | | | | {refs[name]:.2f} |" in TEXT
    assert f"| the station's climatology | | | | {refs['climatology']:.2f} |" in TEXT
    assert f"| persistence | | | | {refs['persistence']:.2f} |" in TEXT
    gains = [b - a for a, b in zip(ours, before)]
    assert min(gains) > 0 and f"by {min(gains):.2f}–{max(gains):.2f} K²" in TEXT
    assert refs["boosted trees"] > row.mean > refs["ridge"] and f"{row.mean / refs['ridge']:.2f}× ridge" in TEXT
    assert row.ci95_low < refs["ridge"] < row.ci95_high  # "ridge is inside the seeds' interval"
    v = _val(best)
    val = list(v[v.seed.notna()].sort_values("seed").mse_K2)
    assert f"three seeds score {val[0]:.2f}, {val[1]:.2f} and {val[2]:.2f} (mean {sum(val) / 3:.2f}" in TEXT


def test_the_cost_and_provenance():
    runs = [json.loads((HERE / "best" / f"training-seed{s}.json").read_text()) for s in (0, 1, 2)]
    assert {r["steps"] for r in runs} == {4608} and {r["budget"]["samples"] for r in runs} == {288000}
    secs = [r["train_seconds"] for r in runs]
    assert f"{round(min(secs))}–{round(max(secs))} s of training a seed" in TEXT
    meta = json.loads((HERE / "best" / "meta.json").read_text())
    assert meta["seeds"] == [0, 1, 2] and meta["preset_name"] == "best" and not meta["dirty"]
    assert meta["commit"].startswith("3d318e7") and "results written at 3d318e7" in TEXT


def test_the_budget_reading_and_its_choice():
    rows = {}
    for folder, label in (("best", "288,000 samples"), ("best-576k", "**576,000 samples**")):
        v = _val(HERE / folder)
        val = list(v[v.seed.notna()].sort_values("seed").mse_K2)
        test = _seeds(HERE / folder)
        t = pd.read_csv(HERE / folder / "table.csv")
        (row,) = t[(t.metric == "mse_K2") & (t.split == "test") & (t.model == "xval+gmm")].itertuples()
        rows[folder] = (sum(val) / 3, row)
        bold = "**" if folder == "best-576k" else ""
        cell_val = " / ".join(f"{x:.2f}" for x in val) + f" ({bold}{sum(val) / 3:.2f}{bold})"
        cell_test = " / ".join(f"{x:.2f}" for x in test) + f" ({bold}{row.mean:.2f} [{row.ci95_low:.2f}, {row.ci95_high:.2f}]{bold})"
        assert f"| {label} | {cell_val} | {cell_test} |" in TEXT, folder
    assert rows["best-576k"][0] < rows["best"][0]  # chosen on the validation split
    v = _val(HERE / "best-576k")
    refs = v[v.seed.isna()].set_index("model").mse_K2
    test_refs = _test_mse(HERE / "best-576k")
    assert f"| ridge | {refs['ridge']:.2f} | {test_refs['ridge']:.2f} |" in TEXT
    assert f"| boosted trees | {refs['boosted trees']:.2f} | {test_refs['boosted trees']:.2f} |" in TEXT
    ours = rows["best-576k"][1]
    assert max(_seeds(HERE / "best-576k")) < test_refs["ridge"] and ours.ci95_high < test_refs["ridge"]
    assert f"{ours.mean / test_refs['ridge']:.2f}× ridge, with ridge above the seeds' interval" in TEXT
    assert f"still {rows['best-576k'][0] / refs['ridge']:.2f}× ridge in the mean" in TEXT
    assert min(v[v.seed.notna()].mse_K2) > refs["ridge"]  # "no seed is below ridge there"
    assert f"{ours.mean:.2f} K² against ridge {test_refs['ridge']:.2f} and the climatology {test_refs['climatology']:.2f}" in TEXT
    runs = [json.loads((HERE / "best-576k" / f"training-seed{s}.json").read_text()) for s in (0, 1, 2)]
    assert {r["steps"] for r in runs} == {9216} and {r["budget"]["samples"] for r in runs} == {576000}
    secs = [r["train_seconds"] for r in runs]
    assert max(secs) <= 1800 and f"{round(min(secs)):,}–{round(max(secs)):,} s of training a seed" in TEXT
    meta = json.loads((HERE / "best-576k" / "meta.json").read_text())
    assert meta["commit"].startswith("cd508ec") and not meta["dirty"]
    assert "--presets experiments/era5-target-alone/presets.yaml --preset best-576k" in meta["command"]


def test_the_adopted_preset_is_the_recipes():
    recipe = yaml.safe_load((EXP.parent / "recipes" / "era5.yaml").read_text())["best"]
    presets = yaml.safe_load((HERE / "presets.yaml").read_text())
    tried = presets["best-alone"]
    assert tried["train"]["data"] == {**recipe["train"]["data"], "mask_fields_alone": False}  # "as it was"
    assert recipe["train"]["data"]["mask_fields_alone"] is True
    assert tried["models"]["xval+gmm, target alone"]["data"] == {"mask_fields_alone": True}
    assert recipe == presets["best-576k"]  # the budget chosen on the validation split, everything else as adopted
