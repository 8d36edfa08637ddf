"""experiments/quick-xval-budget-curve: the curve its README quotes, recomputed from the per-seed
scores published beside it, and its 38,400-sample runs equal to quick-xval-mixup's ``none``."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "experiments" / "quick-xval-budget-curve"
#: the preset's budget labels -> the README's rows
BUDGETS = {"19k samples": "19,200", "38k samples": "38,400 (the quick preset)", "77k samples": "76,800", "154k samples": "153,600"}
#: (label, field, split) of the README's columns
COLUMNS = (
    ("Δt (OoD)", "description.stepsize", "ood_stepsize"),
    ("Δt", "description.stepsize", "test"),
    ("a₁", "description.planet0.a", "test"),
    ("a₁ (OoD)", "description.planet0.a", "ood_a1"),
)


def _seeds() -> pd.DataFrame:
    f = pd.read_csv(HERE / "seeds.csv")
    return f[f.subset == "all"] if "subset" in f else f


def _mse(budget: str, field: str, split: str) -> pd.Series:
    f = _seeds()
    return f[(f.budget == budget) & (f.field == field) & (f.split == split)].set_index("seed").mse.sort_index()


def test_every_budget_ran_the_declared_seeds():
    f = _seeds()
    assert set(f.budget) == set(BUDGETS) and set(f.model) == {"xval"}
    assert all(sorted(set(g.seed)) == [0, 1, 2] for _, g in f.groupby("budget"))


def test_the_quick_budget_reproduces_the_mixup_experiments_reference():
    other = pd.read_csv(ROOT / "experiments" / "quick-xval-mixup" / "dev" / "seeds.csv")
    for _, field, split in COLUMNS:
        before = other[(other.model == "none") & (other.field == field) & (other.split == split)].set_index("seed").mse.sort_index()
        assert np.array_equal(_mse("38k samples", field, split).to_numpy(), before.to_numpy()), (field, split)


def test_the_curve_quoted():
    text = re.sub(r"\s+", " ", (HERE / "README.md").read_text(encoding="utf-8"))
    for budget in BUDGETS:
        cells = []
        for _, field, split in COLUMNS:
            m = _mse(budget, field, split)
            cells.append(f"{m.mean():.3g} ({' / '.join(f'{x:.3g}' for x in m)})")
        assert f"| {BUDGETS[budget]} | " + " | ".join(cells) + " |" in text, budget
