"""Each run's training interval, from its run directory: ``model, seed, start, end`` (UTC
seconds), ``end`` the time its ``training.json`` was written and ``start`` that less its training
seconds. Step 10's clock (step 1's ``clock.csv`` was made the same way).

    python experiments/planets-half-time/clock.py OUT.csv MODEL=RUNS_DIR [MODEL=RUNS_DIR ...]

RUNS_DIR holds ``seed<N>/training.json`` (a recipe's ``models/<name>/``, or reference.py's OUT).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def rows(model: str, runs: Path) -> list[str]:
    out = []
    for t in sorted(runs.glob("seed*/training.json"), key=lambda p: int(p.parent.name[4:])):
        end = t.stat().st_mtime
        start = end - json.loads(t.read_text())["train_seconds"]
        out.append(f"{model},{int(t.parent.name[4:])},{start:.1f},{end:.1f}")
    return out


def main(out: Path, pairs: list[str]) -> None:
    lines = ["model,seed,start,end"]
    for pair in pairs:
        model, _, runs = pair.partition("=")
        lines += rows(model, Path(runs))
    out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2:])
