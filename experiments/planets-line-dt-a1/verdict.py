"""The declared choice (README): the `best` preset with a line under Δt and a₁, on the development
data (build seed 0), mean over seeds 0-4, clause by clause:

1. Δt ``ood_stepsize`` MSE at most ridge's on that split and at most 0.0021;
2. Δt MSE on the validation split at most ridge's there;
3. a₁ MSE on the validation split at most the boosted trees' there;
4. e₁ R² on the validation split at least 0.95 in the mean and 0.9 on every seed;
5. e₁ MSE on the validation split and a₁ ``ood_a1`` MSE at most 1.25× `best`'s
   (planets-values-alone/cap);
6. training seconds per sample, side by side (the ``cost`` runs), at most 1.3× `best`'s.

    python experiments/planets-line-dt-a1/verdict.py     # reads cap/, cost/ and ../planets-values-alone/cap/
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
BEST, CANDIDATE = "xval+gmm, values alone", "xval+gmm, values alone, dt and a1 on a line"
REFERENCE = HERE.parent / "planets-values-alone" / "cap"
SEEDS = [0, 1, 2, 3, 4]
E, A, DT = "description.planet0.e", "description.planet0.a", "description.stepsize"
PAPER_DT_OOD, MIN_R2, MIN_R2_SEED, ALLOWED, COST = 0.0021, 0.95, 0.9, 1.25, 1.3


def val_scores(folder: Path, model: str, field: str, metric: str) -> pd.Series:
    """Validation ``metric`` of ``field`` by seed (``val.csv``: val_scores.py's rows)."""
    f = pd.read_csv(folder / "val.csv")
    f = f[(f.model == model) & (f.field == field) & (f.metric == metric) & f.seed.notna()]
    scores = f.set_index(f.seed.astype(int)).value.sort_index()
    assert list(scores.index) == SEEDS, (folder, model, field)
    return scores


def val_reference(folder: Path, model: str, field: str) -> float:
    """A standard regressor's validation MSE on ``field`` (the row of ``val.csv`` without a seed)."""
    f = pd.read_csv(folder / "val.csv")
    f = f[(f.model == model) & (f.field == field) & (f.metric == "mse") & f.seed.isna()]
    assert len(f) == 1, (folder, model, field)
    return float(f.value.iloc[0])


def ood_mean(folder: Path, model: str, field: str, split: str) -> float:
    """Mean MSE over seeds 0-4 of ``model`` on an OoD split (the recipe's ``seeds.csv``)."""
    f = pd.read_csv(folder / "seeds.csv")
    f = f[(f.model == model) & (f.kind == "model") & (f.field == field) & (f.split == split)]
    assert sorted(f.seed.unique()) == SEEDS, (folder, model, field, split)
    return float(f.mse.mean())


def regressor_mse(folder: Path, model: str, field: str, split: str) -> float:
    """A standard regressor's MSE on a split of the recipe's ``table.csv``."""
    t = pd.read_csv(folder / "table.csv")
    t = t[(t.model == model) & (t.field == field) & (t.split == split) & (t.metric == "mse")]
    assert len(t) == 1, (folder, model, field, split)
    return float(t["mean"].iloc[0])


def cost_ratio() -> float:
    """Training seconds of the candidate over the preset's, side by side at one budget (``cost/training.csv``)."""
    t = pd.read_csv(HERE / "cost" / "training.csv").set_index("model").train_seconds  # seed 0 of each
    return float(t[CANDIDATE] / t[BEST])


def clauses() -> pd.DataFrame:
    """One row per clause: the candidate's figure, its bound, and whether it holds."""
    cap = HERE / "cap"
    dt_ood = ood_mean(cap, CANDIDATE, DT, "ood_stepsize")
    e_r2 = val_scores(cap, CANDIDATE, E, "r2")
    rows = [
        ("1. Δt OoD ≤ ridge", dt_ood, regressor_mse(cap, "ridge", DT, "ood_stepsize")),
        ("1. Δt OoD ≤ 0.0021", dt_ood, PAPER_DT_OOD),
        ("2. Δt (val) ≤ ridge", val_scores(cap, CANDIDATE, DT, "mse").mean(), val_reference(cap, "ridge", DT)),
        ("3. a₁ (val) ≤ trees", val_scores(cap, CANDIDATE, A, "mse").mean(), val_reference(cap, "boosted trees", A)),
        ("4. e₁ R² (val) ≥, mean", e_r2.mean(), MIN_R2),
        ("4. e₁ R² (val) ≥, worst seed", e_r2.min(), MIN_R2_SEED),
        (
            "5. e₁ (val) ≤ 1.25× best",
            val_scores(cap, CANDIDATE, E, "mse").mean(),
            ALLOWED * val_scores(REFERENCE, BEST, E, "mse").mean(),
        ),
        ("5. a₁ OoD ≤ 1.25× best", ood_mean(cap, CANDIDATE, A, "ood_a1"), ALLOWED * ood_mean(REFERENCE, BEST, A, "ood_a1")),
        ("6. cost per sample ≤ 1.3× best", cost_ratio(), COST),
    ]
    return judged(rows)


def judged(rows: list[tuple[str, float, float]]) -> pd.DataFrame:
    """``(clause, candidate, bound)`` rows as a table with ``holds``: at least the bound for the
    clauses numbered 4 (R²), at most it for the others."""
    table = pd.DataFrame(rows, columns=["clause", "candidate", "bound"]).set_index("clause")
    at_least = table.index.str.startswith("4.")
    table["holds"] = (table.candidate >= table.bound).where(at_least, table.candidate <= table.bound)
    return table


def main(table: pd.DataFrame) -> None:
    """Print the clauses and the verdict."""
    print(table.to_string(float_format=lambda v: f"{v:.3g}"))
    print("adopted" if table.holds.all() else "not adopted")


if __name__ == "__main__":
    main(clauses())
