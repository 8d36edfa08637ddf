"""a₁ of the planets quick preset's xval+gmm with the move onto the atom off and on: the model the
README's main command trains (`python recipes/planets.py --preset quick`, seed 0, build seed 0),
whose reach spans a₁'s gap. Writes ``quick.csv`` here (every a₁ prediction of ``test`` and
``ood_a1``); ``--read`` prints the MSE of each.

    python experiments/planets-atoms/quick.py WORK    # WORK/planets-quick/ as the main command left it (runs/)
    python experiments/planets-atoms/quick.py --read
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
FIELD, SPLITS = "description.planet0.a", ["test", "ood_a1"]


def fills(work: Path) -> pd.DataFrame:
    import torch

    from scinum.analysis.evaluate import evaluate
    from scinum.fill.atoms import TrainingAtoms
    from scinum.fill.model import load

    torch.set_num_threads(1)
    model = load(work / "planets-quick" / "models" / "xval+gmm" / "model.ckpt")
    assert model.training_atoms.atoms, "a quick run from before fits recorded atoms"
    recorded = model.training_atoms
    frames = []
    for state, atoms in (("off", TrainingAtoms(model.vocab, {})), ("on", recorded)):
        model.training_atoms = atoms
        _, pred = evaluate(model, work / "planets-quick" / "data", [FIELD], SPLITS, label="xval+gmm")
        frames.append(pred[["split", "record", "true", "pred", "std"]].assign(atoms=state))
    return pd.concat(frames, ignore_index=True)


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """MSE per split and state, and how many predictions moved."""
    f = frame.assign(se=(frame.pred - frame.true) ** 2)
    out = f.pivot_table(index="split", columns="atoms", values="se", aggfunc="mean")
    off, on = (f[f.atoms == s].sort_values(["split", "record"]) for s in ("off", "on"))
    out["moved"] = (off.pred.to_numpy() != on.pred.to_numpy()).reshape(len(SPLITS), -1).sum(1) if len(off) else 0
    return out


if __name__ == "__main__":
    if sys.argv[1:] != ["--read"]:
        fills(Path(sys.argv[1])).to_csv(HERE / "quick.csv", index=False)
    with pd.option_context("display.float_format", "{:.6f}".format):
        print(summary(pd.read_csv(HERE / "quick.csv")))
