"""The atom fill end to end: the `best` preset fitted again today (`python recipes/planets.py
--preset best --seeds 1`, seed 0, build seed 0), against this experiment's figures, which added
atoms to the published checkpoints after the fact.

Checked: the fresh checkpoint's weights against the published seed-0 checkpoint's (bit for bit:
training runs on one thread, and the training step's changes since keep the CPU's numbers); the
atoms the fit recorded against ``atoms.json``; and the a₁ predictions its recipe wrote for the
test and ``ood_a1`` splits against ``predictions.csv.gz``'s seed-0 ``on`` rows. Writes
``fresh.json`` here.

    python experiments/planets-atoms/fresh_fit.py WORK RUNS
        # WORK: the fresh run's --work directory; RUNS holds line-cap-1075k/ (the published run)
    python experiments/planets-atoms/fresh_fit.py --read
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
MODEL = "xval+gmm, values alone, dt and a1 on a line"  # the published run's label
FRESH = "xval+gmm"  # the recipe's `best` preset's label for the same model
FIELD = "description.planet0.a"


def _weights_sha(ckpt: Path) -> str:
    import torch

    state = torch.load(ckpt, map_location="cpu", weights_only=False)["state_dict"]
    h = hashlib.sha256()
    for k in sorted(state):
        h.update(k.encode())
        h.update(state[k].numpy().tobytes())
    return h.hexdigest()


def compare(work: Path, runs: Path) -> dict:
    fresh = work / "models" / FRESH / "seed0"
    published = runs / "line-cap-1075k" / "models" / MODEL / "seed0"
    from scinum.fill.model import load

    run = load(fresh / "model.ckpt").meta.run
    recorded = {f: r["atom"] for f, r in run["train_ranges"].items() if "atom" in r}
    wrote = pd.read_csv(fresh / "predictions.csv")
    wrote = wrote[(wrote.field == FIELD) & wrote.split.isin(["test", "ood_a1"])].sort_values(["split", "record"])
    ours = pd.read_csv(HERE / "predictions.csv.gz")
    ours = ours[(ours.build == "development (build 0)") & (ours.seed == 0) & (ours.atoms == "on")].sort_values(["split", "record"])
    assert list(zip(wrote.split, wrote.record)) == list(zip(ours.split, ours.record))
    return {
        "weights_equal": _weights_sha(fresh / "model.ckpt") == _weights_sha(published / "model.ckpt"),
        "atoms_equal": recorded == json.loads((HERE / "atoms.json").read_text())["development (build 0)"],
        "atoms": sorted(recorded),
        "predictions": len(wrote),
        "max_abs_diff": float(np.abs(wrote.pred.to_numpy() - ours.pred.to_numpy()).max()),
        "moved_onto_1": int((wrote.pred == 1.0).sum()),
        "a1_test_mse": float(((wrote.pred - wrote.true) ** 2)[wrote.split == "test"].mean()),
    }


if __name__ == "__main__":
    if sys.argv[1:] != ["--read"]:
        (HERE / "fresh.json").write_text(json.dumps(compare(Path(sys.argv[1]), Path(sys.argv[2])), indent=1) + "\n")
    print((HERE / "fresh.json").read_text())
