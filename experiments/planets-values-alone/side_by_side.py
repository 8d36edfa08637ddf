"""Step 3 (README): the preset as it is at 230 400 samples and the values alone at 368 640, trained
at the same time on the 2 cores (one process each, one thread), seed by seed, so that both see the
same machine at the same moment; each run's training seconds and its validation scores.

    python experiments/planets-values-alone/side_by_side.py runs/planets-time-values runs/planets-side 0 1

WORK_FROM: step 2's work directory (its data and the values alone's run config); OUT: where the
runs go (``models/<label>/seed<N>``, the layout ``val_scores.py`` reads, and ``data`` linked to
step 2's). Writes ``OUT/training.csv``: ``model, seed, samples, steps, train_seconds``.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

MODELS = {  # label -> (model.structure_tokens, samples)
    "xval+gmm": (True, 230400),
    "xval+gmm, values alone": (False, 368640),
}


def main(work_from: Path, out: Path, seeds: list[int]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    if not (out / "data").exists():
        (out / "data").symlink_to((work_from / "data").resolve())
    base = json.loads((work_from / "models" / "xval+gmm, values alone" / "seed0" / "config.json").read_text())
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    rows = ["model,seed,samples,steps,train_seconds"]
    for seed in seeds:
        procs = []
        for label, (tokens, samples) in MODELS.items():
            run = out / "models" / label / f"seed{seed}"
            run.mkdir(parents=True, exist_ok=True)
            config = copy.deepcopy(base)
            config.update(seed=seed, out_dir=str(run), budget={"samples": samples})
            config["data"]["path"] = str(out / "data")
            config["model"]["structure_tokens"] = tokens
            (run / "config.yaml").write_text(yaml.safe_dump(config))
            log = (run / "fit.log").open("w")
            procs.append(
                (label, run, subprocess.Popen(["scinum", "fit", "--config", str(run / "config.yaml")], stdout=log, stderr=log, env=env))
            )
        for label, run, p in procs:
            if p.wait() != 0:
                raise SystemExit(f"{run}: scinum fit exited {p.returncode} (see {run / 'fit.log'})")
            t = json.loads((run / "training.json").read_text())
            rows.append(f'"{label}",{seed},{t["budget"]["samples"]},{t["steps"]},{t["train_seconds"]}')
    (out / "training.csv").write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), [int(s) for s in sys.argv[3:]])
