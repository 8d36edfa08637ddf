"""experiments/planets-record-line: its presets are the recipe's `best` preset with a line under
the network on the four evaluated fields, key for key otherwise."""

from __future__ import annotations

from pathlib import Path

from recipes.compare import model_configs
from recipes.presets import load_preset

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "experiments" / "planets-record-line"
LINE = ["description.stepsize", "description.planet0.a", "description.planet0.e", "description.planet0.m"]
ON_A_LINE = "xval+gmm, values alone, on a line"


def _configs(path: Path, preset: str, tmp_path: Path, label: str, seeds: int = 2) -> tuple[dict, list[dict]]:
    p = load_preset(path, preset)
    configs = model_configs("planets", p, tmp_path / "data", tmp_path, seeds=seeds)
    out = []
    for seed in range(seeds):
        c = configs[(label, seed)]
        c.pop("out_dir")
        out.append(c)
    return p, out


def test_the_line_presets_are_the_best_preset_with_a_line(tmp_path):
    best, theirs = _configs(ROOT / "experiments" / "presets" / "planets.yaml", "best-values-alone", tmp_path, "xval+gmm")
    assert all(c["line"] == [] for c in theirs)
    for preset, seed in (("cap-line", 0), ("fresh-line", 2026)):
        p, ours = _configs(HERE / "presets.yaml", preset, tmp_path, ON_A_LINE)
        assert p["build"] == {**best["build"], "seed": seed} and p["evaluate"] == best["evaluate"]
        assert p["table"]["columns"] == best["table"]["columns"]
        for a, b in zip(ours, theirs):
            assert a["line"] == LINE and {**a, "line": []} == b
    cost, pair = _configs(HERE / "presets.yaml", "cost", tmp_path, ON_A_LINE, seeds=1)
    _, base = _configs(HERE / "presets.yaml", "cost", tmp_path, "xval+gmm, values alone", seeds=1)
    assert cost["budget"] == {"samples": 76800} and {**pair[0], "line": []} == base[0]
    assert {**base[0], "budget": theirs[0]["budget"]} == theirs[0]


def _script(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"planets_record_line_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _declared_runs(here: Path, runs: tuple[tuple[str, str, list[int]], ...], commit: str) -> None:
    """Each published (folder, preset, seeds) of ``here`` ran that preset on those seeds at ``commit``, clean."""
    import json

    for folder, preset, seeds in runs:
        meta = json.loads((here / folder / "meta.json").read_text())
        assert meta["preset_name"] == preset and meta["seeds"] == seeds and not meta["dirty"], folder
        assert meta["commit"].startswith(commit)


def test_the_runs_are_the_declared_presets_at_a_clean_commit():
    _declared_runs(HERE, (("cap", "cap-line", [0, 1, 2, 3, 4]), ("fresh", "fresh-line", [0, 1]), ("cost", "cost", [0])), "1880528")


def test_the_verdict_is_the_readmes():
    """The rule's table and verdict as the README states them: Δt OoD 0.235×, validation e₁
    2.23× and Δt 2.35× the preset's, cost 1.04×: not adopted."""
    table, cost, adopted = _script("verdict").verdict()
    assert not adopted and round(cost, 2) == 1.04
    ratios = table.ratio.round(3).to_dict()
    assert ratios == {"Δt (OoD)": 0.235, "a₁ (OoD)": 1.071, "e₁ (val)": 2.233, "a₁ (val)": 0.228, "Δt (val)": 2.345}
    readme = (HERE / "README.md").read_text()
    for name, bound in (("Δt `ood_stepsize`", "0.8"), ("e₁, validation", "1.25"), ("Δt, validation", "1.25")):
        assert name in readme and bound in readme


def test_the_readmes_tables_are_the_published_files():
    readme = (HERE / "README.md").read_text()
    table = _script("table")
    for data in table.DATA:
        assert table.markdown(data) in readme, data
    rows = {r[0]: r for r in table.rows("test (build seed 2026)")}
    assert rows["on a line (2 seeds)"][4].startswith("0.0022 (0.0023, 0.002)") and rows["ridge"][4] == "0.0024"
    assert rows["on a line (2 seeds)"][2].startswith("0.00027") and rows["boosted trees"][2] == "0.00042"
