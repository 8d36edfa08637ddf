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
from evaluate import saved_fits  # noqa: E402  (this folder: on sys.path when run as a script)

from scinum.fill import past_range  # noqa: E402

past_range.PastRange.combine = lambda self, p: p[: self.n].copy()  # the rows' own predictions, unwidened
warnings.simplefilter("ignore")
rows = []
for name, seed, X, y, idx, reg in saved_fits(Path(sys.argv[1])):
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
