"""Two run configs trained side by side for the same seconds (``budget.seconds``), one process
and one thread each, started together; prints each one's steps, training seconds and samples a
second, and the ratio (step 2's cost clause; step 1's probe ran the same way by hand, the old
side with e5afef6's code: probe.txt).

    python experiments/planets-half-time/probe.py OUT SECONDS A.json B.json

A/B: run configs (a run's ``config.json``); each trains into ``OUT/a`` and ``OUT/b`` with only
``out_dir`` and ``budget`` changed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml


def main(out: Path, seconds: float, configs: list[Path]) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    procs = []
    for name, path in zip("ab", configs):
        run = out / name
        run.mkdir(parents=True, exist_ok=True)
        config = json.loads(path.read_text())
        config.update(out_dir=str(run), budget={"seconds": seconds})
        config["trainer"].pop("max_steps", None)
        (run / "config.yaml").write_text(yaml.safe_dump(config))
        log = (run / "fit.log").open("w")
        procs.append((run, subprocess.Popen(["scinum", "fit", "--config", str(run / "config.yaml")], stdout=log, stderr=log, env=env)))
    rates = []
    for (run, p), path in zip(procs, configs):
        if p.wait() != 0:
            raise SystemExit(f"{run}: scinum fit exited {p.returncode} (see {run / 'fit.log'})")
        t = json.loads((run / "training.json").read_text())
        rates.append(t["steps"] * t["batch_size"] / t["train_seconds"])
        print(f"{path}: {t['steps']} steps in {t['train_seconds']:.3f} s, {rates[-1]:.1f} samples/s")
    print(f"ratio b/a: {rates[1] / rates[0]:.3f}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), float(sys.argv[2]), [Path(p) for p in sys.argv[3:5]])
