"""Score the fits of ``fit_save.py`` (the network on what a least-squares line leaves) on their
held-out splits, beside OLS and boosted trees fitted on the same training rows, and compare them
with the default's own fits on the development tables.

    python experiments/tables-linear-baseline/evaluate.py MODELS_DIR OUT_DIR [DEFAULT_SCORES.csv ...]

Rows of ``OUT_DIR/scores.csv`` (per table, seed, split):
- ``line + network``: ``ŷ_OLS(x) + r(x)``, ``r`` the saved regressor (its default past-range rule:
  the network's own mean, intervals widening), its quantiles shifted by the line;
- ``line + network held at the edge``: ``ŷ_OLS(x) + r(c)``, ``c`` the row with its inputs clipped
  into the ranges its networks trained on (the same as above for a row inside them).
``OUT_DIR/table.md``: ``recipes/tables_by_range.py``'s table of MSE ratios; ``OUT_DIR/summary.md``:
the counts of the declared rule (README) for the default (``DEFAULT_SCORES``, a later file's
tables replacing an earlier's) and each reading.
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

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from recipes import tables_by_range as tbr  # noqa: E402
import scinum  # noqa: E402

NETWORK, CLAMP, DEFAULT = "line + network", "line + network held at the edge", "scinum.Regressor"
OLS, TREES = tbr.STANDARD


def line_of(done: dict, X: pd.DataFrame) -> np.ndarray:
    """The saved least-squares line's predictions for the rows of ``X``."""
    line = done["line"]
    assert line["columns"] == [str(c) for c in X.columns]
    return X.to_numpy(np.float64) @ np.asarray(line["coef"]) + line["intercept"]


def clipped(X: pd.DataFrame, ranges: dict) -> pd.DataFrame:
    """``X`` with every column the model knows clipped into its training ``[min, max]``."""
    X = X.copy()
    for c in X.columns:
        if str(c) in ranges:
            X[c] = X[c].clip(*ranges[str(c)])
    return X


def score(models: Path) -> tuple[pd.DataFrame, dict]:
    torch.set_num_threads(1)
    rows, times = [], {}
    for d in sorted(p for p in models.iterdir() if (p / "done.json").exists()):
        name, seed = d.name.rsplit("-", 1)
        seed = int(seed)
        done = json.loads((d / "done.json").read_text())
        times[d.name] = done
        X, y = tbr.load(name)
        idx = tbr.splits(X, name, seed)
        reg = scinum.Regressor.load(d).set_params(extrapolation="network")
        trees = HistGradientBoostingRegressor(random_state=seed).fit(X.iloc[idx["train"]], y.iloc[idx["train"]])
        ranges = reg.models_[0].ranges.ranges
        for split in ("test", "extrap"):
            Xs, ys = X.iloc[idx[split]], y.iloc[idx[split]].to_numpy()
            base = line_of(done, Xs)

            def row(label, pred, inside=np.nan, std=np.nan):
                mse = float(np.mean((np.asarray(pred) - ys) ** 2))
                return dict(table=name, seed=seed, model=label, split=split, mse=mse, n=len(ys), inside_90=inside, mean_std=std)

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for label, Xq in ((NETWORK, Xs), (CLAMP, clipped(Xs, ranges))):
                    r, std = reg.predict(Xq, return_std=True)
                    q = reg.predict_quantiles(Xq, [0.05, 0.95]) + base[:, None]
                    inside = float(np.mean((ys >= q[:, 0]) & (ys <= q[:, 1])))
                    rows.append(row(label, base + r, inside, float(np.mean(std))))
            rows += [row(OLS, base), row(TREES, trees.predict(Xs))]
        print(name, seed, file=sys.stderr, flush=True)
    return pd.DataFrame(rows), times


def counts(frame: pd.DataFrame, model: str) -> dict[str, str]:
    """The declared rule's counts for ``model``: per split, tables within 1.5× and 3× of the better
    of OLS and trees (MSE means over seeds first) and the geometric mean of the ratios."""
    m = frame.groupby(["table", "split", "model"]).mse.mean().unstack("model")
    ratio = m[model] / m[[OLS, TREES]].min(axis=1)
    out = {}
    for split in ("extrap", "test"):
        r = ratio.xs(split, level="split")
        out[f"{split}: within 1.5×"] = f"{int((r <= 1.5).sum())} of {len(r)}"
        out[f"{split}: within 3×"] = f"{int((r <= 3).sum())} of {len(r)}"
        out[f"{split}: geometric mean"] = f"{float(np.exp(np.log(r).mean())):.3f}"
        cov = frame[(frame.model == model) & (frame.split == split)].inside_90.mean()
        out[f"{split}: inside 90 %"] = f"{cov:.3f}"
    return out


def default_scores(files: list[Path]) -> pd.DataFrame:
    frame = pd.DataFrame()
    for f in files:
        own = pd.read_csv(f)
        frame = pd.concat([frame[~frame.table.isin(set(own.table))], own]) if len(frame) else own
    return frame[frame.model == DEFAULT]


def main(models: Path, out: Path, defaults: list[Path]) -> None:
    frame, times = score(models)
    out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out / "scores.csv", index=False)
    (out / "fit-times.json").write_text(json.dumps({k: {"cpu_s": v["cpu_s"], "wall_s": v["wall_s"]} for k, v in times.items()}, indent=1))
    both = frame
    columns = [NETWORK, CLAMP]
    if defaults:
        own = default_scores(defaults)
        keys = set(zip(frame.table, frame.seed))
        own = own[[k in keys for k in zip(own.table, own.seed)]]
        assert set(zip(own.table, own.seed)) == keys, "the default's scores cover other (table, seed) pairs"
        both = pd.concat([own, frame])
        columns = [DEFAULT, *columns]
    (out / "table.md").write_text(tbr.table(both))
    stats = {c: counts(both, c) for c in columns}
    lines = ["| " + f"{len(set(frame.table))} tables, seeds {sorted(set(frame.seed))} | " + " | ".join(columns) + " |"]
    lines.append("|---|" + "---|" * len(columns))
    for key in stats[columns[0]]:
        lines.append(f"| {key} | " + " | ".join(stats[c][key] for c in columns) + " |")
    cpu = [v["cpu_s"] for v in times.values()]
    fit = f"{np.median(cpu):.0f} ({min(cpu):.0f}-{max(cpu):.0f})"
    lines.append("| fit, CPU s: median (min-max), this folder's fits | " + " | ".join("" if c == DEFAULT else fit for c in columns) + " |")
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print(tbr.table(both))
    print("\n".join(lines))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), [Path(p) for p in sys.argv[3:]])
