"""MSE and 90 % interval coverage of saved fits as the Regressor predicted before
``scinum.fill.past_range``: the network's own mean and intervals, nothing widened.

    python experiments/tables-past-range/coverage_without_widening.py MODELS_DIR OUT.csv
"""

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import torch

torch.set_num_threads(1)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "recipes"))
import tables_by_range as tbr  # noqa: E402

import scinum  # noqa: E402
from scinum.fill import past_range  # noqa: E402

past_range.PastRange.combine = lambda self, p: p[: self.n].copy()  # the rows' own predictions, unwidened
warnings.simplefilter("ignore")
rows = []
for d in sorted(Path(sys.argv[1]).iterdir()):
    name, seed = d.name.rsplit("-", 1)
    seed = int(seed)
    X, y = tbr.load(name)
    idx = tbr.splits(X, name, seed)
    reg = scinum.Regressor.load(d).set_params(extrapolation="network")  # the saved params may name "linear"
    for split in ("test", "extrap"):
        Xs = X.iloc[idx[split]]
        ys = y.iloc[idx[split]].to_numpy()
        q = reg.predict_quantiles(Xs, [0.05, 0.95])
        p = reg.predict(Xs)
        rows.append(
            dict(
                table=name,
                seed=seed,
                split=split,
                mse=float(np.mean((p - ys) ** 2)),
                inside_90=float(np.mean((ys >= q[:, 0]) & (ys <= q[:, 1]))),
            )
        )
f = pd.DataFrame(rows)
f.to_csv(sys.argv[2], index=False)
print(f.groupby("split").inside_90.mean().round(3))
