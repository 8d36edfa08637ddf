"""Read afterwards on the same development fits (not declared before them): the default's
prediction and the line's, blended. Per (table, seed, split) the MSE of
``(1 - w) · default + w · (line + network)`` and of ``(1 - w) · default + w · (line + network held
at the edge)`` for ``w`` in 0, 1/3, 1/2, 2/3, 1, beside OLS and boosted trees; the default's fits
are the ones ``evaluate.py`` compared with (under ``FITS``: ``foc``, ``floor-steps`` or ``default``,
the first that holds the table and seed). Blending costs the fits of both: twice the default's.

    python experiments/tables-linear-baseline/blend.py MODELS_DIR FITS OUT.csv
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import LinearRegression

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "recipes"))
import tables_by_range as tbr  # noqa: E402
import scinum  # noqa: E402

WEIGHTS = {"0": 0.0, "1/3": 1 / 3, "1/2": 0.5, "2/3": 2 / 3, "1": 1.0}


def default_fit(fits: Path, name: str, seed: int) -> Path:
    for rule in ("foc", "floor-steps", "default"):
        d = fits / rule / f"{name}-{seed}"
        if (d / "done.json").exists():
            return d
    raise FileNotFoundError(f"no default fit of {name} seed {seed} under {fits}")


def main(models: Path, fits: Path, out: Path) -> None:
    from evaluate import clipped, line_of  # this folder: on sys.path when run as a script

    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    rows = []
    for d in sorted(p for p in models.iterdir() if (p / "done.json").exists()):
        name, seed = d.name.rsplit("-", 1)
        seed = int(seed)
        done = json.loads((d / "done.json").read_text())
        X, y = tbr.load(name)
        idx = tbr.splits(X, name, seed)
        line, plain = scinum.Regressor.load(d), scinum.Regressor.load(default_fit(fits, name, seed))
        Xt, yt = X.iloc[idx["train"]], y.iloc[idx["train"]]
        ols, trees = LinearRegression().fit(Xt, yt), HistGradientBoostingRegressor(random_state=seed).fit(Xt, yt)
        for split in ("test", "extrap"):
            Xs, ys = X.iloc[idx[split]], y.iloc[idx[split]].to_numpy()
            base, own = line_of(done, Xs), plain.predict(Xs)
            readings = {"network": base + line.predict(Xs), "edge": base + line.predict(clipped(Xs, line.models_[0].ranges.ranges))}
            row = dict(
                table=name, seed=seed, split=split, ols=np.mean((ols.predict(Xs) - ys) ** 2), trees=np.mean((trees.predict(Xs) - ys) ** 2)
            )
            for reading, pred in readings.items():
                for label, w in WEIGHTS.items():
                    row[f"{reading} w={label}"] = float(np.mean(((1 - w) * own + w * pred - ys) ** 2))
            rows.append(row)
        print(name, seed, file=sys.stderr, flush=True)
    frame = pd.DataFrame(rows)
    frame.to_csv(out, index=False)
    print(summary(frame))


def summary(frame: pd.DataFrame) -> str:
    """Markdown: per blend, per split, tables within 1.5× and 3× of the better of OLS and trees and
    the geometric mean of the ratios (MSE means over seeds first)."""
    m = frame.groupby(["table", "split"]).mean(numeric_only=True)
    ratio = m.drop(columns=["seed", "ols", "trees"]).div(m[["ols", "trees"]].min(axis=1), axis=0)
    lines = [
        "| blend (share w of the line's) | " + " | ".join(f"{s}: within 1.5× / 3× / geometric mean" for s in ("extrap", "test")) + " |"
    ]
    lines.append("|---|---|---|")
    for col in ratio.columns:
        cells = []
        for split in ("extrap", "test"):
            r = ratio[col].xs(split, level="split")
            cells.append(f"{int((r <= 1.5).sum())} / {int((r <= 3).sum())} of {len(r)} / {float(np.exp(np.log(r).mean())):.3f}")
        lines.append(f"| {col} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
