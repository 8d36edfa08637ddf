"""Fit ``scinum.Regressor(seed=seed)`` under a candidate budget rule (one thread) on the training
rows of each ``TABLE:SEED`` (``recipes/tables_by_range.py``'s ``splits``) and save it to
``MODELS_DIR/TABLE-SEED`` with its fit time and budget (``done.json``); a fit already saved is
skipped. The rule replaces :func:`scinum.estimator.training_samples` for this process:

- ``floor-steps``: the floor counted in optimizer steps, not records: at least 625 steps
  (``min_samples`` 20,000 ÷ batch 32) of ``min(32, rows)`` records, so a table of fewer than 32
  training rows is no longer seen 20,000 ÷ rows times a member; every other table unchanged.
- ``quarter``: a quarter of the default's budget everywhere: at least 156 steps, at most 25,000
  cells a member (the default: 625 steps' worth of records, 100,000 cells).
- ``floor-over-cap``: ``floor-steps`` with the floor above the cap of cells: at least 625 steps
  however many cells a record holds (a table of more than 5 cells a row was capped below the floor).

    python experiments/tables-fit-budget/fit_save.py RULE MODELS_DIR engel:0 engel:1 ...
"""

import json
import sys
import time
from pathlib import Path

import torch

torch.set_num_threads(1)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "recipes"))
import tables_by_range as tbr  # noqa: E402
import scinum  # noqa: E402
import scinum.estimator as est  # noqa: E402

BATCH = est.DEFAULTS["data"]["batch_size"]
RULES = {"floor-steps": (625, 100_000), "quarter": (156, 25_000), "floor-over-cap": (625, 100_000)}  # (min steps, max cells)


def rule(name: str):
    min_steps, max_cells = RULES[name]

    def training_samples(n_train: int, cells: float, epochs: float, min_steps_default: int, batch_size: int, max_cells_default: int) -> int:
        # the estimator's signature (scinum.estimator.training_samples); the rule's own floor and cap
        floor = min_steps * min(BATCH, n_train)
        want = max(epochs * n_train, floor)
        capped = min(want, max_cells / max(cells, 1.0))
        return int(max(capped, floor if name == "floor-over-cap" else 0, n_train, 1))

    return training_samples


if __name__ == "__main__":
    name_of_rule, out = sys.argv[1], Path(sys.argv[2])
    est.training_samples = rule(name_of_rule)
    for arg in sys.argv[3:]:
        name, seed = arg.rsplit(":", 1)
        d = out / f"{name}-{seed}"
        if (d / "done.json").exists():
            continue
        X, y = tbr.load(name)
        idx = tbr.splits(X, name, int(seed))
        t, c = time.time(), time.process_time()
        reg = scinum.Regressor(seed=int(seed)).fit(X.iloc[idx["train"]], y.iloc[idx["train"]])
        wall, cpu = time.time() - t, time.process_time() - c
        reg.save(d)
        samples = reg.config_["budget"]["samples"]
        info = {"wall_s": wall, "cpu_s": cpu, "rows": len(idx["train"]), "cols": X.shape[1] + 1, "rule": name_of_rule, "samples": samples}
        (d / "done.json").write_text(json.dumps(info))
        print(name, seed, f"cpu {cpu:.0f}s wall {wall:.0f}s samples {samples}", flush=True)
