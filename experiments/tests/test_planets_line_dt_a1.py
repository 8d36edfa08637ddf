"""experiments/planets-line-dt-a1: its presets are the recipe's `best` preset with a line under Δt
and a₁, key for key otherwise; its runs are those presets at the declared commit; the README's
verdict and tables are what the published files give."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from test_planets_record_line import _configs, _declared_runs

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "experiments" / "planets-line-dt-a1"
LINE = ["description.stepsize", "description.planet0.a"]
CANDIDATE = "xval+gmm, values alone, dt and a1 on a line"


def _script(name: str, here: Path = HERE):
    """``here``'s script ``name``.py, loaded as a module (default: this experiment's folder)."""
    spec = importlib.util.spec_from_file_location(f"{here.name.replace('-', '_')}_{name}", here / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_presets_are_the_best_preset_with_a_line_under_dt_and_a1(tmp_path):
    best, theirs = _configs(ROOT / "experiments" / "presets" / "planets.yaml", "best-values-alone", tmp_path, "xval+gmm")
    for preset, seed in (("cap", 0), ("test", 3141)):
        p, ours = _configs(HERE / "presets.yaml", preset, tmp_path, CANDIDATE)
        assert p["build"] == {**best["build"], "seed": seed} and p["evaluate"] == best["evaluate"]
        assert p["table"]["columns"] == best["table"]["columns"]
        for a, b in zip(ours, theirs):
            assert a["line"] == LINE and {**a, "line": b["line"]} == b
    cost, pair = _configs(HERE / "presets.yaml", "cost", tmp_path, CANDIDATE, seeds=1)
    _, base = _configs(HERE / "presets.yaml", "cost", tmp_path, "xval+gmm, values alone", seeds=1)
    assert cost["budget"] == {"samples": 76800} and {**pair[0], "line": base[0]["line"]} == base[0]
    assert {**base[0], "budget": theirs[0]["budget"]} == theirs[0]


def test_the_runs_are_the_declared_presets_at_a_clean_commit():
    _declared_runs(HERE, (("cap", "cap", [0, 1, 2, 3, 4]), ("test", "test", [0, 1]), ("cost", "cost", [0])), "2935b57")


def test_the_verdict_is_the_readmes():
    """Every clause but e₁ on the validation split holds (0.0113 against 0.00484): not adopted."""
    table = _script("verdict").clauses()
    failing = table.index[~table.holds].tolist()
    assert failing == ["5. e₁ (val) ≤ 1.25× best"]
    assert f"{table.candidate[failing[0]]:.3g}" == "0.0113" and f"{table.bound[failing[0]]:.3g}" == "0.00484"
    assert round(table.candidate["6. cost per sample ≤ 1.3× best"], 2) == 0.98
    readme = (HERE / "README.md").read_text()
    assert "**Not adopted**: e₁ on the validation split is 2.9× the preset's (0.0113 against 0.00387)" in readme
    for clause, row in table.iterrows():
        assert f"{row.candidate:.3g}" in readme and f"{row.bound:.3g}" in readme, clause


def test_the_readmes_tables_are_the_published_files():
    readme = (HERE / "README.md").read_text()
    table = _script("table")
    for data in table.DATA:
        assert table.markdown(data) in readme, data
    rows = {r[0]: r for r in table.rows("test (build seed 3141)")}
    line = rows["Δt and a₁ on a line (2 seeds)"]
    assert line[4].startswith("0.00095 (0.00094, 0.00096)") and rows["ridge"][4] == "0.001"
    assert line[2].startswith("0.00034") and rows["boosted trees"][2] == "0.00033"
    assert line[5].startswith("0.07 (0.069, 0.071)") and rows["ridge"][5] == "0.069" and rows["boosted trees"][5] == "0.0033"


def test_the_runaway_orbit_is_the_published_predictions():
    """Record 118 of the test data's ``ood_a1`` split: a₁ 1.145 filled as about 4.6 by both seeds."""
    import pandas as pd

    p = pd.read_csv(HERE / "test" / "predictions.csv.gz")
    p = p[(p.field == "description.planet0.a") & (p.split == "ood_a1") & (p.record == 118)].sort_values("seed")
    assert [round(v, 3) for v in p.truth] == [1.145, 1.145] and [round(v, 3) for v in p.prediction] == [4.607, 4.622]
