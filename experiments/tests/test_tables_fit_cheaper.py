"""experiments/tables-fit-cheaper: the figures its README quotes, recomputed from the files
published beside it, the verdict read off the rule it declared, and the product's default set
to the candidate the rule adopted."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from development_fits import check_development_fits

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "experiments" / "tables-fit-cheaper"
CANDIDATES = ("default", "half", "quarter", "one-member", "flat-under-line")
STANDARD = ["linear (OLS)", "boosted trees"]


def _module(name: str):
    """This folder's script ``name`` (other experiments have scripts of the same names)."""
    spec = importlib.util.spec_from_file_location(f"tables_fit_cheaper_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _text() -> str:
    return re.sub(r"\s+", " ", (HERE / "README.md").read_text(encoding="utf-8"))


def _ratios(folder: Path) -> pd.Series:
    f = pd.read_csv(folder / "scores.csv")
    m = f.groupby(["table", "split", "model"]).mse.mean().unstack("model")
    return m["scinum.Regressor"] / m[STANDARD].min(axis=1)


def test_every_candidate_fitted_the_declared_development_tables_and_seeds():
    check_development_fits(HERE / "dev", CANDIDATES)


def test_the_summary_the_verdict_and_the_readme_agree():
    compare = _module("compare")
    figs = {c: compare.figures(HERE / "dev" / c) for c in CANDIDATES}
    verdicts = {c: compare.clauses(figs[c], figs["default"]) for c in CANDIDATES[1:]}
    assert [c for c in CANDIDATES[1:] if all(verdicts[c].values())] == ["one-member"]
    assert not verdicts["half"]["1. above: geometric mean"] and not verdicts["half"]["2. inside: geometric mean"]
    assert not verdicts["flat-under-line"]["3. inside 90 %"]
    text = _text()
    cells = " | ".join(figs[c]["extrap: geometric mean"] for c in ("default", "half", "quarter", "one-member", "flat-under-line"))
    assert cells.replace("0.859", "**0.859**") in text
    medians = [f"{figs[c]['median_cpu_s']:.1f}" for c in CANDIDATES]
    assert medians == ["39.2", "22.3", "11.7", "12.5", "26.0"]
    for m in medians:
        assert m in text
    assert f"{figs['one-member']['test: geometric mean']}" == "1.084" and "**1.084**" in text
    assert (HERE / "dev" / "summary.md").read_text() == compare.render(HERE / "dev")


def test_the_per_table_moves_quoted():
    default, one = _ratios(HERE / "dev" / "default"), _ratios(HERE / "dev" / "one-member")
    text = _text()
    for table, split, before, after in (
        ("ccard", "extrap", "13.07", "10.40"),
        ("danish_data", "extrap", "1.17", "0.98"),
        ("longley", "extrap", "0.08", "0.02"),
        ("longley", "test", "4.24", "7.70"),
        ("linnerud", "test", "0.83", "0.70"),
    ):
        assert f"{default[table, split]:.2f}" == before and f"{one[table, split]:.2f}" == after, (table, split)
        assert f"{before}× → {after}×" in text


def test_the_reference_reproduces_the_earlier_reading():
    now = pd.read_csv(HERE / "dev" / "default" / "scores.csv")
    before = pd.read_csv(ROOT / "experiments" / "tables-linear-baseline" / "dev" / "select" / "scores.csv")
    now = now[now.model == "scinum.Regressor"].set_index(["table", "seed", "split"]).mse
    before = before[before.model == "selected, held at the edge"].set_index(["table", "seed", "split"]).mse
    rel = (now / before.reindex(now.index) - 1).abs()
    assert len(rel) == 64 and float(rel.max()) < 6e-8 and "within a relative 6e-8 on all 64" in _text()


def test_the_product_default_is_the_adopted_candidate():
    import scinum.estimator as est

    fit_save = _module("fit_save")
    assert fit_save.CANDIDATES["one-member"] == ({}, {"members": 1}) and est.DEFAULTS["members"] == 1
    assert fit_save.CANDIDATES["default"] == ({}, {"members": 3})  # the default when declared
    times = {c: np.median([t["cpu_s"] for t in json.loads((HERE / "dev" / c / "fit-times.json").read_text()).values()]) for c in CANDIDATES}
    assert times["one-member"] <= 0.75 * times["default"]


def test_the_fit_times_the_how_to_and_the_readme_quote():
    def times(split: str, c: str) -> dict:
        return json.loads((HERE / split / c / "fit-times.json").read_text())

    def span(t: dict, table: str, digits: int = 0) -> str:
        v = sorted(x["cpu_s"] for k, x in t.items() if k.rsplit("-", 1)[0] == table)
        lo, hi = (round(v[0], digits), round(v[-1], digits)) if digits else (round(v[0]), round(v[-1]))
        return f"{lo}–{hi} s" if lo != hi else f"{lo} s"

    dev, test = times("dev", "one-member"), times("test", "one-member")
    docs, text = re.sub(r"\s+", " ", (ROOT / "docs" / "how-to" / "tables.md").read_text()), _text()
    d, t = [x["cpu_s"] for x in dev.values()], [x["cpu_s"] for x in test.values()]
    assert f"took {round(min(d))}–{round(max(d))} s of one core (median {np.median(d):.1f} s) on the 16 development tables" in docs
    assert f"and {min(t):.1f}–{round(max(t))} s (median {round(float(np.median(t)))} s) on the 12 test tables" in docs
    assert f"longley, 11 training rows × 5 columns, {span(dev, 'longley')}; diabetes, 298 × 5, {span(dev, 'diabetes')}" in docs
    assert f"star98, 204 × 11, {span(dev, 'star98')}; anes96, 637 × 11, {span(test, 'anes96')}; goog, 707 × 5, {span(test, 'goog')}" in docs
    three = [np.median([x["cpu_s"] for x in times(s, "default").values()]) for s in ("dev", "test")]
    assert f"(medians {round(three[0])} and {round(three[1])} s)" in docs
    assert f"| fit, CPU s: median (min–max) | {np.median([x['cpu_s'] for x in times('test', 'default').values()]):.1f}" in text
    assert f"**{np.median(t):.1f} ({min(t):.1f}–{max(t):.1f})**" in text
    for table, rows_cols in (("anes96", "637 training rows × 11 columns"), ("goog", "707 × 5"), ("msft", "44 × 5")):
        before, after = span(times("test", "default"), table)[:-2], span(test, table)[:-2]
        assert f"{table} ({rows_cols}) {before} → {after}" in text, table


def _benchmark_runs(path: Path, n_runs: int = 3) -> tuple[dict, dict, list, list]:
    """From benchmarks/regressor_fit_time.py's ``n_runs`` printed runs: the Regressor's CPU s per
    table (each run), every model's MSE, the floors (s) and the selector lines' seconds (as fitted,
    every edge, and, since tables-bends, the bend test)."""
    runs = path.read_text().split("## run ")[1:]
    assert len(runs) == n_runs
    cpu: dict[str, list[str]] = {}
    mse: dict[tuple[str, str], str] = {}
    floors, selector = [], []
    for run in runs:
        for line in run.splitlines():
            m = re.match(r"\s+(\d+x\d+) (scinum.Regressor|boosted trees|ridge)\s+([\d.]+)\s+[\d.]+\s+([\d.]+)", line)
            if m:
                if m[2] == "scinum.Regressor":
                    cpu.setdefault(m[1], []).append(m[3])
                mse[m[1], m[2]] = m[4]
            if line.startswith("floor:"):
                floors.append(re.search(r"need at least ([\d.]+) s", line)[1])
            if line.startswith("selector:"):
                selector.append(re.findall(r"(\d+\.\d+)(?: CPU)? s", line))
    return cpu, mse, floors, selector


def test_the_benchmarks_runs_at_one_member_are_quoted():
    """experiments/regressor-fit-time's table since one member: every CPU second and MSE from the
    benchmark's three printed runs, the floor and the selector's seconds; and the runs before the
    selector stopped early, with the same MSEs."""
    here = ROOT / "experiments" / "regressor-fit-time"
    text = re.sub(r"\s+", " ", (here / "README.md").read_text())
    cpu, mse, floors, selector = _benchmark_runs(here / "one-member-selector.txt")
    for table, label in (("17x2", "17 × 2"), ("640x4", "640 × 4"), ("1000x10", "1,000 × 10"), ("10000x4", "10,000 × 4")):
        ours, ridge, trees = mse[table, "scinum.Regressor"], mse[table, "ridge"], mse[table, "boosted trees"]
        assert f"| {label} | {' / '.join(cpu[table])} | {ours} ({ridge}, {trees}) |" in text, table
    assert max(float(c) for c in cpu["10000x4"]) <= 60 and min(float(c) for c in cpu["1000x10"]) > 10
    assert sorted(floors) == ["12.6", "12.7", "12.9"] and "12.6–12.9 CPU s" in text
    quick, full = sorted(s[0] for s in selector), sorted(s[1] for s in selector)
    assert f"{quick[0]}–{quick[-1]} CPU s of the 1,000 × 10 fit, against {full[0]}–{full[-1]} s" in text
    before, mse_before, floors_before, _ = _benchmark_runs(here / "one-member.txt")
    assert mse_before == mse and sorted(floors_before) == ["11.9", "11.9", "12.0"] and "11.9–12.0 s in the earlier runs" in text
    for table in ("1000x10", "10000x4"):
        lo, hi = sorted(before[table], key=float)[0], sorted(before[table], key=float)[-1]
        assert f"{lo}–{hi} s on" in text, table


def test_the_how_to_quotes_the_benchmark():
    """docs/how-to/tables.md's synthetic fit times, selector and bend-test seconds and import
    cost are regressor-fit-time's two runs since the bend test (since-bends.txt)."""
    here = ROOT / "experiments" / "regressor-fit-time"
    path = here / "since-bends.txt"
    cpu, _, _, selector = _benchmark_runs(path, n_runs=2)
    docs = re.sub(r"\s+", " ", (ROOT / "docs" / "how-to" / "tables.md").read_text())
    quick, full, bends = (sorted(float(s[i]) for s in selector) for i in range(3))
    assert f"{quick[0]:.2f}–{quick[-1]:.2f} CPU s; about {full[0]:.1f} s with every edge fitted" in docs
    assert round(full[-1], 1) == round(full[0], 1)
    assert f"five times ({bends[0]:.2f}–{bends[-1]:.2f} CPU s there)" in docs
    spans = {t: sorted(float(v) for v in cpu[t]) for t in cpu}
    for table, label in (("17x2", "17 × 2"), ("640x4", "640 × 4"), ("1000x10", "1,000 × 10")):
        lo, hi = spans[table]
        assert f"{label} in {lo:.1f}–{hi:.1f} s" in docs, table
    # 10,000 x 4 since its rows take batches of 64: since-long-batches.txt
    later, later_mse, _, _ = _benchmark_runs(here / "since-long-batches.txt", n_runs=2)
    big = sorted(float(v) for v in later["10000x4"])
    assert f"10,000 × 4, whose rows bend (no penalty, 80,000 records in batches of 64), in {big[0]:.0f}–{big[-1]:.0f} s" in docs
    ratio = float(later_mse["10000x4", "scinum.Regressor"]) / float(later_mse["10000x4", "boosted trees"])
    assert f"held-out MSE {ratio:.2f}× the trees'" in docs
    others = sorted(float(v) for t in ("17x2", "640x4", "1000x10") for v in later[t])
    assert f"took {others[0]:.1f}–{others[-1]:.1f} s" in docs
    imports = sorted(float(v) for v in re.findall(r"\(Lightning\): ([\d.]+) CPU s", path.read_text()))
    assert len(imports) == 2 and f"plus {imports[0]:.1f}–{imports[-1]:.1f} s once a process" in docs


def test_regressor_fit_time_since_bends_is_quoted():
    """experiments/regressor-fit-time's section since the bend test: every CPU second and MSE of
    its table, the floors and the selector's seconds, from since-bends.txt."""
    here = ROOT / "experiments" / "regressor-fit-time"
    text = re.sub(r"\s+", " ", (here / "README.md").read_text())
    cpu, mse, floors, selector = _benchmark_runs(here / "since-bends.txt", n_runs=2)
    for table, label in (("17x2", "17 × 2"), ("640x4", "640 × 4"), ("1000x10", "1 000 × 10"), ("10000x4", "10 000 × 4")):
        ours, ridge, trees = mse[table, "scinum.Regressor"], mse[table, "ridge"], mse[table, "boosted trees"]
        seconds = ", ".join(cpu[table])
        assert re.search(rf"\| {label}[^|]* \| (\*\*)?{re.escape(seconds)}(\*\*)? \| {ours} \({ridge}, {trees}\) \|", text), table
    lo, hi = sorted(floors, key=float)[0], sorted(floors, key=float)[-1]
    assert f"{lo}–{hi} CPU s of long operations alone" in text and float(lo) > 10
    quick, bends = sorted(s[0] for s in selector), sorted(s[2] for s in selector)
    assert f"{quick[0]}–{quick[-1]} CPU s of the 1 000 × 10 fit, testing whether its rows bend {bends[0]}–{bends[-1]} s" in text
    index = re.sub(r"\s+", " ", (ROOT / "experiments" / "README.md").read_text())
    big, small = sorted(cpu["1000x10"], key=float), sorted(cpu["17x2"], key=float)
    assert f"1,000 × 10 takes {big[0]}–{big[-1]} CPU s against a floor of {lo}–{hi} s, 17 × 2 {small[0]}–{small[-1]} s" in index


@pytest.mark.parametrize(
    "now, before, change, floor",
    [
        ("since-large-budget.txt", "since-bends.txt", "{old} → {new}", "alone take {lo}–{hi} CPU s"),
        (
            "since-long-batches.txt",
            "since-large-budget.txt",
            "MSE {new} ({old} with 60,000",
            "need {lo}–{hi} CPU s of long operations alone",
        ),
    ],
)
def test_regressor_fit_time_since_each_larger_budget_is_quoted(now, before, change, floor):
    """experiments/regressor-fit-time's sections since the budget for rows that bend and since
    batches of 64: every CPU second and MSE of their tables and the floors, from the runs' files;
    the unchanged fits' MSEs equal the section's before."""
    here = ROOT / "experiments" / "regressor-fit-time"
    text = re.sub(r"\s+", " ", (here / "README.md").read_text())
    cpu, mse, floors, _ = _benchmark_runs(here / now, n_runs=2)
    _, earlier, _, _ = _benchmark_runs(here / before, n_runs=2)
    for table, label in (("17x2", "17 × 2"), ("640x4", "640 × 4"), ("1000x10", "1 000 × 10"), ("10000x4", "10 000 × 4")):
        ours, ridge, trees = mse[table, "scinum.Regressor"], mse[table, "ridge"], mse[table, "boosted trees"]
        seconds = ", ".join(cpu[table])
        bold = r"(\*\*)?"
        assert re.search(rf"\| {label}[^|]* \| {bold}{re.escape(seconds)}{bold} \| {bold}{ours}{bold} \({ridge}, {trees}\) \|", text), table
        assert (ours == earlier[table, "scinum.Regressor"]) == (table != "10000x4")
    big = sorted(float(v) for v in cpu["10000x4"])
    assert change.format(old=earlier["10000x4", "scinum.Regressor"], new=mse["10000x4", "scinum.Regressor"]) in text and big[-1] <= 60
    lo, hi = sorted(floors, key=float)[0], sorted(floors, key=float)[-1]
    assert floor.format(lo=lo, hi=hi) in text


def test_the_notebooks_index_quotes_the_one_member_times():
    here = ROOT / "experiments" / "regressor-fit-time"
    cpu, _, floors, _ = _benchmark_runs(here / "one-member-selector.txt")
    index = re.sub(r"\s+", " ", (ROOT / "experiments" / "README.md").read_text())
    big, wide = sorted(cpu["1000x10"], key=float), sorted(cpu["10000x4"], key=float)
    assert f"1,000 × 10 takes {big[0]}–{big[-1]} CPU s against a floor of {min(floors)}–{max(floors)} s" in index
    assert f"10,000 × 4 {wide[0]}–{wide[-1]} s (its ≤ 60 s met)" in index
