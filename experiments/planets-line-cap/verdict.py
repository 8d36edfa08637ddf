"""The declared choice (README): the `best` preset with a line under Δt and a₁, on the development
data (build seed 0), mean over seeds 0-4, clause by clause. Clauses 1-5 are planets-line-dt-a1's,
read by its functions (loaded from there) on one of this folder's steps; clause 6 is the cap: every
seed's training seconds (the step's ``training.csv``) at most 1 800.

    python experiments/planets-line-cap/verdict.py             # step 1, 1 198 080 samples: cap/
    python experiments/planets-line-cap/verdict.py cap-1075k   # step 2, 1 075 200 samples
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("line_dt_a1_verdict", HERE.parent / "planets-line-dt-a1" / "verdict.py")
assert _spec is not None and _spec.loader is not None
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)

CAP_SECONDS = 1800.0  # 30 one-core minutes


def training_seconds(step: Path = HERE / "cap") -> pd.Series:
    """Each development seed's training seconds (the recipe's clock, the step's ``training.csv``)."""
    t = pd.read_csv(step / "training.csv")
    t = t[t.model == base.CANDIDATE].set_index("seed").train_seconds.sort_index()
    assert list(t.index) == base.SEEDS, list(t.index)
    return t


def clauses(step: Path = HERE / "cap") -> pd.DataFrame:
    """One row per clause for one step's folder: the candidate's figure, its bound, whether it holds."""
    cap, best, ours = step, base.REFERENCE, base.CANDIDATE
    dt_ood = base.ood_mean(cap, ours, base.DT, "ood_stepsize")
    e_r2 = base.val_scores(cap, ours, base.E, "r2")
    e_best = base.val_scores(best, base.BEST, base.E, "mse").mean()
    a1_ood_best = base.ood_mean(best, base.BEST, base.A, "ood_a1")
    rows = [
        ("1. Δt OoD ≤ ridge", dt_ood, base.regressor_mse(cap, "ridge", base.DT, "ood_stepsize")),
        ("1. Δt OoD ≤ 0.0021", dt_ood, base.PAPER_DT_OOD),
        ("2. Δt (val) ≤ ridge", base.val_scores(cap, ours, base.DT, "mse").mean(), base.val_reference(cap, "ridge", base.DT)),
        ("3. a₁ (val) ≤ trees", base.val_scores(cap, ours, base.A, "mse").mean(), base.val_reference(cap, "boosted trees", base.A)),
        ("4. e₁ R² (val) ≥, mean", e_r2.mean(), base.MIN_R2),
        ("4. e₁ R² (val) ≥, worst seed", e_r2.min(), base.MIN_R2_SEED),
        ("5. e₁ (val) ≤ 1.25× best", base.val_scores(cap, ours, base.E, "mse").mean(), base.ALLOWED * e_best),
        ("5. a₁ OoD ≤ 1.25× best", base.ood_mean(cap, ours, base.A, "ood_a1"), base.ALLOWED * a1_ood_best),
        ("6. training s, slowest seed ≤ 1800", float(training_seconds(cap).max()), CAP_SECONDS),
    ]
    return base.judged(rows)


if __name__ == "__main__":
    base.main(clauses(HERE / (sys.argv[1] if len(sys.argv) > 1 else "cap")))
