"""experiments/tables-long-batches: the README's tables are what summary.py prints from the
published fits, the product's schedule for a long table whose rows bend is the adopted
candidate's, and the product's sentences follow from the fits."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
from published import readme

FOLDER = "tables-long-batches"
HERE = Path(__file__).resolve().parents[1] / FOLDER
ROOT = HERE.parents[1]


def lines(path: Path) -> pd.DataFrame:
    return pd.DataFrame([json.loads(line) for line in path.read_text().splitlines()])


def flat(path: Path) -> str:
    return " ".join(path.read_text().split())


def summary() -> str:
    return subprocess.run([sys.executable, str(HERE / "summary.py")], capture_output=True, text=True, check=True).stdout


def test_the_readme_quotes_summary_py():
    out, text = summary(), readme(FOLDER)
    blocks = [" ".join(b.split()) for b in out.split("\n\n") if b.startswith("| table") or b.startswith("- ")]
    assert len([b for b in blocks if b.startswith("| table")]) == 4  # two candidates, the five large tables, the test tables
    for block in blocks:
        assert block in text, block[:80]
    assert "adopt long-batches: no" in out and "adopt long-batches-80k: yes" in out


def test_the_product_trains_the_adopted_candidate():
    from scinum.regressor_params import DEFAULTS, schedule, training_samples

    run = (HERE / "run.py").read_text()
    assert 'CANDIDATE = {"batch_size": 64, "lr": 2e-3, "bent_max_cells": 600_000}' in run
    assert DEFAULTS["bent"] == {"epochs": 30, "max_cells": 600000, "max_records": 80000, "batch_scale": 2}
    epochs, cap, most, batch, lr = schedule("auto", [True], 5400, 32, 1e-3)
    assert (batch, lr) == (64, 2e-3)
    dev = lines(HERE / "dev.jsonl")
    for r in dev.drop_duplicates(["table", "seed", "model"]).itertuples():  # every fit's records, as the product counts them
        cells = {"co2": 2, "topobathy": 3, "friedman1": 11}.get(r.table, 5)
        want = training_samples(
            r.n_train, cells, epochs, DEFAULTS["min_steps"], batch, cap, most if r.model == "long-batches-80k" else None
        )
        assert r.samples == want, (r.table, r.seed, r.model)


def test_the_product_s_sentences_follow_from_the_fits():
    dev = lines(HERE / "dev.jsonl")
    before = lines(HERE.parent / "tables-large-budget" / "dev.jsonl")
    now = dev[(dev.table == "tanh10000") & (dev.split == "past") & (dev.model == "long-batches-80k")].set_index("seed").mse
    trees = before[(before.table == "tanh10000") & (before.split == "past") & (before.model == "boosted trees")].set_index("seed").mse
    small = pd.read_csv(HERE.parent / "tables-bends" / "large-tanh.txt", sep=" ")
    small = small[(small.rows == 1000) & (small["where"] == "past")]
    ratios = list(now / trees) + list(small.mse_rule / small.boosted_trees)
    span = f"{min(ratios):.1f}–{max(ratios):.1f}×"
    assert f"the Regressor past the range is {span} the boosted trees' error" in flat(ROOT / "README.md")
    assert f"the Regressor past the range is {span} the trees' error" in flat(ROOT / "docs" / "how-to" / "tables.md")
    assert f"are now {span} the trees past the range" in flat(HERE.parent / "tables-bends" / "README.md")
    large = summary().split("## The five large development tables")[1]
    row = re.search(r"\| friedman1 \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|", large)
    docs = flat(ROOT / "docs" / "how-to" / "tables.md")
    inside, past = (
        f"from {float(row[1]):.1f}× the boosted trees' error inside the range to {float(row[2]):.1f}×",
        f"from {float(row[3]):.1f}× to {float(row[4]):.1f}×",
    )
    assert f"{inside} (past it {past})" in docs
