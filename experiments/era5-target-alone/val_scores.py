"""The validation split's next-step MSE of every run a recipe trained in WORK, and of the standard
regressors fitted on the same training records: the development figure the choices here read
(the recipe itself scores the test split).

    python experiments/era5-target-alone/val_scores.py runs/era5-best-alone experiments/era5-target-alone/best/val.csv

Writes one row per (model, seed) and one per reference (seed empty): ``model, seed, n, mse,
mse_K2`` (MSE in the builder's standardized units and in K²), through ``scinum evaluate --splits
val --fields "data[*][-1]"``.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

FIELD = "data[*][-1]"


def main(work: Path, out: Path) -> pd.DataFrame:
    rows = []
    runs = sorted(work.glob("models/*/seed*/model.ckpt"))
    if not runs:
        raise SystemExit(f"{work}: no models/<label>/seed<N>/model.ckpt")
    with tempfile.TemporaryDirectory() as tmp:
        for i, ckpt in enumerate(runs):
            label, seed = ckpt.parent.parent.name, int(ckpt.parent.name.removeprefix("seed"))
            where = Path(tmp) / str(i)
            command = ["scinum", "evaluate", "--ckpt", str(ckpt), "--data", str(work / "data"), "--out", str(where)]
            command += ["--fields", FIELD, "--splits", "val", "--labels", label]
            command += [] if i == 0 else ["--no-baselines"]  # the references once: they do not depend on the run
            subprocess.run(command, check=True, capture_output=True)
            table = pd.read_csv(where / "table.csv")
            for _, r in table.iterrows():
                rows.append({"model": r.model, "seed": seed if r.kind == "model" else None, "n": r.n, "mse": r.mse, "mse_K2": r.mse_K2})
    frame = pd.DataFrame(rows)
    frame["seed"] = frame["seed"].astype("Int64")
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out, index=False)
    return frame


if __name__ == "__main__":
    print(main(Path(sys.argv[1]), Path(sys.argv[2])).to_string(index=False))
