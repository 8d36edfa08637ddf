"""Fit ordinary least squares on the training rows of each ``TABLE:SEED``
(``recipes/tables_by_range.py``'s ``splits``), then ``scinum.Regressor(seed=seed)`` (its defaults,
one thread) on what the line leaves, ``y - ŷ_OLS(x)``; save the regressor to
``MODELS_DIR/TABLE-SEED`` and the line and the fit time to its ``done.json``. A fit already saved
is skipped. ``--plain``: the default itself (``y``, no line), to check old fits against this commit.

    python experiments/tables-linear-baseline/fit_save.py MODELS_DIR engel:0 engel:1 ...
    python experiments/tables-linear-baseline/fit_save.py --plain MODELS_DIR engel:0
"""

import json
import sys
import time
from pathlib import Path

import torch
from sklearn.linear_model import LinearRegression

torch.set_num_threads(1)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "recipes"))
import tables_by_range as tbr  # noqa: E402
import scinum  # noqa: E402

args = sys.argv[1:]
plain = args[0] == "--plain"
out = Path(args[plain])
for arg in args[plain + 1 :]:
    name, seed = arg.rsplit(":", 1)
    d = out / f"{name}-{seed}"
    if (d / "done.json").exists():
        continue
    X, y = tbr.load(name)
    idx = tbr.splits(X, name, int(seed))
    Xt, yt = X.iloc[idx["train"]], y.iloc[idx["train"]]
    t, c = time.time(), time.process_time()
    line = LinearRegression().fit(Xt, yt)
    target = yt if plain else yt - line.predict(Xt)
    reg = scinum.Regressor(seed=int(seed)).fit(Xt, target)
    wall, cpu = time.time() - t, time.process_time() - c
    reg.save(d)
    done = {"wall_s": wall, "cpu_s": cpu, "rows": len(idx["train"]), "cols": X.shape[1] + 1, "plain": plain}
    done["line"] = {"coef": line.coef_.tolist(), "intercept": float(line.intercept_), "columns": [str(c) for c in X.columns]}
    (d / "done.json").write_text(json.dumps(done))
    print(name, seed, f"cpu {cpu:.0f}s wall {wall:.0f}s", flush=True)
