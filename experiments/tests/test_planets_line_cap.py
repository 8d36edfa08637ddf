"""experiments/planets-line-cap: its presets are the recipe's `best` preset with a line under Δt
and a₁ at planets-half-time step 4's samples, key for key otherwise; its runs are those presets at
the declared commit; the README's verdict and tables are what the published files give."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from test_planets_record_line import _configs

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "experiments" / "planets-line-cap"
LINE = ["description.stepsize", "description.planet0.a"]
CANDIDATE = "xval+gmm, values alone, dt and a1 on a line"


def _script(name: str):
    spec = importlib.util.spec_from_file_location(f"planets_line_cap_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_presets_are_step_4s_model_with_a_line_under_dt_and_a1(tmp_path):
    """The `best` preset's model and data but for the build seed, at the samples step 4 spent."""
    best, theirs = _configs(ROOT / "recipes" / "planets.yaml", "best", tmp_path, "xval+gmm")
    step4, cap = _configs(ROOT / "experiments" / "planets-half-time" / "presets.yaml", "full-cap", tmp_path, "xval+gmm")
    for preset, seed in (("cap", 0), ("test", 1729)):
        p, ours = _configs(HERE / "presets.yaml", preset, tmp_path, CANDIDATE)
        assert p["build"] == {**best["build"], "seed": seed} and p["evaluate"] == best["evaluate"]
        assert p["table"]["columns"] == best["table"]["columns"] and p["budget"] == step4["budget"] == {"samples": 1198080}
        for a, b in zip(ours, cap):
            assert a["line"] == LINE and {**a, "line": b["line"]} == b
