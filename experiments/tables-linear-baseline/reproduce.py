"""The product's default (``scinum.Regressor(seed=SEED)``, a line where the edges choose it, read at
the edge past the range) against this experiment's fit of the same rule on one development table:
the MSE of both, inside the range and above it.

    python experiments/tables-linear-baseline/reproduce.py statecrime 0 > experiments/tables-linear-baseline/reproduce.txt
"""

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
from recipes import tables_by_range as tbr  # noqa: E402
import scinum  # noqa: E402

torch.set_num_threads(1)
warnings.simplefilter("ignore")
name, seed = sys.argv[1], int(sys.argv[2])
X, y = tbr.load(name)
idx = tbr.splits(X, name, seed)
reg = scinum.Regressor(seed=seed).fit(X.iloc[idx["train"]], y.iloc[idx["train"]])
old = pd.read_csv(HERE / "dev" / "scores.csv")
old = old[(old.table == name) & (old.seed == seed) & (old.model == "line + network held at the edge")]
print(f"{name} seed {seed}: the line {'kept' if reg.line_ is not None else 'not kept'}")
for split in ("test", "extrap"):
    mse = float(np.mean((reg.predict(X.iloc[idx[split]]) - y.iloc[idx[split]].to_numpy()) ** 2))
    print(f"{split}: the product {mse!r}, the experiment {float(old[old.split == split].mse.iloc[0])!r}")
