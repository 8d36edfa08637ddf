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
