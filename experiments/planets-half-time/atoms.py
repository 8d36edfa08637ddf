"""Steps 1 and 3 again with the fill's move onto a₁'s atom (scinum.fill.atoms,
experiments/planets-atoms): a₁ on the test split of build seed 0, each seed's checkpoint filled
with the atoms off (as published) and on, nothing retrained. The atoms are computed as a fit now
records them (experiments/planets-atoms/evaluate.py's ``atoms_of``) from the same training split.
Writes ``atoms.csv`` here (every a₁ prediction); ``--read`` prints each step's mean over seeds.

    python experiments/planets-half-time/atoms.py RUNS_DIR    # RUNS_DIR/half-time/, RUNS_DIR/half-time-614k/
    python experiments/planets-half-time/atoms.py --read
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
FIELD = "description.planet0.a"
#: step -> (run folder, samples)
STEPS = {"step 1": ("half-time", 506880), "step 3": ("half-time-614k", 614400)}


def _planets_atoms():
    """experiments/planets-atoms/evaluate.py, whose ``atoms_of`` and ``off_and_on`` this reuses."""
    spec = importlib.util.spec_from_file_location("planets_atoms_evaluate", HERE.parent / "planets-atoms" / "evaluate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fills(runs: Path) -> pd.DataFrame:
    import torch

    from scinum.fill.model import load

    torch.set_num_threads(1)
    data = runs / "half-time" / "data"  # build seed 0: both steps trained on it
    planets_atoms = _planets_atoms()
    atoms = planets_atoms.atoms_of(data)
    frames = []
    for step, (folder, samples) in STEPS.items():
        for ckpt in sorted((runs / folder / "models" / "xval+gmm").glob("seed*/model.ckpt")):
            for state, pred in planets_atoms.off_and_on(load(ckpt), atoms, data, ["test"], "xval+gmm").items():
                frames.append(
                    pred[["record", "true", "pred"]].assign(step=step, samples=samples, seed=int(ckpt.parent.name[4:]), atoms=state)
                )
            print(f"{step}, {ckpt.parent.name}: done", flush=True)
    return pd.concat(frames, ignore_index=True)[["step", "samples", "seed", "atoms", "record", "true", "pred"]]


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """a₁ MSE per step and atoms state: the mean over seeds, and each seed's."""
    per_seed = frame.assign(se=(frame.pred - frame.true) ** 2).groupby(["step", "samples", "atoms", "seed"]).se.mean()
    return per_seed.groupby(["step", "samples", "atoms"]).agg(["mean", list])


if __name__ == "__main__":
    if sys.argv[1:] != ["--read"]:
        fills(Path(sys.argv[1])).to_csv(HERE / "atoms.csv", index=False)
    with pd.option_context("display.width", 200, "display.max_colwidth", 120, "display.float_format", "{:.6f}".format):
        print(summary(pd.read_csv(HERE / "atoms.csv")))
