"""experiments/era5-best/README.md: every figure recomputed from the published run's files."""

import csv
import json
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "era5-best"
TEXT = " ".join((HERE / "README.md").read_text().split())


def _mse(model: str) -> dict[str, float]:
    with open(HERE / "table.csv") as f:
        (row,) = [r for r in csv.DictReader(f) if r["model"] == model and r["metric"] == "mse_K2" and r["split"] == "test"]
    return {k: float(row[k]) for k in ("mean", "ci95_low", "ci95_high")}


def test_the_result_and_its_references_are_the_table():
    ours = _mse("xval+gmm")
    assert f"**{ours['mean']:.2g} [{ours['ci95_low']:.1f}, {ours['ci95_high']:.1f}]**" in TEXT
    for name, label in (
        ("climatology", "climatology"),
        ("persistence", "persistence"),
        ("ridge", "ridge"),
        ("boosted trees", "boosted trees"),
    ):
        assert f"{label} ({_mse(name)['mean']:.2g})" in TEXT, name
    assert f"{ours['mean'] / _mse('ridge')['mean']:.2f}× ridge" in TEXT
    assert _mse("climatology")["mean"] > ours["mean"] > _mse("ridge")["mean"]


def test_the_cost_is_the_runs_own_clocks():
    runs = [json.loads((HERE / f"training-seed{s}.json").read_text()) for s in (0, 1, 2)]
    assert {r["steps"] for r in runs} == {4608} and {r["budget"]["samples"] for r in runs} == {288000}
    lo, hi = (f"{round(x):,}".replace(",", " ") for x in (min(r["train_seconds"] for r in runs), max(r["train_seconds"] for r in runs)))
    assert f"{lo}–{hi} s of training a seed" in TEXT
    meta = json.loads((HERE / "meta.json").read_text())
    assert meta["seeds"] == [0, 1, 2] and meta["commit"].startswith("24485fb") and not meta["dirty"]
