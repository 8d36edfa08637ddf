"""The declared choice (README): the `best` preset with a line under its network against the
preset as published at the cap (planets-values-alone/cap), on the development data, seeds 0-4:

1. Δt ``ood_stepsize`` mean MSE at most 0.8× the preset's;
2. e₁, a₁ and Δt mean MSE on the validation split, and a₁ ``ood_a1``, each at most 1.25× the
   preset's;
3. training seconds per sample, side by side (the ``cost`` runs), at most 1.3× the preset's.

    python experiments/planets-record-line/verdict.py     # reads cap/, cost/ and ../planets-values-alone/cap/
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
BEST, ON_A_LINE = "xval+gmm, values alone", "xval+gmm, values alone, on a line"
REFERENCE = HERE.parent / "planets-values-alone" / "cap"
VAL_FIELDS = {"description.planet0.e": "e₁ (val)", "description.planet0.a": "a₁ (val)", "description.stepsize": "Δt (val)"}
OOD = {("description.stepsize", "ood_stepsize"): "Δt (OoD)", ("description.planet0.a", "ood_a1"): "a₁ (OoD)"}
GAIN, ALLOWED, COST = 0.8, 1.25, 1.3


def val_means(folder: Path, model: str) -> pd.Series:
    """Mean validation MSE over seeds 0-4 of ``model`` (``val.csv``: val_scores.py's rows), by field."""
    f = pd.read_csv(folder / "val.csv")
    f = f[(f.model == model) & (f.metric == "mse") & f.seed.notna()]
    assert sorted(f.seed.astype(int).unique()) == [0, 1, 2, 3, 4], (folder, model)
    return f.groupby("field").value.mean().loc[list(VAL_FIELDS)].rename(index=VAL_FIELDS)


def ood_means(folder: Path, model: str) -> pd.Series:
    """Mean MSE over seeds 0-4 of ``model`` on the two OoD splits (the recipe's ``seeds.csv``)."""
    f = pd.read_csv(folder / "seeds.csv")
    f = f[(f.model == model) & (f.kind == "model")]
    assert sorted(f.seed.unique()) == [0, 1, 2, 3, 4], (folder, model)
    out = {name: f[(f.field == field) & (f.split == split)].mse.mean() for (field, split), name in OOD.items()}
    return pd.Series(out)


def cost_ratio() -> float:
    """Training seconds of the line model over the preset's, side by side at one budget (``cost/training.csv``)."""
    t = pd.read_csv(HERE / "cost" / "training.csv").set_index("model").train_seconds  # seed 0 of each
    return float(t[ON_A_LINE] / t[BEST])


def verdict() -> tuple[pd.DataFrame, float, bool]:
    """(the table: the preset's and the line model's means, their ratio and each clause's bound;
    the cost ratio; adopted?)."""
    best = pd.concat([ood_means(REFERENCE, BEST), val_means(REFERENCE, BEST)])
    line = pd.concat([ood_means(HERE / "cap", ON_A_LINE), val_means(HERE / "cap", ON_A_LINE)])
    table = pd.DataFrame({"best": best, "on a line": line, "ratio": line / best})
    table["at most"] = [GAIN if name == "Δt (OoD)" else ALLOWED for name in table.index]
    cost = cost_ratio()
    return table, cost, bool((table.ratio <= table["at most"]).all() and cost <= COST)


if __name__ == "__main__":
    table, cost, adopted = verdict()
    print(table.to_string(float_format=lambda v: f"{v:.3g}"))
    print(f"cost per sample: {cost:.3f}x the preset's (at most {COST})")
    print("adopted" if adopted else "not adopted")
