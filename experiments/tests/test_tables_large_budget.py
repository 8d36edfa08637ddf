"""experiments/tables-large-budget: the README's tables are what summary.py prints from the
published fits, the adopted default is the candidate the rule adopted, and the product's
sentences about the saturating tables and the large test tables follow from the files."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
from published import readme

FOLDER = "tables-large-budget"
HERE = Path(__file__).resolve().parents[1] / FOLDER
ROOT = HERE.parents[1]


def lines(name: str) -> pd.DataFrame:
    return pd.DataFrame([json.loads(line) for line in (HERE / name).read_text().splitlines()])


def flat(path: Path) -> str:
    return " ".join(path.read_text().split())


def test_the_readme_quotes_summary_py():
    out = subprocess.run([sys.executable, str(HERE / "summary.py")], capture_output=True, text=True, check=True).stdout
    text = readme(FOLDER)
    tables = [" ".join(block.split()) for block in out.split("\n\n") if block.startswith("| table")]
    assert len(tables) == 3  # grow and grow-bends on the development tables, the test tables
    for block in tables:
        assert block in text
    assert "adopt grow: no" in out and "adopt grow-bends: yes" in out
    for clause in re.findall(r"^- \d\..*$", out.split("## grow-bends")[1], flags=re.M):
        assert clause in text


def test_the_fits_are_complete_and_the_budgets_are_the_rule_s():
    from scinum.regressor_params import DEFAULTS, training_samples

    dev, test = lines("dev.jsonl"), lines("test.jsonl")
    assert len(dev) == 6 * 2 * 4 * 2 and len(test) == 5 * 3 * 4 * 2
    bends = lines("dev-bends.jsonl")
    bent = bends[bends.bends.map(all)]
    assert sorted(zip(bent.table, bent.seed)) == [("sin10000", 0), ("tanh10000", 0), ("tanh10000", 1), ("tanh3000", 0), ("tanh3000", 1)]
    grow = dev[dev.model == "grow"]
    assert set(grow[grow.table.str.endswith("10000")].samples) == {60000} and set(grow[grow.table.str.endswith("3000")].samples) == {48600}
    assert set(dev[dev.model == "default"].samples) == {20000}
    # the candidate's budget as the rule computes it (the default since: tables-long-batches)
    assert training_samples(5400, 5, 30, DEFAULTS["min_steps"], 32, 300000) == 60000
    assert DEFAULTS["bent"]["epochs"] == 30
    assert test[test.model.isin(['default', 'grow'])].bends.map(all).all()


def test_the_large_tables_figures_follow_from_the_fits():
    """The README's reading of the large test tables: the tables that crossed below the better
    standard model past the range, and how much the saturating tables' error fell."""
    test = lines("test.jsonl")
    mean = test.groupby(["table", "model", "split"]).mse.mean().unstack("model")
    best = mean[["least squares", "boosted trees"]].min(axis=1)
    past = (mean["grow"] / best).unstack("split")["past"]
    before = (mean["default"] / best).unstack("split")["past"]
    crossed = {t for t in past.index if past[t] < 1 <= before[t]}  # below the better standard model now, not before
    assert crossed == {"friedman2", "friedman3", "topobathy"}
    dev = lines("dev.jsonl")
    sat = dev[dev.table.str.startswith("tanh")].groupby(["table", "model", "split"]).mse.mean().unstack("model")
    fell = sat["grow"] / sat["default"]
    docs = flat(ROOT / "docs" / "how-to" / "tables.md")
    assert f"the saturating tables' error to {fell.min():.2f}–{fell.max():.2f}× inside and past the range" in docs
