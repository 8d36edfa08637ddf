"""The default refitted at this commit (``fit_save.py --plain``) against its fit at 69e0d38: the
MSE of both on engel, seed 0, inside the range and above it.

    python experiments/tables-linear-baseline/check.py OLD_FIT NEW_FIT    # prints check.txt's lines
"""

import sys
import warnings
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "recipes"))
import tables_by_range as tbr  # noqa: E402
import scinum  # noqa: E402

torch.set_num_threads(1)
warnings.simplefilter("ignore")
X, y = tbr.load("engel")
idx = tbr.splits(X, "engel", 0)
for label, d in zip(("at 69e0d38", "at this commit"), sys.argv[1:3]):
    reg = scinum.Regressor.load(d)
    for split in ("test", "extrap"):
        print(
            f"engel seed 0 {split} {label}: MSE {float(np.mean((reg.predict(X.iloc[idx[split]]) - y.iloc[idx[split]].to_numpy()) ** 2))!r}"
        )
