"""Fit ``scinum.Regressor(seed=seed)`` (its defaults, one thread) on the training rows of each
``TABLE:SEED`` (``recipes/tables_by_range.py``'s ``splits``) and save it to ``MODELS_DIR/TABLE-SEED``
with its fit time (``done.json``); a fit already saved is skipped.

    python experiments/tables-past-range/fit_save.py MODELS_DIR engel:0 engel:1 ...
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

out = Path(sys.argv[1])
for arg in sys.argv[2:]:
    name, seed = arg.rsplit(":", 1)
    seed = int(seed)
    d = out / f"{name}-{seed}"
    if (d / "done.json").exists():
        continue
    X, y = tbr.load(name)
    idx = tbr.splits(X, name, seed)
    t, c = time.time(), time.process_time()
    reg = scinum.Regressor(seed=seed).fit(X.iloc[idx["train"]], y.iloc[idx["train"]])
    wall, cpu = time.time() - t, time.process_time() - c
    reg.save(d)
    (d / "done.json").write_text(json.dumps({"wall_s": wall, "cpu_s": cpu, "rows": len(idx["train"]), "cols": X.shape[1] + 1}))
    print(name, seed, f"cpu {cpu:.0f}s wall {wall:.0f}s", flush=True)
