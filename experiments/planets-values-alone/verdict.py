"""The declared choice (README, step 1): reading the values alone against the `best` preset as it
is, at half its samples, on the validation split (seeds 0-4): mean MSE of e₁, a₁ and Δt over
seeds, each at most 1.1× the preset's (planets-target-alone's readings of the same model, data
and seeds).

    python experiments/planets-values-alone/verdict.py     # reads half/val.csv
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
REFERENCE = HERE.parent / "planets-target-alone" / "half" / "val.csv"
FIELDS = {"description.planet0.e": "e₁", "description.planet0.a": "a₁", "description.stepsize": "Δt"}
ALLOWED = 1.1  # the mean validation MSE of each field, at most this many times the preset's


def means(path: Path, model: str) -> pd.Series:
    """Mean validation MSE over seeds 0-4 of ``model`` in ``path`` (val_scores.py's rows), by field."""
    f = pd.read_csv(path)
    f = f[(f.model == model) & (f.metric == "mse") & f.seed.notna()]
    assert sorted(f.seed.astype(int).unique()) == [0, 1, 2, 3, 4], (path, model)
    return f.groupby("field").value.mean().loc[list(FIELDS)]


def verdict() -> tuple[pd.DataFrame, bool]:
    """(the table: the preset's and the candidate's means and their ratio per field, adopted?)."""
    today, values = means(REFERENCE, "xval+gmm"), means(HERE / "half" / "val.csv", "xval+gmm, values alone")
    table = pd.DataFrame({"preset": today, "values alone": values, "ratio": values / today}).rename(index=FIELDS)
    return table, bool((table.ratio <= ALLOWED).all())


if __name__ == "__main__":
    table, adopted = verdict()
    print(table.to_string(float_format=lambda v: f"{v:.3g}"))
    print("adopted" if adopted else "not adopted", f"(each ratio at most {ALLOWED})")
