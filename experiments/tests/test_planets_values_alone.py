"""experiments/planets-values-alone: the declared choice recomputed from the validation readings,
and every figure its README quotes recomputed from the files published beside it."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "experiments" / "planets-values-alone"
BEFORE = ROOT / "experiments" / "planets-target-alone" / "half"
#: (README label, field, split, metric) of the test table's columns
CELLS = (
    ("e₁ R²", "description.planet0.e", "test", "r2"),
    ("a₁", "description.planet0.a", "test", "mse"),
    ("Δt", "description.stepsize", "test", "mse"),
    ("Δt OoD", "description.stepsize", "ood_stepsize", "mse"),
    ("a₁ OoD", "description.planet0.a", "ood_a1", "mse"),
)


def _readme() -> str:
    return re.sub(r"\s+", " ", (HERE / "README.md").read_text(encoding="utf-8"))


def _verdict_module():
    """This folder's ``verdict.py`` (other experiments have scripts of the same name)."""
    spec = importlib.util.spec_from_file_location("planets_values_alone_verdict", HERE / "verdict.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _verdict():
    return _verdict_module().verdict()


def test_the_same_samples_are_not_adopted_by_the_declared_rule():
    table, adopted = _verdict()
    assert not adopted
    assert [f"{r:.3g}" for r in table.ratio] == ["1.13", "0.745", "1.23"]  # e₁, a₁, Δt
    text = _readme()
    assert "| `xval+gmm, values alone` | 0.135 (**1.13×**) | 0.00184 (0.745×) | 7.8e-05 (**1.23×**) |" in text
    assert f"| {table.preset.iloc[0]:.3f} | {table.preset.iloc[1]:.3g} | {table.preset.iloc[2]:.3g} |" in text


def test_only_the_trunk_differs_from_the_preset():
    presets = yaml.safe_load((HERE / "presets.yaml").read_text())
    models = presets["half-values"]["models"]
    assert models["xval+gmm, values alone"] == {**models["xval+gmm"], "model": {"structure_tokens": False}}
    best = _best_reading_every_token()
    assert models["xval+gmm"] == best["models"]["xval+gmm"] and presets["half-values"]["train"] == best["train"]


def _best_reading_every_token() -> dict:
    """The ``best`` preset as it was before this experiment's cap step: its trunk reading every
    token. ``best-values-alone`` (experiments/presets/planets.yaml) is the preset this experiment
    made, pinned when planets-line-cap step 2 replaced it; less ``structure_tokens`` it is the
    four-heads model (experiments/tests/test_history_presets.py)."""
    best = yaml.safe_load((ROOT / "experiments" / "presets" / "planets.yaml").read_text())["best-values-alone"]
    assert best["train"].pop("model") == {"structure_tokens": False}
    return best


def _training(path: Path, model: str) -> pd.Series:
    f = pd.read_csv(path)
    return f[f.model == model].set_index("seed").train_seconds.sort_index()


def test_the_training_times_and_the_next_steps_budget():
    new, old = _training(HERE / "half" / "training.csv", "xval+gmm, values alone"), _training(BEFORE / "training.csv", "xval+gmm")
    assert list(new.index) == list(old.index) == [0, 1, 2, 3, 4]
    text = _readme()
    spans = [f"{t.min():.0f}–{t.max():.0f} s" for t in (new, old)]
    assert f"{spans[0]} a run (mean {new.mean():.0f} s) against {spans[1]} (mean {old.mean():.0f} s)" in text
    assert f"{new.mean() / old.mean():.2f}× the time" in text
    samples = int(230400 * old.mean() / new.mean() // 46080 * 46080)
    assert samples == 368640 and yaml.safe_load((HERE / "presets.yaml").read_text())["same-time-values"]["budget"] == {"samples": samples}
    assert f"230 400 × {old.mean():.1f} s ÷ {new.mean():.1f} s" in text
    assert json.loads((HERE / "half" / "meta.json").read_text())["dirty"] is False


def test_the_test_figures_reported():
    text = _readme()
    for path, model in ((BEFORE / "seeds.csv", "xval+gmm"), (HERE / "half" / "seeds.csv", "xval+gmm, values alone")):
        f = pd.read_csv(path)
        f = f[f.model == model]
        cells = []
        for _, field, split, metric in CELLS:
            v = f[(f.field == field) & (f.split == split)].set_index("seed")[metric].sort_index()
            assert list(v.index) == [0, 1, 2, 3, 4]
            if metric == "r2":
                seeds = ", ".join(f"{x:.3f}".replace("-", "−") for x in v)
                cells.append(f"{v.mean():.3f} ({seeds})")
            else:
                cells.append(f"{v.mean():.3g}")
        assert " | ".join(cells) + " |" in text, model


def test_the_benchmark_figures_quoted():
    runs = re.findall(
        r"every token \(today's default\): ([\d.]+) ms .* (\d+) samples/s\n  values alone: ([\d.]+) ms .* (\d+) samples/s\n.* = ([\d.]+)x",
        (HERE / "benchmark.txt").read_text(encoding="utf-8"),
    )
    assert len(runs) == 2
    for every_ms, every, alone_ms, alone, ratio in runs:
        assert f"{int(alone) / int(every):.2f}" == ratio
    (every_ms, every, alone_ms, alone, ratio), second = runs
    text = _readme()
    assert f"measured {every_ms} ms a step of 64 records reading every token against {alone_ms} ms" in text
    assert f"**{every} against {alone} samples/s, {ratio}×**" in text
    assert f"(a second run, on a slower moment of the machine: {second[1]} against {second[3]}, {second[4]}×)" in text


def test_the_same_time_holds_every_quality_clause_and_misses_the_time_clause():
    verdict = _verdict_module()
    today, values = verdict.means(verdict.REFERENCE, "xval+gmm"), verdict.means(HERE / "time" / "val.csv", "xval+gmm, values alone")
    ratio = values / today
    assert (ratio <= verdict.ALLOWED).all() and [f"{r:.3g}" for r in ratio] == ["0.155", "0.767", "0.235"]
    new, old = _training(HERE / "time" / "training.csv", "xval+gmm, values alone"), _training(BEFORE / "training.csv", "xval+gmm")
    assert new.mean() > old.mean()  # the time clause, as declared, fails
    text = _readme()
    cells = " | ".join(f"{v:.3g} ({r:.3g}×)" for v, r in zip(values, ratio))
    assert f"| `xval+gmm, values alone` at 368 640 samples | {cells} | **{new.mean():.1f}** |" in text
    assert f"| 0.120 | 0.00246 | 6.35e-05 | {old.mean():.1f} |" in text
    assert f"took {new.min():.1f}–{new.max():.1f} s, a mean of {new.mean():.1f} s against the {old.mean():.1f} s allowed" in text
    r2 = pd.read_csv(HERE / "time" / "val.csv")
    r2 = r2[(r2.metric == "r2") & (r2.field == "description.planet0.e") & r2.seed.notna()].value
    assert f"the validation R² of e₁ is {r2.min():.3f}–{r2.max():.3f} on every seed" in text
    steps = {d: pd.read_csv(HERE / d / "training.csv").pipe(lambda f: f.train_seconds / f.steps) for d in ("half", "time")}
    assert f"took {steps['half'].min():.3f}–{steps['half'].max():.3f} s a step in step 1's five runs" in text
    assert json.loads((HERE / "time" / "meta.json").read_text())["dirty"] is False


def test_the_same_time_test_figures_reported():
    f = pd.read_csv(HERE / "time" / "seeds.csv")
    cells = []
    for _, field, split, metric in CELLS:
        v = f[(f.field == field) & (f.split == split)].set_index("seed")[metric].sort_index()
        assert list(v.index) == [0, 1, 2, 3, 4]
        cells.append(f"{v.mean():.3f} ({', '.join(f'{x:.3f}' for x in v)})" if metric == "r2" else f"{v.mean():.3g}")
    assert "| `xval+gmm, values alone` | 368 640 | " + " | ".join(cells) + " |" in _readme()


def test_side_by_side_the_time_clause_holds_and_both_models_trained_as_before():
    t = pd.read_csv(HERE / "side" / "training.csv")
    ref, new = (t[t.model == m].set_index("seed").train_seconds.sort_index() for m in ("xval+gmm", "xval+gmm, values alone"))
    assert list(ref.index) == list(new.index) == [0, 1] and new.mean() <= ref.mean()
    text = _readme()
    for seed in (0, 1):
        assert f"| {seed} | {ref[seed]:.1f} s | {new[seed]:.1f} s | {new[seed] / ref[seed]:.3f} |" in text
    assert f"| mean | {ref.mean():.1f} s | {new.mean():.1f} s | **{new.mean() / ref.mean():.3f}** |" in text
    side = pd.read_csv(HERE / "side" / "val.csv")
    keys = ["model", "seed", "field", "metric"]
    for before in (BEFORE / "val.csv", HERE / "time" / "val.csv"):
        m = side[side.seed.notna()].merge(pd.read_csv(before).dropna(subset=["seed"]), on=keys, suffixes=("", "_before"))
        assert len(m) == 12 and (m.value == m.value_before).all(), before
    slowest = _training(HERE / "half" / "training.csv", "xval+gmm, values alone").max()
    cap = pd.Series(
        [
            json.loads((ROOT / "experiments" / "planets-4heads" / f"seed{s}" / "training.json").read_text())["train_seconds"]
            for s in range(5)
        ]
    )
    samples = int(230400 * cap.mean() / slowest // 46080 * 46080)
    mean = f"{cap.mean():,.1f}".replace(",", " ")
    scaled = f"{slowest:.1f} s for 230 400 samples, scaled to the cap runs' mean of {mean} s"
    assert samples == 737280 and scaled in text


def test_the_fill_figures_quoted():
    text = (HERE / "fill.txt").read_text(encoding="utf-8")
    a, b = text.split("# B:")
    rows = []
    for part in (b, a):
        rates = sorted(int(r) for r in re.findall(r"^fill_many \(batch 256\)\s+(\d+)", part, re.M))
        ops = sorted(float(x) for x in re.findall(r"take ([\d.]+) CPU ms a record", part))
        assert len(rates) == len(ops) == 3
        rows.append(f"| {rates[1]:,} ({rates[0]:,}–{rates[2]:,}) | {ops[0]:.3f}–{ops[2]:.3f} |")
        assert max(rates) < 4000
    readme = _readme()
    assert "| every token (the quick preset's model) " + rows[0] in readme and "| the values alone " + rows[1] in readme


def test_the_notebook_rows_quote_the_same_figures():
    index = (ROOT / "experiments" / "README.md").read_text(encoding="utf-8")
    row = next(line for line in index.splitlines() if line.startswith("| [planets-values-alone]"))
    table, _ = _verdict()
    half = ", ".join(f"{k} {r:.3g}×" for k, r in table.ratio.items())
    verdict = _verdict_module()
    time = verdict.means(HERE / "time" / "val.csv", "xval+gmm, values alone") / verdict.means(verdict.REFERENCE, "xval+gmm")
    same_time = ", ".join(f"{verdict.FIELDS[k]} {r:.3g}×" for k, r in time.items())
    assert f"validation {half}" in row and f"validation {same_time}" in row
    assert "731.5 s against 725.6 s" in row and "0.926× the preset's time" in row and "737 280 samples" in row
    e1, ood = _cap_seeds("description.planet0.e", "test", "r2"), _cap_seeds("description.stepsize", "ood_stepsize", "mse")
    a1, dt = _cap_seeds("description.planet0.a", "test", "mse"), _cap_seeds("description.stepsize", "test", "mse")
    mean = lambda v: sum(v) / len(v)  # noqa: E731
    assert (
        f"e₁ R² {mean(e1):.3f}, ≥ {min(e1):.3f} on every seed; a₁ {mean(a1):.2g}; Δt {mean(dt):.2g}; "
        f"Δt OoD {mean(ood):.2g}; 20–23 one-core minutes" in row
    )
    minutes = pd.read_csv(HERE / "cap" / "training.csv").train_seconds / 60
    assert (round(minutes.min()), round(minutes.max())) == (20, 23)
    tables = next(line for line in index.splitlines() if line.startswith("| [tables-values-alone]"))
    assert "ccard 1.27× → 2.10×" in tables and "13.1 → 11.1 CPU s (0.85×" in tables and "0.859 → 0.893" in tables


def test_the_cap_preset_is_the_best_preset_reading_the_values_alone():
    cap = yaml.safe_load((HERE / "presets.yaml").read_text())["cap-values"]
    best = _best_reading_every_token()
    assert cap["budget"] == best["budget"] == {"samples": 737280} and cap["train"] == best["train"] and cap["build"] == best["build"]
    assert cap["models"] == {"xval+gmm, values alone": {**best["models"]["xval+gmm"], "model": {"structure_tokens": False}}}


def _cap_seeds(field: str, split: str, metric: str) -> list[float]:
    f = pd.read_csv(HERE / "cap" / "seeds.csv")
    f = f[(f.model == "xval+gmm, values alone") & (f.field == field) & (f.split == split)].sort_values("seed")
    assert f.seed.tolist() == [0, 1, 2, 3, 4]
    return f[metric].tolist()


def _cap_regressor(name: str, field: str, split: str, metric: str) -> float:
    t = pd.read_csv(HERE / "cap" / "table.csv")
    (value,) = t[(t.model == name) & (t.field == field) & (t.split == split) & (t.metric == metric)]["mean"]
    return float(value)


def test_the_cap_runs_are_the_cap_preset_at_a_clean_commit():
    meta = json.loads((HERE / "cap" / "meta.json").read_text())
    assert meta["preset_name"] == "cap-values" and meta["seeds"] == [0, 1, 2, 3, 4] and not meta["dirty"]
    assert meta["commit"].startswith("30b1873") and meta["budget"] == {"samples": 737280}
    t = pd.read_csv(HERE / "cap" / "training.csv")
    assert set(t.samples) == {737280} and t.seed.tolist() == [0, 1, 2, 3, 4]
    lo, hi = (f"{round(x):,}".replace(",", " ") for x in (t.train_seconds.min(), t.train_seconds.max()))
    assert (lo, hi) == ("1 185", "1 373") and f"| 737 280 | {lo}–{hi} |" in _readme()
    assert f"took {t.train_seconds.min() / 60:.1f}–{t.train_seconds.max() / 60:.1f} one-core minutes" in _readme()


def test_the_cap_figures_quoted():
    text = _readme()
    sig = lambda x: f"{x:.2g}"  # noqa: E731
    e1 = _cap_seeds("description.planet0.e", "test", "r2")
    a1 = _cap_seeds("description.planet0.a", "test", "mse")
    dt = _cap_seeds("description.stepsize", "test", "mse")
    ood = _cap_seeds("description.stepsize", "ood_stepsize", "mse")
    a1_ood = _cap_seeds("description.planet0.a", "ood_a1", "mse")
    mean = lambda v: sum(v) / len(v)  # noqa: E731
    row = (
        f"| **{mean(e1):.3f}** ({', '.join(f'{v:.3f}' for v in e1)}) | {sig(mean(a1))} ({', '.join(sig(v) for v in a1)}) "
        f"| **{sig(mean(dt))}** ({', '.join(sig(v) for v in dt)}) "
        f"| {sig(mean(ood))} ({', '.join(sig(v) for v in ood)}) | {sig(mean(a1_ood))} |"
    )
    assert row in text
    ridge = {
        k: _cap_regressor("ridge", *k)
        for k in [
            ("description.planet0.e", "test", "r2"),
            ("description.planet0.a", "test", "mse"),
            ("description.stepsize", "test", "mse"),
            ("description.stepsize", "ood_stepsize", "mse"),
            ("description.planet0.a", "ood_a1", "mse"),
        ]
    }
    trees = {k: _cap_regressor("boosted trees", *k) for k in ridge}
    r, t = list(ridge.values()), list(trees.values())
    assert f"| ridge | | | {r[0]:.3f} | {sig(r[1])} | {sig(r[2])} | **{sig(r[3])}** | {sig(r[4])} |" in text
    assert f"| boosted trees | | | {t[0]:.3f} | **{sig(t[1])}** | {sig(t[2])} | {sig(t[3])} | {sig(t[4])} |" in text
    # the bullets
    assert min(e1) >= 0.9 and mean(e1) >= 0.95 and f"R² {min(e1):.3f} on the worst seed" in text
    assert max(dt) < r[2] and f"at {sig(dt[0])} against {sig(r[2])}" in text and max(dt) == dt[0]
    assert f"still {mean(a1) / t[1]:.1f}×" in text and sorted(v for v in a1 if v > r[1]) == [a1[3], a1[1]]
    assert f"Two seeds, {a1[1]:.3g} and {a1[3]:.3g}, lie just above ridge's {r[1]:.3g}" in text
    assert f"It is still {mean(ood) / r[3]:.1f}×" in text and min(ood) > 0.0021 and f"seed 0, {ood[0]:.4f}" in text
    v = pd.read_csv(HERE / "cap" / "val.csv")
    v = v[(v.metric == "mse") & v.seed.notna()].groupby(["model", "field"]).value.mean()
    ours = [v[("xval+gmm, values alone", f)] for f in ("description.planet0.e", "description.planet0.a", "description.stepsize")]
    assert f"e₁ {ours[0]:.2g}, a₁ {ours[1]:.4f} and Δt {ours[2]:.2g}" in text


def _curve_module():
    import sys

    spec = importlib.util.spec_from_file_location("planets_values_alone_curve", HERE / "curve.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass resolves its module by name
    spec.loader.exec_module(module)
    return module


def test_the_curve_quoted_is_the_published_runs_curve():
    curve = _curve_module()
    assert curve.markdown() in (HERE / "README.md").read_text(encoding="utf-8")
    points = {(p.model, p.samples): p for p in curve.before() + curve.after() + curve.since() + curve.schedule()}
    assert len(points) == 15 and (HERE / "curve.png").stat().st_size > 10_000
    e1, a1, dt = ("description.planet0.e", "test", "r2"), ("description.planet0.a", "test", "mse"), ("description.stepsize", "test", "mse")
    cap = points[("every token", 460800)]
    met = lambda p: p.mean(*e1) >= 0.95 and p.mean(*a1) <= 0.00091 and p.mean(*dt) <= 2.7e-05  # noqa: E731
    assert met(points[("values alone", 737280)]) and not met(points[("values alone", 368640)]) and not met(points[("values alone", 230400)])
    assert not met(points[("values alone, hidden rows", 506880)]) and points[("values alone, hidden rows", 506880)].mean(*e1) >= 0.95
    assert met(points[("values alone, hidden rows", 614400)])
    assert points[("values alone", 368640)].mean(*dt) <= 2.7e-05 and round(cap.mean(*a1), 5) == 0.00091
    ood = ("description.stepsize", "ood_stepsize", "mse")
    text = _readme()
    assert all(0.005 <= round(p.mean(*ood), 4) <= 0.0075 for k, p in points.items() if k[1] < 1198080)
    anneal, asked, quarter, more, line = (points[(label, 506880)] for label in curve.ORDER[3:])
    assert not met(anneal) and anneal.mean(*e1) >= 0.95 and anneal.mean(*dt) <= 2.7e-05 and anneal.mean(*a1) > 0.00091
    assert not met(asked) and asked.mean(*e1) < 0.95 and asked.mean(*dt) <= 2.7e-05 and asked.mean(*a1) <= 0.00091
    assert f"meets Δt ({anneal.mean(*dt):.1e}) and e₁ ({anneal.mean(*e1):.3f}) but not a₁ ({anneal.mean(*a1):.2g})" in text
    assert f"meets a₁ ({asked.mean(*a1):.2g}) and Δt ({asked.mean(*dt):.1e}) but not e₁ (R² {asked.mean(*e1):.3f})" in text
    assert met(quarter) and not met(more) and more.mean(*e1) >= 0.95 and more.mean(*a1) <= 0.00091 and more.mean(*dt) > 2.7e-05
    q = f"(e₁ R² {quarter.mean(*e1):.3f}, a₁ {quarter.mean(*a1):.2g}, Δt {quarter.mean(*dt):.1e}), "
    q += f"at 0.35 all but Δt ({more.mean(*dt):.2g}, 1 % over)"
    assert q in text and round(more.mean(*dt) / 2.7e-05 - 1, 2) == 0.01
    assert not met(line) and line.mean(*e1) < 0.95 and line.mean(*a1) <= 0.00091 and line.mean(*dt) <= 2.7e-05
    assert f"a₁ ({line.mean(*a1):.2g}) and Δt ({line.mean(*dt):.1e}) are met, e₁ is not (R² {line.mean(*e1):.3f})" in text
    o = [f"{p.mean(*ood):.2g}" for p in (anneal, asked, quarter, more, line)]
    assert f"{o[0]}, {o[1]}, {o[2]}, {o[3]} and {o[4]} at steps 6 to 9" in text
    assert f"{points[('every token', 230400)].mean(*ood):.2g} → {points[('values alone', 230400)].mean(*ood):.2g} at 230 400" in text
    assert f"{cap.mean(*ood):.2g} → {points[('values alone', 737280)].mean(*ood):.2g} at the cap" in text


def test_the_parity_log_quotes_the_cap_figures():
    parity = re.sub(r"\s+", " ", (ROOT / "experiments" / "parity.md").read_text(encoding="utf-8"))
    e1, a1 = _cap_seeds("description.planet0.e", "test", "r2"), _cap_seeds("description.planet0.a", "test", "mse")
    dt, ood = _cap_seeds("description.stepsize", "test", "mse"), _cap_seeds("description.stepsize", "ood_stepsize", "mse")
    mean = lambda v: sum(v) / len(v)  # noqa: E731
    trees, ridge = (
        _cap_regressor("boosted trees", "description.planet0.a", "test", "mse"),
        _cap_regressor("ridge", "description.stepsize", "ood_stepsize", "mse"),
    )
    assert max(dt) < _cap_regressor("ridge", "description.stepsize", "test", "mse")
    assert (
        f"| values alone, 737 280 samples | {mean(e1):.3f} (worst seed {min(e1):.3f}) | {mean(a1):.2g} ({mean(a1) / trees:.1f}× the trees) "
        f"| {mean(dt):.2g} (every seed below ridge) | {mean(ood):.2g} ({mean(ood) / ridge:.1f}× ridge) |"
    ) in parity
    assert (
        f"a₁ in distribution ({mean(a1) / trees:.1f}× the trees') and Δt out of distribution ({mean(ood) / ridge:.1f}× ridge's)" in parity
    )
    assert (
        # the `best` preset until planets-line-cap step 2, quoted as the one before it
        f"[the values alone at the cap](#the-values-alone-at-the-cap-the-best-preset-since) (e₁ R² {mean(e1):.3f}, a₁ {mean(a1):.2g}, "
        f"Δt {mean(dt):.2g}, Δt `ood_stepsize` {mean(ood):.2g})" in parity
    )
