"""a₁ with and without the fill's move onto a field's atom (scinum.fill.atoms), from the published
planets `best` checkpoints (planets-line-cap step 2), nothing retrained.

Those checkpoints were written before fits recorded atoms. So each build's atoms are computed here
as a fit now records them: :func:`scinum.util.provenance.field_ranges` over the build's tokenized
training split, added to each checkpoint's ``run.train_ranges``. a₁ (``description.planet0.a``) is
filled on ``test`` and ``ood_a1`` twice per checkpoint: ``on`` (the fill as it is now, with the
atoms) and ``off`` (none: the fill before). Ridge and the boosted trees are fitted again on the
same training records (:func:`scinum.baselines.predict.predict_baselines`, seed 0). Written here:
``predictions.csv.gz`` (every number's truth, prediction, std and 95 % interval; baselines: seed
-1) and ``atoms.json`` (each build's recorded atoms).

    python experiments/planets-atoms/evaluate.py RUNS_DIR
        # RUNS_DIR holds line-cap-1075k/ (development: build seed 0, seeds 0-4) and
        # line-cap-1075k-test/ (test: build seed 2718, seeds 0-1), as `recipes/planets.py` left them
"""

from __future__ import annotations

import copy
import json
import sys
import tempfile
from pathlib import Path

import pandas as pd
import torch

from scinum.analysis.evaluate import evaluate
from scinum.datasets.token_shards import tokenize_dataset
from scinum.fill.atoms import TrainingAtoms
from scinum.fill.model import load
from scinum.util.provenance import field_ranges

HERE = Path(__file__).resolve().parent
MODEL = "xval+gmm, values alone, dt and a1 on a line"
#: build -> (run folder, seeds)
BUILDS = {"development (build 0)": ("line-cap-1075k", range(5)), "test (build 2718)": ("line-cap-1075k-test", range(2))}
FIELD, SPLITS = "description.planet0.a", ("test", "ood_a1")
COLUMNS = ["split", "record", "true", "pred", "std", "lo95", "hi95"]


def atoms_of(data: Path) -> dict[str, dict]:
    """Field -> its atom, as a fit records it now, from the build's training split."""
    with tempfile.TemporaryDirectory() as cache:
        vocab, shards = tokenize_dataset(data, ["train"], cache_dir=cache)
        ranges = field_ranges(vocab.fields, lambda: ((f, v) for _, f, v in shards["train"].chunks()))
    return {f: r["atom"] for f, r in ranges.items() if "atom" in r}


def off_and_on(model, atoms: dict[str, dict], data: Path, splits: list[str], label: str) -> dict[str, pd.DataFrame]:
    """``model``'s predictions of a₁ on ``splits`` of ``data``, keyed ``off`` (no atoms) and ``on``
    (``atoms``, field -> atom, as if its fit had recorded them)."""
    run = copy.deepcopy(model.meta.run)
    for field, atom in atoms.items():
        run["train_ranges"][field]["atom"] = atom
    out = {}
    for state, source in (("off", {}), ("on", run)):
        model.training_atoms = TrainingAtoms(model.vocab, source)
        _, out[state] = evaluate(model, data, [FIELD], splits, label=label)
    return out


def fills(runs: Path) -> tuple[pd.DataFrame, dict]:
    from scinum.baselines.predict import predict_baselines

    frames, recorded = [], {}
    for build, (folder, seeds) in BUILDS.items():
        data = runs / folder / "data"
        atoms = recorded[build] = atoms_of(data)
        base, _ = predict_baselines(data, [FIELD], list(SPLITS), log=lambda s: None)
        base = base[base.model.isin(["ridge", "boosted trees"])].rename(columns={"model": "atoms"})
        frames.append(base[["atoms", *[c for c in COLUMNS if c in base]]].assign(build=build, seed=-1))
        for seed in seeds:
            model = load(runs / folder / "models" / MODEL / f"seed{seed}" / "model.ckpt")
            for state, pred in off_and_on(model, atoms, data, list(SPLITS), MODEL).items():
                frames.append(pred[COLUMNS].assign(build=build, seed=seed, atoms=state))
            print(f"{build}, seed {seed}: done", flush=True)
    frame = pd.concat(frames, ignore_index=True)
    return frame[["build", "atoms", "seed", *COLUMNS]], recorded


if __name__ == "__main__":
    torch.set_num_threads(1)
    frame, recorded = fills(Path(sys.argv[1]))
    frame.to_csv(HERE / "predictions.csv.gz", index=False, compression={"method": "gzip", "mtime": 0})
    (HERE / "atoms.json").write_text(json.dumps(recorded, indent=1) + "\n")
