"""The reference side of the side-by-side runs (README, step 2): the `best` preset of the day
issue 64 was filed (e5afef6: ``parity-b64-30min-4heads``, reading every token, 460 800 samples),
trained with that commit's code, one seed after another, one thread, then scored with that code.

    python experiments/planets-half-time/reference.py OLD_SRC DATA OUT SEED [SEED ...]

OLD_SRC: a checkout of e5afef6 (``git worktree add --detach /work/old e5afef6``); DATA: the
planets data of build seed 0 (the half-time run's ``data``); OUT: ``seed<N>/`` a run each, with
its ``config.yaml``, ``training.json``, ``fit.log`` and ``eval/`` (``scinum evaluate --limit 200
--no-baselines`` on test and the OoD splits). Writes ``OUT/training.csv``: ``model, seed,
samples, steps, train_seconds``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
#: the old preset's run config as its published seed 0 ran it (planets-4heads) ...
CONFIG = HERE.parent / "planets-4heads" / "seed0" / "config.json"
#: ... with the trainer keys of e5afef6's recipes/planets.yaml preset (its runs validated every 400)
TRAINER = {"accelerator": "auto", "val_check_interval": 1600, "checkpoint_every_n_steps": 1600}
LABEL = "xval+gmm(mse1,avg0.99,4heads)"


def _scinum(old_src: Path, words: list[str], log: Path) -> None:
    """``scinum WORDS`` with the old checkout's package first on the path, one thread."""
    env = {**os.environ, "PYTHONPATH": str(old_src), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    code = "import sys; from scinum.cli.main import main; sys.argv = ['scinum', *sys.argv[1:]]; sys.exit(main())"
    with log.open("a") as out:
        rc = subprocess.run([sys.executable, "-c", code, *words], stdout=out, stderr=out, env=env, cwd=old_src).returncode
    if rc != 0:
        raise SystemExit(f"scinum {words[0]} exited {rc} (see {log})")


def main(old_src: Path, data: Path, out: Path, seeds: list[int]) -> None:
    rows = ["model,seed,samples,steps,train_seconds"]
    for seed in seeds:
        run = (out / f"seed{seed}").resolve()
        run.mkdir(parents=True, exist_ok=True)
        config = json.loads(CONFIG.read_text())
        config.update(seed=seed, out_dir=str(run))
        config["data"]["path"] = str(data.resolve())
        config["trainer"].update(TRAINER)
        config["trainer"].pop("max_steps")  # resolved again from the budget
        (run / "config.yaml").write_text(yaml.safe_dump(config))
        _scinum(old_src, ["fit", "--config", str(run / "config.yaml")], run / "fit.log")
        ckpt = run / "model.ckpt"  # the averaged weights, calibrated
        _scinum(
            old_src,
            [
                "evaluate",
                "--ckpt",
                str(ckpt),
                "--data",
                str(data.resolve()),
                "--out",
                str(run / "eval"),
                "--labels",
                LABEL,
                "--limit",
                "200",
                "--no-baselines",
            ],
            run / "fit.log",
        )
        t = json.loads((run / "training.json").read_text())
        rows.append(f'"{LABEL}",{seed},{t["budget"]["samples"]},{t["steps"]},{t["train_seconds"]}')
        (out / "training.csv").write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), [int(s) for s in sys.argv[4:]])
