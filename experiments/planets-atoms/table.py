"""The table of this folder's README, from predictions.csv.gz (evaluate.py).

Per build and split: a₁'s MSE for scinum with the move onto the atom off and on (the mean over
seeds, with the seeds' range), ridge and the boosted trees (seed 0, one fit), how many of
scinum's predictions moved (all seeds), and the share of 95 % intervals that hold the truth.

    python experiments/planets-atoms/table.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
BUILDS = ("development (build 0)", "test (build 2718)")
SPLITS = {"test": "test (a₁ as in training)", "ood_a1": "ood_a1 (a₁ in the gap above 1.0)"}


def frame() -> pd.DataFrame:
    p = pd.read_csv(HERE / "predictions.csv.gz")
    return p.assign(se=(p.pred - p.true) ** 2, covered=(p.lo95 <= p.true) & (p.true <= p.hi95))


def figures(p: pd.DataFrame, build: str, split: str) -> dict[str, float]:
    """MSE per model (scinum: mean, min and max over seeds), moved predictions, 95 % coverage."""
    g = p[(p.build == build) & (p.split == split)]
    out: dict[str, float] = {}
    for state in ("off", "on"):
        per_seed = g[g.atoms == state].groupby("seed").se.mean()
        out[f"{state}"], out[f"{state}_lo"], out[f"{state}_hi"] = per_seed.mean(), per_seed.min(), per_seed.max()
        out[f"{state}_cover"] = g[g.atoms == state].covered.mean()
    for model in ("ridge", "boosted trees"):
        out[model] = g[g.atoms == model].se.mean()
    off = g[g.atoms == "off"].sort_values(["seed", "record"])
    on = g[g.atoms == "on"].sort_values(["seed", "record"])
    out["moved"] = float((off.pred.to_numpy() != on.pred.to_numpy()).sum())
    out["predictions"] = float(len(on))
    out["moved_off_atom"] = float(((off.pred.to_numpy() != on.pred.to_numpy()) & ~np.isclose(on.true.to_numpy(), 1.0)).sum())
    return out


def table() -> str:
    p = frame()
    lines = [
        "| build | split | scinum, atoms off | scinum, atoms on | ridge | boosted trees | moved (truth not 1.0) | 95 % coverage off → on |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for build in BUILDS:
        for split, shown in SPLITS.items():
            f = figures(p, build, split)
            cells = [
                f"{f['off']:.6f} ({f['off_lo']:.6f}–{f['off_hi']:.6f})",
                f"**{f['on']:.6f}** ({f['on_lo']:.6f}–{f['on_hi']:.6f})",
                f"{f['ridge']:.6f}",
                f"{f['boosted trees']:.6f}",
                f"{f['moved']:.0f} of {f['predictions']:.0f} ({f['moved_off_atom']:.0f})",
                f"{f['off_cover']:.3f} → {f['on_cover']:.3f}",
            ]
            lines.append("| " + " | ".join([build, shown, *cells]) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
