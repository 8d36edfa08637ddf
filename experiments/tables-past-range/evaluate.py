"""Score saved ``scinum.Regressor`` fits (``fit_save.py``) on their held-out splits, past the
input range as the default predicts (``extrapolation="network"``: the network's mean, intervals
widening) and continued linearly from the edge (``"linear"``), beside OLS and boosted trees
fitted on the same training rows.

    python experiments/tables-past-range/evaluate.py MODELS_DIR OUT_DIR

Writes ``OUT_DIR/scores.csv`` (one row per table, seed, model, split: MSE, the share of the
split's targets inside the central 90 % interval, the mean predicted standard deviation) and
``OUT_DIR/table.md`` (``recipes/tables_by_range.py``'s table of MSE ratios).
"""

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "recipes"))
import tables_by_range as tbr  # noqa: E402

import scinum  # noqa: E402
from sklearn.ensemble import HistGradientBoostingRegressor  # noqa: E402
from sklearn.linear_model import LinearRegression  # noqa: E402

MODES = {"scinum.Regressor": "network", "scinum.Regressor, continued linearly past the range": "linear"}


def saved_fits(models: Path):
    """``(name, seed, X, y, splits, regressor)`` of every fit ``fit_save.py`` saved under
    ``models``, in name order; the regressor set to the default ``extrapolation="network"`` (the
    saved parameters may name another)."""
    for d in sorted(p for p in models.iterdir() if (p / "done.json").exists()):
        name, seed = d.name.rsplit("-", 1)
        X, y = tbr.load(name)
        yield name, int(seed), X, y, tbr.splits(X, name, int(seed)), scinum.Regressor.load(d).set_params(extrapolation="network")


def main(models: Path, out: Path) -> None:
    torch.set_num_threads(1)
    rows = []
    for name, seed, X, y, idx, reg in saved_fits(models):
        fitted = {"linear (OLS)": LinearRegression(), "boosted trees": HistGradientBoostingRegressor(random_state=seed)}
        for m in fitted.values():
            m.fit(X.iloc[idx["train"]], y.iloc[idx["train"]])
        for split in ("test", "extrap"):
            Xs, ys = X.iloc[idx[split]], y.iloc[idx[split]].to_numpy()

            def row(label, pred, inside=np.nan, std=np.nan):
                mse = float(np.mean((np.asarray(pred) - ys) ** 2))
                return dict(table=name, seed=seed, model=label, split=split, mse=mse, n=len(ys), inside_90=inside, mean_std=std)

            for label, mode in MODES.items():
                reg.set_params(extrapolation=mode)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    pred, std = reg.predict(Xs, return_std=True)
                    q = reg.predict_quantiles(Xs, [0.05, 0.95])
                rows.append(row(label, pred, float(np.mean((ys >= q[:, 0]) & (ys <= q[:, 1]))), float(np.mean(std))))
            rows += [row(label, m.predict(Xs)) for label, m in fitted.items()]
        print(name, seed, file=sys.stderr)
    frame = pd.DataFrame(rows)
    out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out / "scores.csv", index=False)
    (out / "table.md").write_text(tbr.table(frame))
    times = {p.parent.name: json.loads(p.read_text()) for p in sorted(models.glob("*/done.json"))}
    (out / "fit-times.json").write_text(json.dumps(times, indent=1))
    print(tbr.table(frame))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
