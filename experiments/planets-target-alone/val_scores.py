"""The validation split's scores of every run a planets recipe trained in WORK, with the standard
regressors fitted on the same training records: the development figures the choice here reads
(the recipe itself scores the test and out-of-distribution splits).

    python experiments/planets-target-alone/val_scores.py runs/planets-half-alone experiments/planets-target-alone/half/val.csv

One ``scinum evaluate --splits val`` of every ``models/<label>/seed<N>/model.ckpt`` on e₁, a₁ and
Δt (the first 200 records, as the recipe's evaluation). Writes one row per (model, seed, field,
metric) and one per (reference, field, metric) with ``seed`` empty: ``model, seed, field,
metric, value, n``.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

FIELDS = ("description.planet0.e", "description.planet0.a", "description.stepsize")
METRICS = ("mse", "r2")


def main(work: Path, out: Path) -> pd.DataFrame:
    runs = sorted(work.glob("models/*/seed*/model.ckpt"))
    if not runs:
        raise SystemExit(f"{work}: no models/<label>/seed<N>/model.ckpt")
    labels = [f"{ckpt.parent.parent.name} @ {ckpt.parent.name}" for ckpt in runs]
    with tempfile.TemporaryDirectory() as tmp:
        command = ["scinum", "evaluate", "--ckpt", *map(str, runs), "--labels", *labels, "--data", str(work / "data")]
        command += ["--out", tmp, "--splits", "val", "--fields", *FIELDS, "--limit", "200"]
        subprocess.run(command, check=True, capture_output=True)
        table = pd.read_csv(Path(tmp) / "table.csv")
    table = table[(table.split == "val") & (table.subset == "all")]
    rows = []
    for _, r in table.iterrows():
        model, _, seed = str(r.model).partition(" @ seed")
        for metric in METRICS:
            rows.append(
                {
                    "model": model,
                    "seed": int(seed) if r.kind == "model" else None,
                    "field": r.field,
                    "metric": metric,
                    "value": r[metric],
                    "n": r.n,
                }
            )
    frame = pd.DataFrame(rows)
    frame["seed"] = frame["seed"].astype("Int64")
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out, index=False)
    return frame


if __name__ == "__main__":
    frame = main(Path(sys.argv[1]), Path(sys.argv[2]))
    wide = frame.pivot_table(index=["model", "seed"], columns=["field", "metric"], values="value")
    print(wide.to_string())
