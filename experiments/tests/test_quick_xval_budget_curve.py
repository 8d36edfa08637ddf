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


def test_the_intervals_overlap_and_the_best_presets_curve_quoted():
    t = pd.read_csv(HERE / "table.csv")
    r = t[(t.model == "xval") & (t.field == "description.stepsize") & (t.split == "ood_stepsize") & (t.metric == "mse")]
    assert len(r) == 4 and r.ci95_low.max() < r.ci95_high.min()
    best = (ROOT / "experiments" / "planets-best-half" / "README.md").read_text(encoding="utf-8").splitlines()
    ood = []
    for samples in ("230 400 (3 629)", "460 800, the cap", "921 600", "1 382 400"):
        line = next(x for x in best if x.startswith("| ") and samples in x.split("|")[1])
        ood.append(line.split("|")[6].strip().strip("*"))
    text = re.sub(r"\s+", " ", (HERE / "README.md").read_text(encoding="utf-8"))
    assert f"({', '.join(ood)} from 230,400 to 1,382,400 samples)" in text
    index = (ROOT / "experiments" / "README.md").read_text(encoding="utf-8")
    assert "Δt (OoD) 0.00461, 0.00292, 0.00378, 0.00414 while Δt falls 0.00339 → 0.000178" in index


def test_the_training_seconds_quoted():
    import json

    text = re.sub(r"\s+", " ", (HERE / "README.md").read_text(encoding="utf-8"))
    spans = []
    for folder in ("19k-samples", "154k-samples"):
        runs = json.loads((HERE / folder / "meta.json").read_text())["runs"]
        secs = [runs[f"xval/seed{i}"]["train_seconds"] for i in range(3)]
        spans.append(f"{min(secs):.0f}–{max(secs):.0f} s")
    assert f"{spans[0]} a seed at 19,200 samples and {spans[1]} at 153,600" in text
