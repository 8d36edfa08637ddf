"""How often the default's 90 % interval holds the held-out target on the test tables: the fits
of ``experiments/tables-past-range/fit_save.py`` (``scinum.Regressor(seed=s)``, today's defaults,
saved), read with their defaults (``extrapolation="auto"``). Per (table, seed, split): the MSE
(the recipe's figure for the same fit, checked against ``test/scores.csv``), the share of
targets inside the central 90 % interval, the mean predicted standard deviation, and whether the
fit kept a line.

    python experiments/tables-linear-baseline/coverage.py MODELS_DIR experiments/tables-linear-baseline/test/coverage.csv
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import torch

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from recipes import tables_by_range as tbr  # noqa: E402
import scinum  # noqa: E402


def main(models: Path, out: Path) -> None:
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    rows = []
    for d in sorted(p for p in models.iterdir() if (p / "done.json").exists()):
        name, seed = d.name.rsplit("-", 1)
        X, y = tbr.load(name)
        idx = tbr.splits(X, name, int(seed))
        reg = scinum.Regressor.load(d)
        for split in ("test", "extrap"):
            Xs, ys = X.iloc[idx[split]], y.iloc[idx[split]].to_numpy()
            pred, std = reg.predict(Xs, return_std=True)
            q = reg.predict_quantiles(Xs, [0.05, 0.95])
            rows.append(
                dict(
                    table=name,
                    seed=int(seed),
                    split=split,
                    mse=float(np.mean((pred - ys) ** 2)),
                    inside_90=float(np.mean((ys >= q[:, 0]) & (ys <= q[:, 1]))),
                    mean_std=float(np.mean(std)),
                    line=reg.line_ is not None,
                    n=len(ys),
                )
            )
        print(name, seed, file=sys.stderr, flush=True)
    pd.DataFrame(rows).to_csv(out, index=False)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
