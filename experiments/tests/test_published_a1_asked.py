"""experiments/parity.md's *Four heads, a₁ asked as often as e₁*: the runs are the four-heads runs with
only the hidden fields changed, and the table and every figure of its bullets come from the
published files (experiments/planets-4heads/a1-asked)."""

import csv
import importlib.util
import json
from pathlib import Path
from statistics import mean

import pytest

from scinum.train.run_dir import _flat as flat  # the leaves by dotted key, as a resumed run compares configs

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "experiments" / "planets-4heads" / "a1-asked"
E1, A1, DT = "description.planet0.e", "description.planet0.a", "description.stepsize"


@pytest.fixture(scope="module")
def asked():
    spec = importlib.util.spec_from_file_location("a1_asked_table", HERE / "table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def parity() -> str:
    return " ".join((ROOT / "experiments" / "parity.md").read_text().split())


def test_the_runs_change_only_the_hidden_fields(asked):
    """Each run is its seed's four-heads run at the same budget with data.mask_fields [e₁, a₁]."""
    for (label, n), seeds in asked.SEEDS.items():
        for s in seeds if label == asked.LABELS[1] else ():
            ours = flat(json.loads((asked.folder(label, n, s) / "config.json").read_text()))
            base = flat(json.loads((asked.folder(asked.LABELS[0], 460800, s) / "config.json").read_text()))
            changed = {k for k in ours.keys() | base.keys() if ours.get(k) != base.get(k)} - {"out_dir"}
            if s >= 3:  # run later on the same build made again, after data.pad_to was added (1: no change)
                changed -= {"data.path", "data.pad_to"} if ours["data.pad_to"] == 1 else set()
            assert changed <= {"data.mask_fields", "budget.samples", "trainer.max_steps"} and "data.mask_fields" in changed
            assert base["data.mask_fields"] == [E1] and ours["data.mask_fields"] == [E1, A1]
            assert ours["seed"] == s and ours["budget.samples"] == n


def test_the_alone_runs_change_only_that_nothing_else_is_hidden(asked):
    """Each ``alone`` run is its seed's e₁-and-a₁ run at the cap with data.mask_fields_alone on; its
    data is the same build made again (data.path), and data.pad_to, added since, is 1."""
    for s in asked.SEEDS[(asked.LABELS[2], 460800)]:
        ours = flat(json.loads((asked.folder(asked.LABELS[2], 460800, s) / "config.json").read_text()))
        base = flat(json.loads((asked.folder(asked.LABELS[1], 460800, s) / "config.json").read_text()))
        changed = {k for k in ours.keys() | base.keys() if ours.get(k) != base.get(k)} - {"out_dir", "data.path"}
        assert changed == {"data.mask_fields_alone", "data.pad_to"} and ours["data.pad_to"] == 1
        assert ours["data.mask_fields_alone"] is True and base["data.mask_fields_alone"] is False and ours["seed"] == s


def test_the_section_is_its_runs(asked):
    assert " ".join(asked.markdown().split()) in parity()


def above(folder: Path, floor: float) -> str:
    """How many of the step sizes below the training range (0.2) a run predicts above ``floor``,
    and the range of those predictions."""
    with open(folder / "ood_stepsize_dt.csv") as f:
        below = [float(r["pred"]) for r in csv.DictReader(f) if float(r["true"]) < 0.2]
    high = [p for p in below if p > floor]
    return f"{len(high)} of the {len(below)} step sizes below 0.2 as {min(high):.2f}–{max(high):.2f}"


def test_the_bullets_are_its_runs(asked):
    fmt, cap, twice = asked.curve.fmt, 460800, 921600
    base, ours = asked.LABELS[:2]
    runs = {key: {s: asked.curve.table_scores(asked.folder(*key, s)) for s in seeds} for key, seeds in asked.SEEDS.items()}
    ridge, trees = (asked.curve.regressor(r) for r in ("ridge", "boosted trees"))
    a1, e1 = (A1, "test", "all", "mse"), (E1, "test", "all", "r2")
    dt, dto, past = (DT, "test", "all", "mse"), (DT, "ood_stepsize", "all", "mse"), (DT, "ood_stepsize", "extrap", "mse")

    def m(label, n, key):
        return mean(r[key] for r in runs[(label, n)].values())

    def each(label, n, key, metric="mse"):
        return ", ".join(fmt(r[key], metric) for r in runs[(label, n)].values())

    def ratio(label, n):
        return f"{m(label, n, a1) / trees[a1]:.1f}"

    text = parity()
    assert all(runs[(ours, n)][s][a1] < runs[(base, n)][s][a1] for (label, n), seeds in asked.SEEDS.items() for s in seeds if label == base)
    assert (
        f"at the cap {fmt(m(ours, cap, a1), 'mse')} over seeds 0–2 ({each(ours, cap, a1)}) against {fmt(m(base, cap, a1), 'mse')}" in text
    )
    assert f"— {ratio(ours, cap)}× the trees' {fmt(trees[a1], 'mse')} against {ratio(base, cap)}×; at twice the cap" in text
    assert trees[a1] < m(ours, twice, a1) < m(ours, cap, a1)
    twice_a1 = f"{fmt(m(ours, twice, a1), 'mse')} over seeds 0–4 ({each(ours, twice, a1)}), {ratio(ours, twice)}× the trees"
    assert f"at twice the cap {twice_a1}, against {fmt(m(base, twice, a1), 'mse')} for e₁ alone asked on seeds 0 and 1" in text
    below = [s for s, r in runs[(ours, twice)].items() if r[a1] < trees[a1]]
    assert below == [0, 1, 4] and "seeds 0, 1 and 4 below the trees, seeds 2 and 3 above" in text
    first3 = mean(runs[(ours, twice)][s][a1] for s in (0, 1, 2))
    assert f"Over the first three seeds it read {fmt(first3, 'mse')} ({first3 / trees[a1]:.1f}×)" in text and m(ours, twice, a1) > trees[a1]
    lowest = f"the lowest mean of any scinum model on these records ({ratio(ours, twice)}× the trees over five seeds, three of them below)"
    assert lowest in text
    assert f"**e₁ pays at the cap**: R² {fmt(m(ours, cap, e1), 'r2')} at the cap ({each(ours, cap, e1, 'r2')}) against" in text
    assert f"{fmt(m(base, cap, e1), 'r2')}, below the target's 0.9; at twice the cap {fmt(m(ours, twice, e1), 'r2')}" in text
    assert f"({each(ours, twice, e1, 'r2')}) against {fmt(m(base, twice, e1), 'r2')}, above it in the mean, seed 3 below" in text
    assert m(ours, cap, e1) < 0.9 <= m(ours, twice, e1) and [s for s, r in runs[(ours, twice)].items() if r[e1] < 0.9] == [3]
    zero = runs[(ours, cap)][0]
    assert f"At the cap it predicts {above(asked.folder(ours, cap, 0), 0.7)}, near the largest of training (0.8)" in text
    assert f"Δt OoD {fmt(zero[dto], 'mse')}, past the range {fmt(zero[past], 'mse')} against the four-heads seed's" in text
    assert f"{fmt(runs[(base, cap)][0][past], 'mse')}; at twice the cap {above(asked.folder(ours, twice, 0), 0.7)}." in text
    assert all(runs[(ours, twice)][s][dt] < ridge[dt] for s in runs[(ours, twice)])

    def dto_of(label, n, seeds):
        return " and ".join(fmt(runs[(label, n)][s][dto], "mse") for s in seeds)

    assert f"at the cap {dto_of(ours, cap, (1, 2))} (the four-heads seeds 1 and 2, {dto_of(base, cap, (1, 2))})" in text
    assert f"at twice it {dto_of(ours, twice, (1, 2))} (the four-heads seed 1, {dto_of(base, twice, (1,))})" in text
    assert f"seeds 3 and 4 {dto_of(ours, twice, (3, 4))} (seed 3 predicts {above(asked.folder(ours, twice, 3), 0.3)})" in text
    assert f"all far above ridge's {fmt(ridge[dto], 'mse')}" in text and min(r[dto] for r in runs[(ours, cap)].values()) > ridge[dto]
    seconds = [sorted(asked.curve.training_seconds(asked.folder(ours, n, s)) for s in runs[(ours, n)]) for n in (cap, twice)]
    cost = [f"{asked.curve.spaced(x[0])}–{asked.curve.spaced(x[-1])}" for x in seconds]
    assert f"**Cost**: the same steps, only which numbers are hidden differs: {cost[0]} s of training at the cap, {cost[1]} s" in text
    later = " and ".join(asked.curve.spaced(x) for x in sorted(asked.curve.training_seconds(asked.folder(ours, twice, s)) for s in (3, 4)))
    assert f"seeds 3 and 4 side by side at f76fcb2, {later} s)" in text
    assert "At twice the cap, {:.0f}–{:.0f} one-core minutes a run".format(seconds[1][0] / 60, seconds[1][-1] / 60) in text


def test_the_targets_and_readme_quote_the_runs(asked):
    """experiments/parity.md's targets (the paragraph under the summary, the a₁ row of every measurement)
    and README's *Where it stands* give the same figures as the section."""
    fmt, cap, twice = asked.curve.fmt, 460800, 921600
    ours = asked.LABELS[1]
    trees = asked.curve.regressor("boosted trees")[(A1, "test", "all", "mse")]

    def m(n, key):
        return mean(asked.curve.table_scores(asked.folder(ours, n, s))[key] for s in asked.SEEDS[(ours, n)])

    a1, e1 = (A1, "test", "all", "mse"), (E1, "test", "all", "r2")
    at_cap, at_twice = (f"{fmt(m(n, a1), 'mse')} at the cap" if n == cap else f"{fmt(m(n, a1), 'mse')} at twice it" for n in (cap, twice))
    r_cap, r_twice = (f"{m(n, a1) / trees:.1f}×" for n in (cap, twice))
    text, e1_cap = parity(), fmt(m(cap, e1), "r2")
    below = sum(asked.curve.table_scores(asked.folder(ours, twice, s))[a1] < trees for s in asked.SEEDS[(ours, twice)])
    assert below == 3 and asked.SEEDS[(ours, twice)] == (0, 1, 2, 3, 4)
    assert (
        f"seeds 0–2 at the cap, 0–4 at twice it): {at_cap} ({r_cap}, with e₁ R² falling to {e1_cap}), {at_twice} ({r_twice}; "
        "three seeds of five below the trees)" in text
    )
    assert (
        f"seeds 0–2 at the cap and 0–4 at twice it, {at_cap} ({r_cap}; e₁ falls to {e1_cap}) and {at_twice} ({r_twice}; "
        "seeds 0, 1 and 4 below the trees, seeds 2 and 3 above)" in text
    )
    readme = " ".join((ROOT / "experiments" / "overview.md").read_text().split())
    assert f"a₁ comes to {r_twice} the trees at twice the budget (three seeds of five below them), but inside it e₁ falls below" in readme
    assert f"the target (R² {e1_cap})" in readme and m(cap, e1) < 0.9


def alone_bullet(asked) -> list[str]:
    """The figures of the *Asked alone* bullet, as experiments/parity.md writes them, from the runs."""
    fmt, cap = asked.curve.fmt, 460800
    _, both, alone = asked.LABELS
    runs = {label: {s: asked.curve.table_scores(asked.folder(label, cap, s)) for s in asked.SEEDS[(label, cap)]} for label in (both, alone)}
    ridge, trees = (asked.curve.regressor(r) for r in ("ridge", "boosted trees"))
    a1, e1 = (A1, "test", "all", "mse"), (E1, "test", "all", "r2")
    dt, dto = (DT, "test", "all", "mse"), (DT, "ood_stepsize", "all", "mse")

    def m(label, key):
        return mean(r[key] for r in runs[label].values())

    def each(label, key, metric="mse"):
        return ", ".join(fmt(r[key], metric) for r in runs[label].values())

    seconds = [asked.curve.training_seconds(asked.folder(alone, cap, s)) for s in runs[alone]]
    return [
        f"e₁ R² {fmt(m(alone, e1), 'r2')} ({each(alone, e1, 'r2')}) against {fmt(m(both, e1), 'r2')}",
        f"a₁ {fmt(m(alone, a1), 'mse')} ({each(alone, a1)}) against {fmt(m(both, a1), 'mse')}, {m(alone, a1) / trees[a1]:.1f}× the trees",
        f"Δt in distribution {fmt(m(alone, dt), 'mse')} ({each(alone, dt)}) against {fmt(m(both, dt), 'mse')}",
        f"above ridge's {fmt(ridge[dt], 'mse')} on {'every seed' if min(r[dt] for r in runs[alone].values()) > ridge[dt] else 'some'}",
        f"Δt out of distribution {fmt(m(alone, dto), 'mse')} ({each(alone, dto)}) against {fmt(m(both, dto), 'mse')}",
        "{}–{} s of training each".format(*(asked.curve.spaced(f(seconds)) for f in (min, max))),
    ]


def test_the_alone_bullet_is_its_runs(asked):
    text = parity()
    for quote in alone_bullet(asked):
        assert quote in text, quote
