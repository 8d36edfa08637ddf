"""Where the planets `best` preset's a₁ loses to the boosted trees on the test split: the records
whose a₁ is exactly 1.0 against the others.

Reads the published planets-line-cap step-2 run as `recipes/planets.py` left it: each seed's
`predictions.csv` and the dataset. It fits the recipe's ridge and boosted trees again
(:func:`scinum.baselines.predict.predict_baselines`, seed 0) on the same training records, and
writes `a1.csv` here: one row per test record and model, with the truth, the prediction and the
seed (the trees and ridge have no seed: -1); and `train.json`: how many training orbits have
a₁ exactly 1.0.

    python experiments/planets-a1-atom/analyse.py RUNS_DIR     # RUNS_DIR/line-cap-1075k/
    python experiments/planets-a1-atom/analyse.py --read       # the figures, from a1.csv
"""

from __future__ import annotations

import glob
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
FIELD = "description.planet0.a"


def make(runs: Path) -> pd.DataFrame:
    from scinum.baselines.predict import predict_baselines

    run = runs / "line-cap-1075k"
    base, _ = predict_baselines(run / "data", [FIELD], ["test"], log=lambda s: None)
    base = base[base.model.isin(["ridge", "boosted trees"])][["model", "record", "true", "pred"]].assign(seed=-1)
    frames = [base]
    for f in sorted(glob.glob(str(run / "models" / "*" / "seed*" / "predictions.csv"))):
        p = pd.read_csv(f)
        p = p[(p.field == FIELD) & (p.split == "test")]
        frames.append(p[["record", "true", "pred", "seed"]].assign(model="scinum (best)"))
    return pd.concat(frames, ignore_index=True)[["model", "seed", "record", "true", "pred"]]


def training_count(runs: Path) -> dict[str, int]:
    """Training orbits in all, and those whose a₁ is exactly 1.0."""
    from scinum.datasets import Dataset

    a1 = [r["description"]["planet0"]["a"] for r in Dataset(runs / "line-cap-1075k" / "data").records("train")]
    return {"orbits": len(a1), "a1_is_1": int(np.isclose(a1, 1.0).sum())}


def figures(frame: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Per model (scinum: mean over seeds of each seed's figure): the MSE over all test records,
    and the part of it from the records whose a₁ is 1.0 and from the others (the two parts add up
    to the MSE), and the number of records in each."""
    f = frame.assign(se=(frame.pred - frame.true) ** 2, atom=np.isclose(frame.true, 1.0))
    out = {}
    for model, g in f.groupby("model"):
        per_seed = g.groupby("seed").apply(
            lambda s: pd.Series({"mse": s.se.mean(), "atom": s.se[s.atom].sum() / len(s), "other": s.se[~s.atom].sum() / len(s)}),
            include_groups=False,
        )
        out[model] = per_seed.mean().to_dict()
    one = f[f.model == "boosted trees"]
    out["records"] = {"all": float(len(one)), "atom": float(one.atom.sum())}
    ours = f[f.model == "scinum (best)"]
    out["gap"] = {
        # how far the other orbits' a₁ lies from 1.0 at the least, and how far scinum's
        # predictions of the orbits at 1.0 land from it (99th percentile, seeds pooled)
        "other_truth_nearest": float(np.abs(ours[~ours.atom].true - 1.0).min()),
        "atom_pred_q99": float(np.quantile(np.abs(ours[ours.atom].pred - 1.0), 0.99)),
        "other_pred_nearest": float(np.abs(ours[~ours.atom].pred - 1.0).min()),
    }
    return out


if __name__ == "__main__":
    if sys.argv[1:] != ["--read"]:
        make(Path(sys.argv[1])).to_csv(HERE / "a1.csv", index=False)
        (HERE / "train.json").write_text(json.dumps(training_count(Path(sys.argv[1]))) + "\n")
    print("training:", json.loads((HERE / "train.json").read_text()))
    for model, v in figures(pd.read_csv(HERE / "a1.csv")).items():
        print(model, {k: round(x, 6) for k, x in v.items()})
