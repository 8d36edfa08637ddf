"""The presets of past experiments (experiments/presets/) still resolve to the configs their
published runs trained, key for key; and the planets ``best`` preset is the published four-heads
model reading the values alone at the cap (experiments/planets-values-alone)."""

import json
from pathlib import Path

from recipes.compare import model_configs
from recipes.presets import load_preset
from recipes.compare_runs import row_settings

ROOT = Path(__file__).resolve().parents[2]
RECIPES, PRESETS = ROOT / "recipes", ROOT / "experiments" / "presets"


def without_mixup(optim: dict) -> dict:
    """A published run's optim section less the mixup keys it carried switched off (weight 0):
    mixup left scinum for its probe's module (experiments/planets-mixup-probe/mixup.py), so a
    preset's config no longer has them."""
    assert optim.get("mixup_weight", 0) == 0
    return {k: v for k, v in optim.items() if not k.startswith("mixup_")}


def test_past_presets_say_how_every_row_departs_from_the_paper(tmp_path):
    parity = row_settings(model_configs("planets", load_preset(PRESETS / "planets.yaml", "parity"), tmp_path / "p", tmp_path, seeds=1))
    assert parity["xval(structure, linear)"]["trunk"] == "64 × 2, 2 heads, linear value path"
    assert parity["xval(structure)"]["trunk"] == "64 × 2, 2 heads"
    for name in ("parity", "parity-b64", "parity-b64-30min", "parity-b64-30min-lr1.4e-3", "compare-b64-30min"):
        p = load_preset(PRESETS / "planets.yaml", name)
        assert set(p["table"]["departures"]) == {"all", *p["models"]}, name


def test_the_batch_64_preset_trains_what_the_published_e1_runs_trained(tmp_path):
    """parity-b64 is the config of experiments/planets-batch64-gpu (e₁ R² 0.93/0.91/0.90),
    key for key; only where it runs, its budget's form and its bookkeeping differ."""
    preset = load_preset(PRESETS / "planets.yaml", "parity-b64")
    ours = model_configs("planets", preset, tmp_path / "data", tmp_path, seeds=2)[("xval", 1)]
    published = json.loads((ROOT / "experiments/planets-batch64-gpu/840k-seed1-config.json").read_text())

    def flat(d, prefix=""):
        out = {}
        for k, v in d.items():
            out.update(flat(v, f"{prefix}{k}.") if isinstance(v, dict) else {f"{prefix}{k}": v})
        return out

    a, b = flat(ours), flat(published)
    differ = {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)}
    bookkeeping = {"data.path", "out_dir", "trainer.accelerator", "trainer.progress_bar", "trainer.max_steps"}
    checks = {"trainer.val_check_interval", "trainer.checkpoint_every_n_steps"}  # how often it validates and saves
    # options added since, at the defaults that keep them off (the curvature penalty: weight 0)
    added = {
        "optim.curvature_weight",
        "optim.curvature_step",
        "optim.curvature_share",
        "optim.curvature_reach",
        "optim.weight_average",
        "data.pad_to",  # batch lengths as the records make them: 1
        # the GPU options, off by default
        "data.pin_memory",
        "optim.fused",
        "trainer.compile",
        "model.structure_tokens",  # every token read, as the trunk always did: true
        "line",  # no field on a least-squares line: []
        "trainer.early_stopping_min_steps",  # early stopping's floor: 0 (the runs had no early stopping)
    }
    assert not added & b.keys() and a["optim.curvature_weight"] == 0 and a["data.pad_to"] == 1 and a["line"] == []
    assert a["trainer.early_stopping_min_steps"] == 0
    assert a["model.structure_tokens"] is True
    assert differ == {"budget.samples", "budget.seconds", *bookkeeping, *checks, *added}
    assert a["trainer.accelerator"] == "auto" and a["trainer.precision"] == "32-true"
    # the published runs stopped on time at 13 088-13 214 steps of 64; the preset asks 13 200
    runs = ROOT / "experiments/planets-batch64-gpu"
    steps = [json.loads((runs / f"840k-seed{s}-training.json").read_text())["steps"] for s in (1, 2, 3)]
    assert min(steps) <= a["budget.samples"] // a["data.batch_size"] == 13200 <= max(steps)


def test_the_weight_average_preset_trains_what_its_published_runs_trained(tmp_path):
    """parity-b64-30min-avg is the config of experiments/planets-weight-average's runs, key for key,
    but for the decay: those runs kept their averages in a callback (the same formula) and wrote
    the last weights as model.ckpt, so their config says weight_average 0."""
    preset = load_preset(PRESETS / "planets.yaml", "parity-b64-30min-avg")
    runs = ROOT / "experiments/planets-weight-average"
    for seed in (0, 1, 2):
        ours = model_configs("planets", preset, tmp_path / "data", tmp_path, seeds=3)[("xval+gmm(mse1,avg0.99)", seed)]
        published = json.loads((runs / f"seed{seed}" / "config.json").read_text())
        a, b = ours["optim"], without_mixup(published["optim"])
        assert a.pop("fused") is False  # added since (the GPU's fused AdamW), off
        assert a.pop("weight_average") == 0.99 and b.pop("weight_average") == 0
        assert a == b and ours["seed"] == published["seed"] == seed
        assert ours["model"].pop("structure_tokens") is True  # added since: every token read, as then
        for section in ("model", "encoding", "head", "budget"):
            assert ours[section] == published[section], section
        keep = {"path", "pad_to", "pin_memory", "prefetch_factor"}  # added since, off: pad_to 1, no pinning
        assert ours["data"]["pad_to"] == 1
        assert {k: v for k, v in ours["data"].items() if k not in keep} == {k: v for k, v in published["data"].items() if k not in keep}


def test_the_four_heads_preset_trains_what_its_published_runs_trained(tmp_path):
    """parity-b64-30min-4heads is the config of experiments/planets-4heads's runs (seeds 0-4),
    key for key but for where the data lives; they validated every 400 steps, on the CPU."""
    preset = load_preset(PRESETS / "planets.yaml", "parity-b64-30min-4heads")
    runs = ROOT / "experiments/planets-4heads"
    for seed in (0, 1, 2, 3, 4):
        ours = model_configs("planets", preset, tmp_path / "data", tmp_path, seeds=5)[("xval+gmm(mse1,avg0.99,4heads)", seed)]
        published = json.loads((runs / f"seed{seed}" / "config.json").read_text())
        assert ours["seed"] == published["seed"] == seed
        published["optim"] = without_mixup(published["optim"])
        assert ours["optim"].pop("fused") is False  # added since (the GPU's fused AdamW), off
        assert ours["model"].pop("structure_tokens") is True  # added since: every token read, as then
        for section in ("model", "encoding", "head", "budget", "optim"):
            assert ours[section] == published[section], section
        assert ours["model"]["n_heads"] == 4 and ours["optim"]["weight_average"] == 0.99
        keep = {"path", "pad_to", "pin_memory", "prefetch_factor"}  # added since, off: pad_to 1, no pinning
        assert ours["data"]["pad_to"] == 1
        assert {k: v for k, v in ours["data"].items() if k not in keep} == {k: v for k, v in published["data"].items() if k not in keep}
        assert published["trainer"]["val_check_interval"] == 400 and published["trainer"]["accelerator"] == "cpu"


def test_the_values_alone_preset_is_the_published_values_alone_model_at_the_cap(tmp_path):
    """``best-values-alone``, the `best` preset from planets-values-alone's cap step until
    planets-line-cap step 2, resolves to experiments/planets-values-alone's ``cap-values`` preset
    for every seed: the model of its five published seeds. The four-heads model it replaced reads
    every token at 460 800 samples, as pinned above."""
    best = load_preset(PRESETS / "planets.yaml", "best-values-alone")
    cap = load_preset(ROOT / "experiments" / "planets-values-alone" / "presets.yaml", "cap-values")
    heads4 = load_preset(PRESETS / "planets.yaml", "parity-b64-30min-4heads")
    ours = model_configs("planets", best, tmp_path / "data", tmp_path, seeds=5)
    theirs = model_configs("planets", cap, tmp_path / "data", tmp_path, seeds=5)
    before = model_configs("planets", heads4, tmp_path / "data", tmp_path, seeds=5)
    for seed in range(5):
        a, b = ours[("xval+gmm", seed)], theirs[("xval+gmm, values alone", seed)]
        assert a.pop("out_dir").endswith("/xval+gmm/seed%d" % seed) and b.pop("out_dir")
        assert a == b
        old = before[("xval+gmm(mse1,avg0.99,4heads)", seed)]
        old.pop("out_dir")
        assert a["model"].pop("structure_tokens") is False and old["model"].pop("structure_tokens") is True
        assert a["budget"] == {"samples": 737280} and old["budget"] == {"samples": 460800}
        assert {k: v for k, v in a.items() if k != "budget"} == {k: v for k, v in old.items() if k != "budget"}


def test_the_best_preset_is_planets_line_cap_step_2(tmp_path):
    """recipes/planets.yaml ``best`` resolves to experiments/planets-line-cap's ``cap-1075k`` preset
    for every seed (the model adopted by its step 2, whose five development seeds and test build the
    README's headline table quotes): ``best-values-alone`` with a line under Δt and a₁ at 1 075 200
    samples; only the model's label, and so its output folder, differs."""
    best = model_configs("planets", load_preset(RECIPES / "planets.yaml", "best"), tmp_path / "data", tmp_path, seeds=5)
    step2 = load_preset(ROOT / "experiments" / "planets-line-cap" / "presets.yaml", "cap-1075k")
    theirs = model_configs("planets", step2, tmp_path / "data", tmp_path, seeds=5)
    before = model_configs("planets", load_preset(PRESETS / "planets.yaml", "best-values-alone"), tmp_path / "data", tmp_path, seeds=5)
    for seed in range(5):
        a, b, old = best[("xval+gmm", seed)], theirs[("xval+gmm, values alone, dt and a1 on a line", seed)], before[("xval+gmm", seed)]
        assert a.pop("out_dir").endswith("/xval+gmm/seed%d" % seed) and b.pop("out_dir") and old.pop("out_dir")
        assert a == b
        assert a["line"] == ["description.stepsize", "description.planet0.a"] and a["budget"] == {"samples": 1075200}
        assert {**a, "line": old["line"], "budget": old["budget"]} == old and old["budget"] == {"samples": 737280}
