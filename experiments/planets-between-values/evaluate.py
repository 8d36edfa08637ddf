"""Δt's intervals with and without the widening between training values, from the published
planets `best` checkpoints (planets-line-cap step 2), nothing retrained.

For each checkpoint, Δt (``description.stepsize``) is filled on the ``test`` split (the four
training step sizes) and on ``ood_stepsize`` (step sizes between and past them). The fill runs
twice: once as the product fills now (``on``) and once with the checkpoint's training values
hidden from :class:`scinum.fill.between_values.TrainingValues` (``off``, the fill before it).
Each number's truth, prediction, standard deviation and 95 % interval are written to
``predictions.csv.gz``.

    python experiments/planets-between-values/evaluate.py RUNS_DIR
        # RUNS_DIR holds line-cap-1075k/ (development: build seed 0, seeds 0-4) and
        # line-cap-1075k-test/ (test: build seed 2718, seeds 0-1), as `recipes/planets.py` left them
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import torch

from scinum.analysis.evaluate import evaluate
from scinum.fill.between_values import TrainingValues
from scinum.fill.model import load

HERE = Path(__file__).resolve().parent
MODEL = "xval+gmm, values alone, dt and a1 on a line"
#: build -> (run folder, seeds)
BUILDS = {"development (build 0)": ("line-cap-1075k", range(5)), "test (build 2718)": ("line-cap-1075k-test", range(2))}
FIELD, SPLITS = "description.stepsize", ("test", "ood_stepsize")
COLUMNS = ["record", "true", "pred", "std", "lo95", "hi95"]


def fills(runs: Path) -> pd.DataFrame:
    frames = []
    for build, (folder, seeds) in BUILDS.items():
        for seed in seeds:
            model = load(runs / folder / "models" / MODEL / f"seed{seed}" / "model.ckpt")
            values = model.training_values
            for widening in ("off", "on"):
                model.training_values = values if widening == "on" else TrainingValues(model.vocab, {})
                _, pred = evaluate(model, runs / folder / "data", [FIELD], list(SPLITS), label=MODEL)
                frames.append(pred[["split", *COLUMNS]].assign(build=build, seed=seed, widening=widening))
            print(f"{build}, seed {seed}: done", flush=True)
    return pd.concat(frames, ignore_index=True)[["build", "seed", "widening", "split", *COLUMNS]]


if __name__ == "__main__":
    torch.set_num_threads(1)
    fills(Path(sys.argv[1])).to_csv(HERE / "predictions.csv.gz", index=False, compression={"method": "gzip", "mtime": 0})
