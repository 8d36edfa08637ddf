"""experiments/parity.md's *Why one seed learns e₁*: the table and every figure of its bullets from the
published attention CSVs (experiments/planets-attention) and the runs' published evaluations."""

import csv
import importlib.util
from collections import defaultdict
from pathlib import Path

import pytest
from scipy import stats

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "experiments" / "planets-attention"


def script(path: Path, name: str):
    """A results folder's table.py, imported under ``name`` (both folders' scripts are table.py)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def table():
    return script(HERE / "table.py", "attention_table")


def parity() -> str:
    return " ".join((ROOT / "experiments" / "parity.md").read_text().split())


def shares(model: str, seed: int) -> dict[tuple[int, int], dict[str, float]]:
    out: dict[tuple[int, int], dict[str, float]] = defaultdict(dict)
    with open(HERE / model / f"seed{seed}.csv") as f:
        for r in csv.DictReader(f):
            out[(int(r["layer"]), int(r["head"]))][r["path"]] = float(r["share"])
    return out


def test_the_table_is_the_csvs(table):
    assert " ".join(table.markdown().split()) in parity()
    rows = table.rows()
    assert len(rows) == 14
    for model, seed, *_ in rows:  # each CSV: every head's shares add up to 1
        for lh, s in shares(model, seed).items():
            assert sum(s.values()) == pytest.approx(1.0, abs=1e-6), (model, seed, lh)


def test_the_bullets_are_the_table(table):
    rows = table.rows()
    text = parity()
    learnt = [r for r in rows if r[2] >= 0.75]
    rest = [r for r in rows if r[2] < 0.75]
    assert len(learnt) == 7 and all(r[4] == 0 for r in learnt)
    lo, hi = min(r[3] for r in learnt), max(r[3] for r in learnt)
    assert f"The seven runs with R² ≥ 0.75 give those six numbers {lo:.2f}–{hi:.2f} of one head's attention" in text
    assert f"the seven runs at or below {max(r[2] for r in rest):.3f} give them at most {max(r[3] for r in rest):.2f}" in text
    rho, p = stats.spearmanr([r[2] for r in rows], [r[3] for r in rows])
    assert f"rank correlation of the share with R² is {rho:.2f} (Spearman, p = {p:.3f})" in text
    fone = [r[3] for r in rows if r[0] == "fone"]
    assert f"FoNE's heads give them at most {max(fone):.2f} in every seed" in text


def test_seed_3_reads_other_numbers():
    s = shares("xval+gmm", 3)
    planet = defaultdict(float)
    for (layer, head), paths in s.items():
        for path, v in paths.items():
            if path.startswith("data["):
                planet[(layer, head, int(path[5:-1].split("][")[1]))] += v
    text = parity()
    assert f"layer 1 head 0: {planet[(1, 0, 0)]:.2f} of its weight" in text
    assert round(planet[(1, 1, 1)], 2) == 1.0 and "(layer 1 head 1: all of its weight)" in text
    assert f"layer 0 head 0 puts {s[(0, 0)]['(not a number)']:.2f} on tokens that are not numbers): R² 0.318" in text


@pytest.fixture(scope="module")
def heads():
    return script(ROOT / "experiments" / "planets-4heads" / "table.py", "heads_table")


def test_the_four_heads_section_is_its_runs(heads):
    """experiments/parity.md's *Four heads*: the table and the bullets' figures from the five runs."""
    from statistics import mean, stdev

    text = parity()
    assert " ".join(heads.markdown().split()) in text
    runs = {s: heads.four_heads(s) for s in heads.SEEDS}
    two = {s: heads.two_heads(s) for s in heads.SEEDS}
    e = [runs[s][("description.planet0.e", "test", "r2")] for s in heads.SEEDS]
    e2 = [two[s][("description.planet0.e", "test", "r2")] for s in heads.SEEDS]
    m = mean(e)
    lo, hi = stats.t.interval(0.95, len(e) - 1, loc=m, scale=stdev(e) / len(e) ** 0.5)
    seeds = ", ".join(f"{x:.3f}" for x in e)
    assert m >= 0.9 and f"inside the cap**: {m:.3f} ({seeds}), against {mean(e2):.3f} for two heads" in text
    assert f"give {mean(e[:3]):.3f}. The 95 % t interval of the five-seed mean is [{lo:.3f}, {min(hi, 1):.2f}]" in text
    assert f"learns most of e₁ ({e2[3]:.3f} → {e[3]:.3f})" in text
    dt = [runs[s][("description.stepsize", "test", "mse")] for s in heads.SEEDS]
    a1 = [runs[s][("description.planet0.a", "test", "mse")] for s in heads.SEEDS]
    ridge = heads.regressor("ridge")
    assert max(dt) < ridge[("description.stepsize", "test", "mse")] and max(a1) < ridge[("description.planet0.a", "test", "mse")]
    trees = heads.regressor("boosted trees")[("description.planet0.a", "test", "mse")]
    assert f"{mean(a1) / trees:.1f}× the trees' {trees:.2g}" in text
    # the seed whose heads do not sit on the first positions, and the others' shares
    shares = {s: heads.largest_share(heads.HERE / f"seed{s}" / "attention.csv")[0] for s in heads.SEEDS}
    assert shares[1] < 0.2 and all(shares[s] > 0.8 for s in heads.SEEDS if s != 1)
    others = [shares[s] for s in heads.SEEDS if s != 1]
    assert f"every seed but seed 1 has a head that gives planet 0's first positions {min(others):.2f}–{max(others):.2f}" in text
    assert f"seed 1 learns e₁ (R² {e[1]:.3f}) with no head on the first positions (largest share {shares[1]:.2f})" in text


def test_the_four_heads_validation_curves_are_quoted(heads):
    steps = []
    for s in heads.SEEDS:
        with open(heads.HERE / f"seed{s}" / "val_e1.csv") as f:
            rows = list(csv.DictReader(f))
        assert 1.75 < float(rows[0]["mean_abs_err"]) < 1.95  # "1.8–1.9 before e₁ is learnt"
        first = next(int(r["step"]) for r in rows if float(r["mean_abs_err"]) < 1.0)
        steps.append(f"{first:,}".replace(",", " ") + f" (seed {s})")
    assert "falls below 1.0 at step " + ", ".join(steps) + ", of 7 258" in parity()


def test_the_readme_quotes_the_four_heads_runs(heads):
    from statistics import mean

    readme = " ".join((ROOT / "experiments" / "overview.md").read_text().split())
    runs = {s: heads.four_heads(s) for s in heads.SEEDS}
    e = [runs[s][("description.planet0.e", "test", "r2")] for s in heads.SEEDS]
    two = mean(heads.two_heads(s)[("description.planet0.e", "test", "r2")] for s in heads.SEEDS)
    assert f"R² {mean(e):.3f} over seeds 0–4 ({', '.join(f'{x:.3f}' for x in e)}; two heads {two:.3f})" in readme
    dt = mean(runs[s][("description.stepsize", "test", "mse")] for s in heads.SEEDS)
    a1 = mean(runs[s][("description.planet0.a", "test", "mse")] for s in heads.SEEDS)
    dto = mean(runs[s][("description.stepsize", "ood_stepsize", "mse")] for s in heads.SEEDS)
    trees = heads.regressor("boosted trees")[("description.planet0.a", "test", "mse")]
    assert f"Δt {dt:.2g} and a₁ {a1:.2g} in distribution".replace("e-0", "e-") in readme
    assert f"a₁ is still {a1 / trees:.1f}× the trees' error" in readme and f"(Δt {dto:.2g} against ridge's 0.0013)" in readme


def test_the_page_states_where_the_four_heads_model_stood(heads):
    """parity.md's row for four heads beside the values alone at the cap (the page's opening, the
    values alone's own figures: experiments/tests/test_planets_values_alone.py)."""
    from statistics import mean

    runs = {s: heads.four_heads(s) for s in heads.SEEDS}
    ridge, trees = heads.regressor("ridge"), heads.regressor("boosted trees")
    for key in (("description.planet0.e", "test", "r2"),):
        assert min(runs[s][key] for s in heads.SEEDS) > max(ridge[key], trees[key])
    key = ("description.stepsize", "test", "mse")
    assert max(runs[s][key] for s in heads.SEEDS) < min(ridge[key], trees[key])
    a1 = mean(runs[s][("description.planet0.a", "test", "mse")] for s in heads.SEEDS) / trees[("description.planet0.a", "test", "mse")]
    dto = (
        mean(runs[s][("description.stepsize", "ood_stepsize", "mse")] for s in heads.SEEDS)
        / ridge[("description.stepsize", "ood_stepsize", "mse")]
    )
    e1 = [runs[s][("description.planet0.e", "test", "r2")] for s in heads.SEEDS]
    a1_mse, dt = (mean(runs[s][(f, "test", "mse")] for s in heads.SEEDS) for f in ("description.planet0.a", "description.stepsize"))
    ood = mean(runs[s][("description.stepsize", "ood_stepsize", "mse")] for s in heads.SEEDS)
    row = (
        f"| four heads, 460 800 samples | {mean(e1):.3f} (worst seed {min(e1):.3f}) | {a1_mse:.2g} ({a1:.1f}×) "
        f"| {dt:.2g} (every seed below ridge) | {ood:.2g} ({dto:.1f}×) |"
    )
    assert row in parity()


@pytest.fixture(scope="module")
def curve():
    return script(ROOT / "experiments" / "planets-4heads" / "curve" / "curve.py", "heads_curve")


def test_the_curve_runs_are_the_preset_runs_with_more_samples(curve):
    """Each point past the cap is its seed's four-heads config with budget.samples (and so the step
    count) changed, and nothing else."""
    import json

    from scinum.train.run_dir import _flat as flat  # the leaves by dotted key, as a resumed run compares configs

    for n in curve.SAMPLES:
        for s in curve.SEEDS:
            ours = flat(json.loads((curve.run_dir(n, s) / "config.json").read_text()))
            base = flat(json.loads((curve.FOUR_HEADS / f"seed{s}" / "config.json").read_text()))
            changed = {k for k in ours.keys() | base.keys() if ours.get(k) != base.get(k)} - {"out_dir"}
            assert ours["budget.samples"] == n and changed <= {"budget.samples", "trainer.max_steps"}
            assert json.loads((curve.run_dir(n, s) / "training.json").read_text())["budget"]["samples"] == n


def test_the_curve_section_is_its_runs(curve):
    """experiments/parity.md's *Four heads past the cap*: the table from the runs' files."""
    assert " ".join(curve.markdown().split()) in parity()


def test_the_curve_bullets_are_its_runs(curve):
    """The bullets under the curve: each figure is the seeds' mean at each budget, in order."""
    from statistics import mean

    def seq(field: str, split: str, subset: str = "all", metric: str = "mse") -> str:
        cells = (curve.fmt(mean(curve.scores(n, s)[(field, split, subset, metric)] for s in curve.SEEDS), metric) for n in curve.SAMPLES)
        return " → ".join(cells).replace("e-0", "e-")

    text = parity()
    a, dt = "description.planet0.a", "description.stepsize"
    assert f"a₁ in distribution halves from the cap to twice it, then stops**: {seq(a, 'test')} over seeds 0 and 1" in text
    assert f"e₁ R² {seq('description.planet0.e', 'test', metric='r2')}, Δt {seq(dt, 'test')}" in text
    between = seq(dt, "ood_stepsize", "interp")
    assert f"does not move with budget**: {seq(dt, 'ood_stepsize')}; between the training step sizes {between}" in text
    assert f"past them {seq(dt, 'ood_stepsize', 'extrap')} (ridge" in text
    assert f"a₁ out of distribution improves with budget** (not a target): {seq(a, 'ood_a1')}, below" in text
    refs = [curve.regressor(r)[(a, "ood_a1", "all", "mse")] for r in ("ridge", "boosted trees")]
    assert all(mean(curve.scores(n, s)[(a, "ood_a1", "all", "mse")] for s in curve.SEEDS) < min(refs) for n in curve.SAMPLES[1:])
    twice = [curve.scores(921600, s)[(a, "test", "all", "mse")] for s in curve.SEEDS]
    trees = curve.regressor("boosted trees")[(a, "test", "all", "mse")]
    f1, f0, ft = (curve.fmt(x, "mse") for x in (twice[1], twice[0], trees))
    assert f"(at twice the cap seed 1 {f1}, {twice[1] / trees:.1f}× the trees' {ft}; seed 0 {f0}; at" in text
    thrice = [curve.fmt(curve.scores(1382400, s)[(a, "test", "all", "mse")], "mse") for s in (1, 0)]
    assert f"three times {thrice[0]} and {thrice[1]}). No budget measured meets the trees'" in text
    assert all(curve.scores(n, s)[(a, "test", "all", "mse")] > trees for n in curve.SAMPLES for s in curve.SEEDS)
    ridge = curve.regressor("ridge")[(a, "test", "all", "mse")]
    assert all(curve.scores(n, s)[(a, "test", "all", "mse")] < ridge for n in curve.SAMPLES for s in curve.SEEDS)
    seconds = [" and ".join(f"{curve.training_s(n, s):,.0f}".replace(",", " ") for s in curve.SEEDS) for n in curve.SAMPLES[1:]]
    assert f"**Cost**: {seconds[0]} s of training at twice the cap, {seconds[1]} s at three times" in text


def test_the_targets_summary_is_the_runs(heads, curve):
    """experiments/parity.md's targets *In short*: the four-heads cells over seeds 0-4 (mean [least,
    most]), the ratios to the better regressor, twice the cap's means, and mixup's 0.0025."""
    from statistics import mean

    import pandas as pd

    runs = {s: heads.four_heads(s) for s in heads.SEEDS}
    ridge, trees = heads.regressor("ridge"), heads.regressor("boosted trees")

    def cell(key, metric):
        v = [runs[s][key] for s in heads.SEEDS]
        return f"{heads.fmt(mean(v), metric)} [{heads.fmt(min(v), metric)}, {heads.fmt(max(v), metric)}]".replace("e-0", "e-")

    def twice(key, metric):  # two and three times the cap, the mean of seeds 0 and 1
        means = (curve.fmt(mean(curve.scores(n, s)[(*key, "all", metric)] for s in curve.SEEDS), metric) for n in curve.SAMPLES[1:])
        return ", ".join(means).replace("e-0", "e-")

    e1, a1 = ("description.planet0.e", "test"), ("description.planet0.a", "test")
    dt, dto = ("description.stepsize", "test"), ("description.stepsize", "ood_stepsize")
    text = parity()
    best = {k: min(ridge[(*k, "mse")], trees[(*k, "mse")]) for k in (a1, dt, dto)}
    assert f"| e₁ test R² ≥ 0.9 | {cell((*e1, 'r2'), 'r2')} | ridge {ridge[(*e1, 'r2')]:.3f} | yes, in the mean of five seeds" in text
    assert trees[(*a1, "mse")] == best[a1] and ridge[(*dt, "mse")] == best[dt] and ridge[(*dto, "mse")] == best[dto]
    ratio = mean(runs[s][(*a1, "mse")] for s in heads.SEEDS) / best[a1]
    past = [mean(curve.scores(n, s)[(*a1, "all", "mse")] for s in curve.SEEDS) for n in curve.SAMPLES[1:]]
    past_cells = ", ".join(f"{curve.fmt(x, 'mse')} ({x / best[a1]:.1f}×)" for x in past)
    assert curve.SEEDS == (0, 1)
    assert f"| {cell((*a1, 'mse'), 'mse')} | boosted trees 0.00026 | no: {ratio:.1f}× | {past_cells}, seeds 0 and 1 only |" in text
    assert max(runs[s][(*dt, "mse")] for s in heads.SEEDS) < best[dt]
    assert f"| {cell((*dt, 'mse'), 'mse')} | ridge 9.3e-5 | yes, on every seed | {twice(dt, 'mse')} |" in text
    ratio = mean(runs[s][(*dto, "mse")] for s in heads.SEEDS) / best[dto]
    probe = pd.read_csv(ROOT / "experiments" / "planets-mixup-probe" / "seeds.csv")
    mixup = probe[(probe.model == "mixup") & (probe.kind == "model") & (probe.field == dto[0]) & (probe.split == dto[1])].mse.mean()
    history = {k: " and ".join(twice(k, "mse").split(", ")) for k in (a1, dto)}  # the rows of every measurement
    assert f"at two and three times the cap, seeds 0 and 1, {history[a1]}, [the curve]" in text
    assert f"at two and three times the cap, seeds 0 and 1, {history[dto]} |" in text
    lowest = f"the lowest of any model inside the cap, mixup of records at a quarter of it, {mixup:.2g}"
    assert f"| {cell((*dto, 'mse'), 'mse')} | ridge 0.0013 | no: {ratio:.1f}×; {lowest} | {twice(dto, 'mse')} |" in text


def test_the_readme_says_where_it_stands(heads, curve):
    """README's *Where it stands*: the same figures as the targets' summary."""
    from statistics import mean

    readme = " ".join((ROOT / "experiments" / "overview.md").read_text().split())
    runs = {s: heads.four_heads(s) for s in heads.SEEDS}
    ridge, trees = heads.regressor("ridge"), heads.regressor("boosted trees")
    a1, dt = ("description.planet0.a", "test", "mse"), ("description.stepsize", "test", "mse")
    dto = ("description.stepsize", "ood_stepsize", "mse")

    def m(key):
        return mean(runs[s][key] for s in heads.SEEDS)

    e1 = m(("description.planet0.e", "test", "r2"))
    assert f"on e₁ (R² {e1:.3f} over five seeds; ridge {ridge[('description.planet0.e', 'test', 'r2')]:.3f})" in readme
    assert max(runs[s][dt] for s in heads.SEEDS) < ridge[dt] < trees[dt]
    assert f"({heads.fmt(m(dt), 'mse')} against ridge's {heads.fmt(ridge[dt], 'mse')}, on every seed)".replace("e-0", "e-") in readme
    past = [mean(curve.scores(n, s)[("description.planet0.a", "test", "all", "mse")] for s in curve.SEEDS) for n in curve.SAMPLES[1:]]
    ratios = " and ".join(f"{x / trees[a1]:.1f}×" for x in past)
    assert len(heads.SEEDS) == 5 and curve.SEEDS == (0, 1)  # a figure from fewer seeds says so
    assert (
        f"on a₁ ({m(a1) / trees[a1]:.1f}× their error over five seeds; {ratios} at two and three times the budget, seeds 0 and 1 only)"
        in readme
    )
    assert (
        f"ridge on Δt out of distribution ({m(dto) / ridge[dto]:.1f}×; no better at two or three times the budget, seeds 0 and 1)" in readme
    )
    for n in curve.SAMPLES[1:]:  # no better than the same seeds at the cap
        assert mean(curve.scores(n, s)[("description.stepsize", "ood_stepsize", "all", "mse")] for s in curve.SEEDS) >= mean(
            runs[s][dto] for s in curve.SEEDS
        )


def test_a1_by_range_is_its_predictions(curve):
    """The table and sentences of *Where a₁'s remaining error is*, from a1-by-range/predictions.csv;
    its models' overall MSEs are the evaluation's own table.csv."""
    by = curve.a1_by_range()
    assert sum(v["xval+gmm"][0] for v in by.values()) == 200
    with open(curve.HERE / "a1-by-range" / "table.csv") as f:
        table = {r["model"]: float(r["mse"]) for r in csv.DictReader(f)}
    with open(curve.HERE / "a1-by-range" / "predictions.csv") as f:
        rows = list(csv.DictReader(f))
    for model in curve.A1_MODELS:
        se = [(float(r["pred"]) - float(r["true"])) ** 2 for r in rows if r["model"] == model]
        assert len(se) == 200 and abs(sum(se) / 200 - table[model]) < 1e-12 * max(1.0, table[model])
    assert table["xval+gmm"] == curve.scores(921600, 1)[("description.planet0.a", "test", "all", "mse")]
    text = parity()
    assert " ".join(curve.a1_markdown().split()) in text
    one, low, wide = (by[name[0]] for name in curve.A1_RANGES)
    assert low["xval+gmm"][1] < low["boosted trees"][1] and wide["xval+gmm"][1] > wide["boosted trees"][1]
    share = wide["xval+gmm"][0] * wide["xval+gmm"][1] / (200 * table["xval+gmm"])
    assert f"where {share:.0%}".replace("%", " %") + " of its squared error is" in text
    ratio = one["xval+gmm"][1] / one["boosted trees"][1]
    assert f"the length unit, {one['xval+gmm'][0]} of 200 — the trees are all but exact and the model's error, " in text
    assert f"{curve.fmt(one['xval+gmm'][1], 'mse').replace('e-0', 'e-')}, is small but {ratio:.0f} times theirs" in text
