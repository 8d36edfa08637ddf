"""experiments/planets-a1-atom: the figures its README quotes, recomputed from a1.csv, whose
scinum predictions are planets-line-cap step 2's published ones."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from published import readme, script

ROOT = Path(__file__).resolve().parents[2]
FOLDER = "planets-a1-atom"


def test_the_table_and_the_counts_are_a1_csv_s():
    frame = pd.read_csv(ROOT / "experiments" / FOLDER / "a1.csv")
    fig = script(FOLDER, "analyse").figures(frame)
    text = readme(FOLDER)
    assert fig["records"] == {"all": 200.0, "atom": 85.0} and "85 of the 200 test orbits" in text
    import json

    train = json.loads((ROOT / "experiments" / FOLDER / "train.json").read_text())
    assert f"{train['a1_is_1']:,} of the {train['orbits']:,} training orbits".replace(",", " ") in text
    for model, label in (("scinum (best)", "scinum `best` (5 seeds)"), ("boosted trees", "boosted trees"), ("ridge", "ridge")):
        v = fig[model]
        assert abs(v["atom"] + v["other"] - v["mse"]) < 1e-12
        cells = [f"{v[k]:.6f}" for k in ("mse", "atom", "other")]
        row = f"| {label} | " + " | ".join(cells) + " |"
        assert row.replace("**", "") in text.replace("**", ""), row
    f = frame.assign(se=(frame.pred - frame.true) ** 2, atom=np.isclose(frame.true, 1.0))
    ours = f[f.model == "scinum (best)"]
    other = ours[~ours.atom].groupby("seed").se.sum() / 200
    assert (other < fig["boosted trees"]["other"]).sum() == 4 and f"seed {other.idxmax()}: {other.max():.6f}" in text


def test_the_gap_around_the_atom_is_quoted():
    gap = script(FOLDER, "analyse").figures(pd.read_csv(ROOT / "experiments" / FOLDER / "a1.csv"))["gap"]
    text = readme(FOLDER)
    assert f"no other orbit's a₁ lies within {gap['other_truth_nearest']:.3f} of 1.0" in text
    assert f"no prediction of one lies within {gap['other_pred_nearest']:.3f} of it" in text
    assert f"land within {gap['atom_pred_q99']:.3f} of it" in text


def test_the_scinum_rows_are_the_published_step_2_predictions():
    frame = pd.read_csv(ROOT / "experiments" / FOLDER / "a1.csv")
    ours = frame[frame.model == "scinum (best)"]
    published = pd.read_csv(ROOT / "experiments" / "planets-line-cap" / "cap-1075k" / "predictions.csv.gz")
    published = published[(published.field == "description.planet0.a") & (published.split == "test")]
    both = ours.merge(published, on=["seed", "record"])
    assert len(both) == len(ours) == 1000 and (both.pred == both.prediction).all() and (both.true == both.truth).all()
