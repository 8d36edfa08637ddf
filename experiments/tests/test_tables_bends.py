"""experiments/tables-bends: the rule fires on no development fit and on sunspots alone among
the test tables (as the product computes it now, on a sample of tables), summary.txt is what
summary.py prints from the published scores, and the README quotes it and toys.txt."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
from published import readme

FOLDER = "tables-bends"
HERE = Path(__file__).resolve().parents[1] / FOLDER


def test_the_rule_fires_on_no_development_fit_and_on_sunspots_alone_among_the_test_tables():
    dev = pd.read_csv(HERE / "dev-bends.txt", sep=" ")
    test = pd.read_csv(HERE / "test-bends.txt", sep=" ")
    assert len(dev) == 32 and not dev.bends.any()
    assert len(test) == 36 and set(test[test.bends].table) == {"sunspots"} and test[test.table == "sunspots"].bends.all()


def test_the_listing_is_what_bends_clearly_gives_now():
    sys.path.insert(0, str(HERE.parents[1] / "recipes"))
    import tables_by_range as tbr

    import scinum
    from scinum.fill.line import bends_clearly

    for name, seed, want in (("sunspots", 0, True), ("iris", 1, False), ("engel", 0, False)):
        X, y = tbr.load(name)
        train = tbr.splits(X, name, seed)["train"]
        reg = scinum.Regressor(seed=seed)
        records, _ = reg._rows(X.iloc[train], reset=True)
        assert bool(bends_clearly(records, reg._add_y(records, y.iloc[train])).all()) is want


def test_summary_is_summary_py_s_and_the_readme_quotes_it():
    out = subprocess.run([sys.executable, str(HERE / "summary.py")], capture_output=True, text=True, check=True).stdout
    assert out == (HERE / "summary.txt").read_text(encoding="utf-8")
    assert "before, above the range: within 1.5x 10 of 12, worse than 3x: iris 3.23x, geometric mean 0.768, inside 90 % 0.862" in out
    assert "the rule, above the range: within 1.5x 10 of 12, worse than 3x: iris 3.23x, geometric mean 0.770, inside 90 % 0.857" in out
    assert "the rule, sunspots: extrap 1.090x (inside 90 % 0.742), test 1.291x (inside 90 % 0.865)" in out
    text = readme(FOLDER)
    quoted = (
        "| 0.768 / 0.862 | 0.770 / 0.857 |",
        "| 12 of 12 / 0.828 / 0.859 | 12 of 12 / 0.828 / 0.860 |",
        "| 1.063× / 1.283× | 1.090× / 1.291× |",
    )
    for cells in quoted:
        assert cells in text


def test_the_toys_figures_in_the_readme_are_toys_txt():
    toys = pd.read_csv(HERE / "toys.txt", sep=" ")
    straight = toys[toys.toy == "straight"]
    assert not straight.bends.any() and (straight.mse_rule == straight.mse_penalty).all()
    bent = toys[toys.toy != "straight"]
    assert bent.bends.all()
    inside, past = bent[bent["where"] == "inside"], bent[bent["where"] == "past"]
    assert (inside.mse_rule < inside.boosted_trees).all()
    ratio = inside.mse_penalty / inside.boosted_trees
    assert (round(ratio.min(), 1), round(ratio.max(), 1)) == (2.4, 6.4)
    gain = (inside.mse_penalty / inside.mse_rule).groupby(inside.toy).agg(["min", "max"]).round(0)
    assert gain.loc["saturating"].tolist() == [33, 114] and gain.loc["curved"].tolist() == [36, 78]
    gain = (past.mse_penalty / past.mse_rule).groupby(past.toy).agg(["min", "max"])
    assert gain.loc["saturating"].round(1).tolist() == [4.6, 50.6] and gain.loc["curved"].round(2).tolist() == [1.08, 2.13]
    text = readme(FOLDER)
    assert "(33–114× lower than with the penalty on the saturating toy, 36–78× on the curved one)" in text


def test_the_cost_table_is_fit_time_txt():
    """The README's cost table: every fit's CPU seconds, MSE and bend-test seconds of the four
    runs in fit-time.txt (before, after, before, after), and the floors quoted."""
    import re

    text = readme(FOLDER)
    runs = dict(re.findall(r"## (old\d|new\d)\n(.*?)(?=\n## |\Z)", (HERE / "fit-time.txt").read_text(), re.S))
    assert sorted(runs) == ["new1", "new2", "old1", "old2"]

    def fit(run: str, table: str) -> tuple[str, str]:
        m = re.search(rf"{table} scinum.Regressor\s+([\d.]+)\s+[\d.]+\s+([\d.]+)", runs[run])
        assert m, (run, table)
        return m[1], m[2]

    for table, label in (("1000x10", "1 000 × 10"), ("10000x4", "10 000 × 4")):
        (b1, mb), (b2, mb2), (a1, ma), (a2, ma2) = (fit(r, table) for r in ("old1", "old2", "new1", "new2"))
        assert mb == mb2 and ma == ma2
        trees = re.search(rf"{table} boosted trees\s+[\d.]+\s+[\d.]+\s+([\d.]+)", runs["new1"])[1]
        row = rf"\| {label}[^|]* \| {b1}, {b2}; {mb} \| {a1}, {a2}; (\*\*)?{ma}(\*\*)? \|[^|]*\| {trees} \|"
        assert re.search(row, text), table
    bends = [re.search(r"rows bend ([\d.]+) s", runs[r])[1] for r in ("new1", "new2")]
    assert f"| {bends[0]}, {bends[1]} CPU s |" in text
    floors = sorted(float(re.search(r"need at least ([\d.]+) s", r)[1]) for r in runs.values())
    assert f"{floors[0]}–{floors[-1]} CPU s" in text
    index = re.sub(r"\s+", " ", (HERE.parent / "README.md").read_text())
    lo, hi = sorted(re.search(r"rows bend ([\d.]+) s", runs[r])[1] for r in ("new1", "new2"))
    after, before = fit("new1", "10000x4")[1], fit("old1", "10000x4")[1]
    assert f"the test costs {lo}–{hi} CPU s of a 1,000 × 10 fit" in index and f"MSE of {after} instead of {before}" in index


def test_the_larger_tables_are_large_txt():
    """The larger synthetic tables' table and bullets: every ratio to the better standard model
    recomputed from large-sin.txt and large-tanh.txt, and the spans the bullets quote."""
    frame = pd.concat([pd.read_csv(HERE / f"large-{shape}.txt", sep=" ") for shape in ("sin", "tanh")])
    assert len(frame) == 16 and set(frame["rows"]) == {1000, 10000} and set(frame["seed"]) == {0, 1}
    frame["better"] = frame[["least_squares", "boosted_trees"]].min(axis=1)
    text = readme(FOLDER)
    for (shape, rows, seed), g in frame.groupby(["shape", "rows", "seed"]):
        inside, past = (g[g["where"] == w].iloc[0] for w in ("inside", "past"))
        assert inside["bends"] == past["bends"]

        def cell(r):
            rule = f"{r.mse_rule / r.better:.3f}×"
            return f"{rule} / {r.mse_penalty / r.better:.3f}×" if r.bends else rule

        row = f"| {shape}, {rows:,} rows, {seed} | {'yes' if inside.bends else 'no'} | {cell(inside)} | {cell(past)} |"
        assert row.replace("1,000", "1 000").replace("10,000", "10 000") in text, row
        if not inside.bends:  # the rule leaves the fit as it was
            assert inside.mse_rule == inside.mse_penalty and past.mse_rule == past.mse_penalty
    fired = frame[frame["bends"]]
    past, inside = fired[fired["where"] == "past"], fired[fired["where"] == "inside"]
    lower = (past.mse_rule / past.mse_penalty)[past["shape"] == "tanh"]
    assert f"({lower.min():.2f}–{lower.max():.2f}×)" in text and (lower < 1).all()
    assert f"{(past.mse_rule / past.mse_penalty)[past['shape'] == 'sin'].iloc[0]:.2f}× higher" in text
    ins = inside.mse_rule / inside.mse_penalty
    assert f"lower in all four ({ins.min():.2f}–{ins.max():.2f}×)" in text and len(ins) == 4
    everywhere = frame[frame["where"] == "past"]
    ratio = everywhere.mse_rule / everywhere.better
    assert f"{ratio.min():.2f}–{ratio.max():.1f}× the better standard model, above 3× on {(ratio > 3).sum()} of the 8" in text
    sat = everywhere[everywhere["shape"] == "tanh"]
    trees = sat.mse_rule / sat.boosted_trees
    assert f"{trees.min():.1f}–{trees.max():.1f}× the trees on the four saturating fits" in text and len(sat) == 4
    assert f"above least squares on {['no', 'one', 'two', 'three', 'all'][int((sat.mse_rule > sat.least_squares).sum())]} of them" in text


def test_three_times_the_budget_is_large_budget_txt():
    """The 60 000-sample fits' table and bullets, against large.py's default fits."""
    default = pd.concat([pd.read_csv(HERE / f"large-{s}.txt", sep=" ") for s in ("sin", "tanh")])
    more = pd.concat([pd.read_csv(HERE / f"large-budget-{s}.txt", sep=" ") for s in ("sin", "tanh")])
    assert len(more) == 4 and set(more["samples"]) == {60000}
    text = readme(FOLDER)
    ratios = {}
    for _, r in more.iterrows():
        d = default[(default["shape"] == r["shape"]) & (default["rows"] == 10000) & (default["seed"] == r["seed"])]
        ins, past = (d[d["where"] == w].iloc[0] for w in ("inside", "past"))
        row = (
            f"| {r['shape']}, {r['seed']} | {ins.mse_rule:.4g} / {r.mse_inside:.4g} | {past.mse_rule:.4g} / {r.mse_past:.4g} "
            f"| {ins.boosted_trees:.4g} / {past.boosted_trees:.4g} | {r.fit_s:.1f} |"
        )
        assert row in text, row
        ratios[r["shape"], r["seed"]] = (past.mse_rule / r.mse_past, ins.mse_rule / r.mse_inside, r.mse_inside < ins.boosted_trees)
    tanh = sorted(v[0] for k, v in ratios.items() if k[0] == "tanh")
    span = f"{tanh[0]:.1f}–{tanh[-1]:.1f}×"
    assert f"past the range {span}" in text
    gain, below = ratios["tanh", 1][1], ratios["tanh", 1][2]
    assert f"inside it {gain:.1f}× (below the trees there)" in text and below
    sin = sorted(1 / v[0] for k, v in ratios.items() if k[0] == "sin")
    assert f"({sin[0]:.2f}–{sin[-1]:.2f}× past the range)" in text
    secs = sorted(more["fit_s"])
    assert f"{secs[0]:.1f}–{secs[-1]:.1f} CPU s" in text and max(secs) < 60
