"""experiments/planets-half-time: its presets are the recipe's `best` preset at the probe's budget
(and, for step 2, with a₁ asked too), key for key otherwise; its reference reproduces the
published four-heads run; the README quotes what the verdict reads from the published files."""

from __future__ import annotations

import contextlib
import csv
import importlib.util
import io
import json
import math
import re
from pathlib import Path

from test_planets_record_line import _configs

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "experiments" / "planets-half-time"


def _verdict() -> str:
    spec = importlib.util.spec_from_file_location("planets_half_time_verdict", HERE / "verdict.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        module.main()
    return out.getvalue()


def test_the_budget_is_the_probes_and_the_presets_are_best_at_it(tmp_path):
    probe = (HERE / "probe.txt").read_text()
    old, new = (float(x) for x in re.findall(r"\s(\d+\.\d)\n", probe)[:2])
    n = math.floor(0.5 * 460800 * new / old / 46080) * 46080
    assert n == 506880 and f"N = {n}" in probe
    best, theirs = _configs(ROOT / "experiments" / "presets" / "planets.yaml", "best-values-alone", tmp_path, "xval+gmm")
    p, ours = _configs(HERE / "presets.yaml", "half-time", tmp_path, "xval+gmm")
    assert p["budget"] == {"samples": n} and p["build"] == best["build"] and p["evaluate"] == best["evaluate"]
    for a, b in zip(ours, theirs):
        assert {**a, "budget": b["budget"], "trainer": {**a["trainer"], "max_steps": b["trainer"]["max_steps"]}} == b
    p614, more = _configs(HERE / "presets.yaml", "half-time-614k", tmp_path, "xval+gmm")
    assert p614["budget"] == {"samples": 614400} and {**p614, "budget": p["budget"], "table": p["table"]} == p
    for a, b in zip(more, ours):
        assert {**a, "budget": b["budget"], "trainer": {**a["trainer"], "max_steps": b["trainer"]["max_steps"]}} == b
    _, asked = _configs(HERE / "presets.yaml", "half-time-a1-asked", tmp_path, "xval+gmm, a1 asked")
    for a, b in zip(asked, ours):
        assert a["data"]["mask_fields"] == ["description.planet0.e", "description.planet0.a"]
        assert {**a, "data": {**a["data"], "mask_fields": b["data"]["mask_fields"]}} == b


def test_the_reference_reproduces_the_published_four_heads_run():
    def test_rows(path: Path) -> dict:
        with open(path) as f:
            return {(r["field"], r["subset"]): r["mse"] for r in csv.DictReader(f) if r["kind"] == "model" and r["split"] == "test"}

    ours = test_rows(HERE / "reference" / "seed0" / "table.csv")
    assert ours and ours == test_rows(ROOT / "experiments" / "planets-4heads" / "seed0" / "table.csv")
    assert json.loads((HERE / "reference" / "seed0" / "config.json").read_text())["budget"] == {"samples": 460800}


def test_the_readme_quotes_the_verdict():
    out = _verdict()
    text = (HERE / "README.md").read_text(encoding="utf-8")
    ratio = re.search(r"ratio (\d\.\d+)", out).group(1)
    assert ratio == "0.472" and f"**{ratio}×**" in text and "the time clause holds, the quality clause fails" in out
    for name in ("e₁ R²", "a₁", "Δt"):
        mean = re.search(rf"quality: {name} mean (\S+)", out).group(1)
        assert f"**{mean}**" in text, name
    assert "seeds [0, 1, 2, 3] beside" in out and "mean 795.7 s" in out and "mean 1685.5 s" in out


def test_step_two_is_read_on_the_validation_split_and_quoted():
    out = _verdict()
    text = (HERE / "README.md").read_text(encoding="utf-8")
    line = next(x for x in out.splitlines() if x.startswith("step 2"))
    assert line.endswith("not adopted")
    for name in ("a₁", "e₁", "Δt"):
        ratio = re.search(rf"{name} (\d\.\d+)", line).group(1)
        assert f"**{ratio}×**" in text, name
    assert "a₁ mean 0.000645" in out and "**a₁ 0.000645**" in text


def test_step_three_meets_the_caps_result_and_is_quoted():
    out = _verdict()
    text = (HERE / "README.md").read_text(encoding="utf-8")
    assert "step 3: the cap's result met" in out and "0.544 of the reference's mean" in out and "**0.544×**" in text
    for name in ("e₁ R²", "a₁", "Δt"):
        line = next(x for x in out.splitlines() if x.startswith(f"step 3, 614 400 samples: {name} "))
        assert line.endswith("holds"), name
        mean = re.search(rf"{name} mean (\S+)", line).group(1)
        assert f"**{mean}**" in text, name
    rows = list(csv.DictReader(open(HERE / "614k" / "training.csv")))
    meta = json.loads((HERE / "614k" / "meta.json").read_text())
    assert meta["budget"] == {"samples": 614400} and not meta["dirty"]
    assert {int(r["samples"]) for r in rows} == {614400} and [float(r["train_seconds"]) for r in rows] == [
        meta["runs"][f"xval+gmm/seed{s}"]["train_seconds"] for s in range(5)
    ]


def test_step_four_is_quoted_beside_the_best_preset_and_the_regressors():
    out = _verdict()
    text = (HERE / "README.md").read_text(encoding="utf-8")
    lines = {x.split(":")[0]: x for x in out.splitlines() if x.startswith("step 4")}
    for key, name in (("step 4, e₁ R²", "e₁ R²"), ("step 4, a₁", "a₁"), ("step 4, Δt", "Δt")):
        mean, each = re.search(rf"{name}: seeds \[0, 1\] mean (\S+) \((.+?)\);", lines[key]).groups()
        assert f"**{mean}** ({each})" in text, name
    assert "0.0153 (0.025, 0.00566)" in lines["step 4, Δt OoD"] and "0.0153 (0.025, 0.00566)" in text
    assert "1676.8, 1693.0" in lines["step 4"] and "1 676.8, 1 693.0" in text
    meta = json.loads((HERE / "full-cap" / "meta.json").read_text())
    assert meta["budget"] == {"samples": 1198080} and not meta["dirty"] and sorted(meta["seeds"]) == [0, 1]
