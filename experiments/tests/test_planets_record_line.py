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
    best, theirs = _configs(ROOT / "recipes" / "planets.yaml", "best", tmp_path, "xval+gmm")
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
