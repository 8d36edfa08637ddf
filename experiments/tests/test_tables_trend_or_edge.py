"""experiments/tables-trend-or-edge: the summaries are compare.py's from the published scores, the
README quotes them, the holds are what the product's ``held_edges`` finds on each fit's training
rows, and the two rules differ only where some fit holds an input."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from published import readme, script

ROOT = Path(__file__).resolve().parents[2]
FOLDER = "tables-trend-or-edge"
HERE = ROOT / "experiments" / FOLDER


def test_the_summaries_are_compare_py_s_and_the_readme_quotes_them():
    compare = script(FOLDER, "compare")
    dev = compare.dev_summary(HERE / "dev") + "\n" + compare.holds_summary(HERE / "dev")
    assert (HERE / "dev" / "summary.md").read_text(encoding="utf-8") == dev
    assert "Adopted: yes." in dev
    text = readme(FOLDER)
    for cells in ("| above the range: geometric mean | 0.861 | **0.860** |", "| above the range: geometric mean | 0.779 | **0.768** |"):
        assert cells in text
    test = (HERE / "test" / "summary.md").read_text(encoding="utf-8")
    for line in (
        "| above the range: worse than 3× | iris 3.23× | iris 3.23× |",
        "| anes96, extrap | 2.33× | 1.88× |",
        "| fertility, extrap | 1.09× | 1.15× |",
    ):
        assert line in test


def test_the_rules_differ_only_on_fits_that_hold_an_input():
    for split in ("dev", "test"):
        held, trend = (
            pd.read_csv(HERE / split / r / "scores.csv").set_index(["table", "seed", "model", "split"]).sort_index()
            for r in ("held", "trend")
        )
        holds = pd.read_csv(HERE / split / "holds.csv")
        holding = set(map(tuple, holds[holds.held][["table", "seed"]].drop_duplicates().to_numpy()))
        moved = {(t, s) for (t, s, m, _), a, b in zip(held.index, held.mse, trend.mse) if a != b}
        assert moved and moved <= holding, (split, moved - holding)
        assert (held.drop(columns=["inside_90", "mean_std"]).index == trend.index).all()


def test_the_holds_are_held_edges_on_the_training_rows():
    sys.path.insert(0, str(ROOT / "recipes"))
    import tables_by_range as tbr
    from scinum.fill.line import held_edges

    holds = pd.read_csv(HERE / "dev" / "holds.csv")
    for (table, seed), rows in holds.groupby(["table", "seed"]):
        X, y = tbr.load(table)
        train = tbr.splits(X, table, int(seed))["train"]
        got = held_edges(X.iloc[train].to_numpy(np.float64), y.iloc[train].to_numpy(np.float64))
        want = rows.pivot(index="input", columns="side", values="held").loc[[str(c) for c in X.columns], ["top", "bottom"]]
        assert (got == want.to_numpy(bool)).all(), table
