"""Two more means past the range, read on the development fits only: the clamp (the network's
prediction at the row clipped into the range, what boosted trees do) and halfway between it and
the network's own, beside the network's own (the default). Per seed MSE to OUT.csv; prints each
table's ratio to the better of OLS and boosted trees, mean over seeds.

    python experiments/tables-past-range/clamp_and_half.py MODELS_DIR OUT.csv
"""

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import LinearRegression

torch.set_num_threads(1)
from evaluate import saved_fits  # noqa: E402  (this folder: on sys.path when run as a script)

warnings.simplefilter("ignore")
rows = []
for name, seed, X, y, idx, reg in saved_fits(Path(sys.argv[1])):
    r = reg.models_[0].ranges.ranges
    ols = LinearRegression().fit(X.iloc[idx["train"]], y.iloc[idx["train"]])
    tr = HistGradientBoostingRegressor(random_state=seed).fit(X.iloc[idx["train"]], y.iloc[idx["train"]])
    for split in ("test", "extrap"):
        Xs = X.iloc[idx[split]]
        ys = y.iloc[idx[split]].to_numpy()
        Xc = Xs.copy()
        for c in Xc.columns:
            if str(c) in r:
                Xc[c] = Xc[c].clip(*r[str(c)])
        pm = reg.predict(Xs)
        pc = reg.predict(Xc)
        mse = lambda p: float(np.mean((p - ys) ** 2))
        rows.append(
            dict(
                table=name,
                seed=seed,
                split=split,
                network=mse(pm),
                clamp=mse(pc),
                half=mse((pm + pc) / 2),
                ols=mse(ols.predict(Xs)),
                trees=mse(tr.predict(Xs)),
            )
        )
pd.DataFrame(rows).to_csv(sys.argv[2], index=False)
f = pd.DataFrame(rows).groupby(["table", "split"]).mean(numeric_only=True)
best = f[["ols", "trees"]].min(axis=1)
r = f[["network", "clamp", "half"]].div(best, axis=0)
for split in ("test", "extrap"):
    x = r.xs(split, level="split")
    print(split)
    print(x.round(2).T.to_string())
    print(
        "geomean",
        np.exp(np.log(x).mean()).round(3).to_dict(),
        "within1.5",
        (x <= 1.5).sum().to_dict(),
        "within3",
        (x <= 3).sum().to_dict(),
        "of",
        len(x),
    )
