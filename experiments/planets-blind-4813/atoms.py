"""a₁ on build seed 4813 with the fill's move onto its atom off and on (scinum.fill.atoms), from
this folder's two `best` checkpoints, nothing retrained. The atoms are computed as a fit now
records them (experiments/planets-atoms/evaluate.py's ``atoms_of``, from the build's training
split); each checkpoint fills a₁ on ``test`` and ``ood_a1`` with them hidden (``off``) and given
(``on``: :func:`off_and_on`). Writes ``atoms.csv`` here (every a₁ prediction with its 95 %
interval) and ``atoms.json`` (the recorded atoms); ``--read`` prints the MSE and the 95 %
coverage per split and state, the mean over seeds and each seed's.

    python experiments/planets-blind-4813/atoms.py RUNS_DIR/blind-4813
    python experiments/planets-blind-4813/atoms.py --read
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
SPLITS = ["test", "ood_a1"]


def _planets_atoms():
    """experiments/planets-atoms/evaluate.py, whose ``atoms_of`` and ``off_and_on`` this reuses."""
    spec = importlib.util.spec_from_file_location("planets_atoms_evaluate", HERE.parent / "planets-atoms" / "evaluate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fills(work: Path) -> tuple[pd.DataFrame, dict]:
    import torch

    from scinum.fill.model import load

    torch.set_num_threads(1)
    planets_atoms = _planets_atoms()
    data = work / "data"
    atoms = planets_atoms.atoms_of(data)
    frames = []
    for ckpt in sorted((work / "models" / "xval+gmm").glob("seed*/model.ckpt")):
        for state, pred in planets_atoms.off_and_on(load(ckpt), atoms, data, SPLITS, "xval+gmm").items():
            frames.append(pred[["split", "record", "true", "pred", "lo95", "hi95"]].assign(seed=int(ckpt.parent.name[4:]), atoms=state))
        print(f"{ckpt.parent.name}: done", flush=True)
    return pd.concat(frames, ignore_index=True)[["seed", "atoms", "split", "record", "true", "pred", "lo95", "hi95"]], atoms


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per split and atoms state: a₁'s MSE and 95 % coverage, the mean over seeds and each seed's."""
    frame = frame.assign(se=(frame.pred - frame.true) ** 2, inside=(frame.true >= frame.lo95) & (frame.true <= frame.hi95))
    per_seed = frame.groupby(["split", "atoms", "seed"]).agg(mse=("se", "mean"), coverage95=("inside", "mean"))
    return per_seed.groupby(["split", "atoms"]).agg(mse=("mse", "mean"), per_seed=("mse", list), coverage95=("coverage95", "mean"))


if __name__ == "__main__":
    if sys.argv[1:] != ["--read"]:
        frame, atoms = fills(Path(sys.argv[1]))
        frame.to_csv(HERE / "atoms.csv", index=False)
        (HERE / "atoms.json").write_text(json.dumps(atoms, indent=1) + "\n")
    with pd.option_context("display.width", 200, "display.max_colwidth", 120, "display.float_format", "{:.6f}".format):
        print(summary(pd.read_csv(HERE / "atoms.csv")))
