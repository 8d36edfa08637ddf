"""experiments/tables-linear-baseline: every figure its README quotes, recomputed from the files
published beside it, and its verdict read off the rule it declared."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "experiments" / "tables-linear-baseline"
BUDGET = ROOT / "experiments" / "tables-fit-budget" / "dev"


def _module(name: str):
    """This folder's script ``name`` (other experiments have scripts of the same names)."""
    spec = importlib.util.spec_from_file_location(f"tables_linear_baseline_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_evaluate = _module("evaluate")
CLAMP, DEFAULT, NETWORK = _evaluate.CLAMP, _evaluate.DEFAULT, _evaluate.NETWORK
counts, default_scores = _evaluate.counts, _evaluate.default_scores


def _text() -> str:
    return re.sub(r"\s+", " ", (HERE / "README.md").read_text(encoding="utf-8"))


def _both() -> pd.DataFrame:
    own = pd.read_csv(HERE / "dev" / "scores.csv")
    default = default_scores([BUDGET / r / "scores.csv" for r in ("default", "floor-steps", "floor-over-cap")])
    return pd.concat([default, own])


def _ratios(frame: pd.DataFrame, model: str, split: str) -> pd.Series:
    m = frame.groupby(["table", "split", "model"]).mse.mean().unstack("model")
    return (m[model] / m[["linear (OLS)", "boosted trees"]].min(axis=1)).xs(split, level="split")


def test_the_fits_are_the_declared_development_tables_and_seeds():
    declared = set(json.loads((ROOT / "experiments" / "tables-protocol" / "declared.json").read_text())["development"]["tables"])
    own = pd.read_csv(HERE / "dev" / "scores.csv")
    assert set(own.table) == declared and sorted(set(own.seed)) == [0, 1]
    assert len(json.loads((HERE / "dev" / "fit-times.json").read_text())) == 32


def test_the_summary_table_and_the_verdict():
    both, text = _both(), _text()
    stats = {m: counts(both, m) for m in (DEFAULT, NETWORK, CLAMP)}
    for key, label in (
        ("extrap: within 1.5×", "above the range: within 1.5×"),
        ("extrap: within 3×", "above the range: within 3×"),
        ("extrap: inside 90 %", "above the range: inside 90 %"),
        ("test: within 1.5×", "inside the range: within 1.5×"),
        ("test: inside 90 %", "inside the range: inside 90 %"),
    ):
        assert f"| {label} | " + " | ".join(stats[m][key] for m in (DEFAULT, NETWORK, CLAMP)) + " |" in text
    ex = {m: float(stats[m]["extrap: geometric mean"]) for m in stats}
    te = {m: float(stats[m]["test: geometric mean"]) for m in stats}
    assert (
        f"| above the range: geometric mean | **{ex[DEFAULT]:.3f}** | {ex[NETWORK]:.3f} | {ex[CLAMP]:.3f} | < {ex[DEFAULT]:.3f} |" in text
    )
    assert f"| inside the range: geometric mean | {te[DEFAULT]:.3f} | {te[NETWORK]:.3f} | **{te[CLAMP]:.3f}** | ≤ 1.110 |" in text
    assert round(te[DEFAULT] * 1.05, 3) <= 1.110 + 1e-9 < round(te[DEFAULT] * 1.05, 3) + 0.001
    # the declared rule: the first clause fails for both readings, hence not adopted
    assert ex[NETWORK] > ex[DEFAULT] and ex[CLAMP] > ex[DEFAULT] and "## Result: not adopted" in text


def test_the_tables_quoted():
    both, text = _both(), _text()
    r = {m: _ratios(both, m, "extrap") for m in (DEFAULT, NETWORK, CLAMP, "linear (OLS)")}
    for table in ("macrodata", "statecrime", "elnino", "linnerud"):
        where = " above the range" if table == "macrodata" else ""
        moves = "{:.2f}× → {:.2f}× and {:.2f}×".format(*(r[m][table] for m in (DEFAULT, NETWORK, CLAMP)))
        assert f"{table}{where} {moves}" in text
    stack = [r[m]["stackloss"] for m in (DEFAULT, NETWORK, CLAMP)]
    assert "stackloss from {:.2f}× to {:.2f}× and {:.2f}×".format(*stack) in text
    ccard = [r[m]["ccard"] for m in ("linear (OLS)", DEFAULT, NETWORK, CLAMP)]
    assert "OLS itself is {:.2f}× the trees, goes from {:.2f}× to {:.2f}× and {:.2f}×".format(*ccard) in text


def test_the_blends():
    summary = _module("blend").summary
    text, frame = _text(), pd.read_csv(HERE / "dev" / "blend.csv")
    rows = {line.split(" | ")[0].strip("| "): line for line in summary(frame).splitlines()[2:]}
    geo = {k: [float(c.split(" / ")[-1]) for c in v.strip("| ").split(" | ")[1:]] for k, v in rows.items()}
    assert geo["network w=0"][0] == geo["edge w=0"][0] == 0.986  # the default itself
    net = ", ".join(f"{geo[f'network w={w}'][0]:.3f}" for w in ("1/3", "1/2", "2/3"))
    edge = ", ".join(f"{geo[f'edge w={w}'][0]:.3f}" for w in ("1/3", "1/2", "2/3"))
    assert f"{net} (the network reading) and {edge} (held at the edge)" in text
    inside = [g[1] for k, g in geo.items() if not k.endswith(("w=0", "w=1"))]
    assert all(g[0] > 0.986 for k, g in geo.items() if not k.endswith("w=0"))
    assert f"Inside the range the blends do better: {min(inside):.3f}–{max(inside):.3f}" in text


def test_the_check_and_the_fit_times():
    text, check = _text(), (HERE / "check.txt").read_text().splitlines()
    old = [line.split("MSE ")[1] for line in check if "69e0d38" in line]
    new = [line.split("MSE ")[1] for line in check if "this commit" in line]
    assert old == new and len(old) == 2
    assert f"(MSE {old[0]} inside the range, {old[1]} above it, both fits)" in text
    cpu = [v["cpu_s"] for v in json.loads((HERE / "dev" / "fit-times.json").read_text()).values()]
    assert f"The fits took {min(cpu):.0f}–{max(cpu):.0f} CPU s (median {np.median(cpu):.0f})" in text


def test_the_selector_choices_are_its_rule():
    selector = _module("selector")
    from recipes import tables_by_range as tbr

    choices = pd.read_csv(HERE / "dev" / "select" / "choices.csv")
    assert list(choices.line) == list((choices.held > 0) & (choices.line_sse < choices.trees_sse))
    for name, seed in (("ccard", 0), ("ccard", 1), ("longley", 0)):  # recomputed from the tables
        X, y = tbr.load(name)
        idx = tbr.splits(X, name, seed)
        line, trees, held = selector.edge_errors(X.iloc[idx["train"]], y.iloc[idx["train"]])
        row = choices[(choices.table == name) & (choices.seed == seed)].iloc[0]
        assert held == row.held and np.isclose(line, row.line_sse) and np.isclose(trees, row.trees_sse)
    text = _text()
    kept = choices[~choices.line]
    assert f"The selector took the line on {int(choices.line.sum())} of the {len(choices)} (table, seed) pairs" in text
    assert sorted(zip(kept.table, kept.seed)) == [
        ("ccard", 0),
        ("diabetes", 0),
        ("linnerud", 0),
        ("longley", 0),
        ("longley", 1),
        ("stackloss", 0),
    ]
    assert set(kept[kept.held == 0].table) == {"longley", "stackloss"}


def test_the_selected_readings_and_their_verdict():
    frame, text = pd.read_csv(HERE / "dev" / "select" / "scores.csv"), _text()
    edge, net = "selected, held at the edge", "selected, network"
    stats = {m: counts(frame, m) for m in (DEFAULT, net, edge)}
    for key, label in (("extrap: within 1.5×", "above the range: within 1.5×"), ("extrap: within 3×", "above the range: within 3×")):
        d, n, e = (stats[m][key] for m in (DEFAULT, net, edge))
        assert f"| {label} | {d} | {n} | **{e}** |" in text
    d, n, e = (float(stats[m]["extrap: geometric mean"]) for m in (DEFAULT, net, edge))
    assert f"| above the range: geometric mean | {d:.3f} | {n:.3f} | **{e:.3f}** | < 0.986 |" in text
    assert e < 0.986 < n and d == 0.986
    d, n, e = (float(stats[m]["test: geometric mean"]) for m in (DEFAULT, net, edge))
    assert f"| inside the range: geometric mean | {d:.3f} | {n:.3f} | **{e:.3f}** | ≤ 1.110 |" in text and e <= 1.110
    cov = [stats[m]["extrap: inside 90 %"] for m in (DEFAULT, net, edge)]
    assert "| above the range: inside 90 % | {} | {} | {} | |".format(*cov) in text
    assert f"they cover {float(cov[2]):.2f} of the targets against the default's {float(cov[0]):.2f}" in text
    assert int(stats[edge]["extrap: within 1.5×"].split()[0]) >= 12 and int(stats[edge]["test: within 1.5×"].split()[0]) >= 14
    r = {m: _ratios(frame, m, "extrap") for m in (DEFAULT, edge)}
    for table in (
        "ccard",
        "stackloss",
        "danish_data",
        "scotland",
        "committee",
        "statecrime",
        "linnerud",
        "grunfeld",
        "macrodata",
        "elnino",
    ):
        assert f"{table} above the range {r[DEFAULT][table]:.2f}× → {r[edge][table]:.2f}×" in text or (
            f"{table} {r[DEFAULT][table]:.2f}× → {r[edge][table]:.2f}×" in text
        ), table


def _test_ratios(split: str) -> pd.DataFrame:
    frame = pd.read_csv(HERE / "test" / "scores.csv")
    assert sorted(set(frame.seed)) == [0, 1, 2] and len(set(frame.table)) == 12
    m = frame.groupby(["table", "split", "model"]).mse.mean().unstack("model")
    return (
        m.drop(columns=["linear (OLS)", "boosted trees"])
        .div(m[["linear (OLS)", "boosted trees"]].min(axis=1), axis=0)
        .xs(split, level="split")
    )


def test_the_test_tables_figure_and_its_targets():
    text = _text()
    declared = json.loads((ROOT / "experiments" / "tables-protocol" / "declared.json").read_text())["test"]
    assert set(pd.read_csv(HERE / "test" / "scores.csv").table) == set(declared)
    now, before = DEFAULT, "scinum.Regressor, no line under the network"
    for split, label in (("extrap", "above the range"), ("test", "inside the range")):
        r = _test_ratios(split)
        n, b = int((r[now] <= 1.5).sum()), int((r[before] <= 1.5).sum())
        assert f"| {label}: within 1.5×{' of the better' if split == 'extrap' else ''} | **{n} of 12** | {b} of 12 |" in text
        geo = [float(np.exp(np.log(r[c]).mean())) for c in (now, before)]
        assert "| {}: geometric mean | {:.3f} | {:.3f} | |".format(label, *geo) in text
    r = _test_ratios("extrap")
    assert int((r[now] <= 1.5).sum()) >= 10 and int((_test_ratios("test")[now] <= 1.5).sum()) >= 11  # the first two targets
    worse = ", ".join(f"{t} {v:.2f}×" for t, v in r[now][r[now] > 3].items())
    worse_before = ", ".join(f"{t} {v:.2f}×" for t, v in r[before][r[before] > 3].items())
    assert f"| above the range: worse than 3× | {worse} | {worse_before} | none |" in text
    assert f"two tables stay worse than 3× ({worse}, both where boosted trees are the better model above the range)" in text
    frame = pd.read_csv(HERE / "test" / "scores.csv")
    m = frame[frame.split == "extrap"].groupby(["table", "model"]).mse.mean().unstack("model")
    assert all(m.loc[t, "boosted trees"] < m.loc[t, "linear (OLS)"] for t in r[now][r[now] > 3].index)
    for table in ("breast_cancer", "goog", "interest_inflation", "anes96"):
        assert f"{table} from {r[before][table]:.2f}× to {r[now][table]:.2f}×" in text, table
    for table in ("iris", "wine", "modechoice"):
        assert f"{table} ({r[before][table]:.2f}× → {r[now][table]:.2f}×)" in text, table
    inside = _test_ratios("test")
    for table in ("goog", "modechoice"):
        assert f"{table} ({inside[before][table]:.2f}× → {inside[now][table]:.2f}×)" in text, table


def test_the_test_tables_choices():
    choices, text = pd.read_csv(HERE / "test" / "choices.csv"), _text()
    assert list(choices.line) == list((choices.held > 0) & (choices.line_sse < choices.trees_sse))
    per = choices.groupby("table").line.sum()
    assert f"The selector took the line on {int(choices.line.sum())} of the {len(choices)} (table, seed) pairs" in text
    every = ", ".join(sorted(t for t, k in per.items() if k == 3))
    assert f"on every seed of {every.replace(', msft', ' and msft')}" in text
    assert sorted(t for t, k in per.items() if k == 2) == ["anes96", "sunspots"] and "on two of anes96 and sunspots" in text
    assert sorted(t for t, k in per.items() if k == 1) == ["iris", "wine"] and "on one of iris and wine" in text
    assert sorted(t for t, k in per.items() if k == 0) == ["heart", "nile"] and "never on heart or nile" in text


def test_the_reproduction_and_the_selectors_cost():
    text = _text()
    lines = (HERE / "reproduce.txt").read_text().splitlines()
    assert lines[0] == "statecrime seed 0: the line kept"
    for line, where in zip(lines[1:], ("inside the range", "above it")):
        product, experiment = re.findall(r"[\d.]+(?:e[-+]?\d+)?", line.split(":", 1)[1])
        assert abs(float(product) - float(experiment)) <= 1e-9 * float(experiment)
        assert f"{product} against {experiment} {where}" in text
    runs = dict(re.findall(r"^(.+?) \(.*\): Line.fit ([\d.]+-[\d.]+) CPU s", (HERE / "selector-time.txt").read_text(), re.M))
    for label, cell in (("synthetic 1000x10", "synthetic 1,000 × 10"), ("synthetic 10000x4", "synthetic 10,000 × 4")):
        lo, hi = runs[label].split("-")
        assert f"| {cell} | {lo}–{hi} |" in text
    lo, hi = (float(v) for v in runs["synthetic 1000x10"].split("-"))
    floor = (ROOT / "experiments" / "regressor-fit-time" / "benchmark-floor.txt").read_text()
    fits = [float(v) for v in re.findall(r"1000x10 scinum.Regressor\s+([\d.]+)", floor)]
    assert f"takes {min(fits):.2f}–{max(fits):.2f} CPU s at these defaults" in text
    assert f"the selector adds {100 * lo / max(fits):.0f}–{100 * hi / min(fits):.0f} %" in text


def test_the_test_tables_intervals():
    text = _text()
    cov = pd.read_csv(HERE / "test" / "coverage.csv")
    recipe = pd.read_csv(HERE / "test" / "scores.csv")
    both = cov.merge(recipe[recipe.model == DEFAULT], on=["table", "seed", "split"], suffixes=("", "_recipe"))
    assert len(both) == len(cov) == 72 and (both.mse == both.mse_recipe).all()  # the same fits, to the last digit
    choices = pd.read_csv(HERE / "test" / "choices.csv")
    kept = cov[cov.split == "test"].merge(choices, on=["table", "seed"], suffixes=("", "_selector"))
    assert (kept.line == kept.line_selector).all()
    inside = cov.groupby("split").inside_90.mean()
    assert f"holds {inside['extrap']:.3f} of the held-out targets above the range and {inside['test']:.3f} inside it" in text
    by_line = cov[cov.split == "extrap"].groupby("line").inside_90.mean()
    assert f"On the fits that kept a line, {by_line[True]:.3f} above the range; on the others, {by_line[False]:.3f}." in text
    past = pd.read_csv(ROOT / "experiments" / "tables-past-range" / "test" / "scores.csv")
    old = past[past.model == DEFAULT].groupby("split").inside_90.mean()
    assert f"without the line: {old['extrap']:.3f} and {old['test']:.3f}" in text
