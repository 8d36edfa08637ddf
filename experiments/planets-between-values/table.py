"""The table of README.md, from ``predictions.csv.gz`` (``evaluate.py``'s fills).

Per build, split and widening: 95 % intervals' coverage (share of numbers whose truth lies in
them; seeds pooled, then the range over seeds), their mean width and the mean interval score at
95 % (width, plus 40 times how far the truth lies outside: lower is better; Gneiting and
Raftery 2007). ``ood_stepsize`` is also split into step sizes between the training values
(0.2-0.8) and past them.

    python experiments/planets-between-values/table.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ALPHA = 0.05
LOW, HIGH = 0.2, 0.8  # the training step sizes' range


def scored() -> pd.DataFrame:
    f = pd.read_csv(HERE / "predictions.csv.gz")
    f["cover"] = (f.lo95 <= f.true) & (f.true <= f.hi95)
    f["width"] = f.hi95 - f.lo95
    f["score"] = f.width + 2 / ALPHA * (np.maximum(0, f.lo95 - f.true) + np.maximum(0, f.true - f.hi95))
    between = (f.true >= LOW) & (f.true <= HIGH)
    f["where"] = np.where(f.split == "test", "at the training values (test)", np.where(between, "between them", "past them"))
    return f


def rows(f: pd.DataFrame) -> list[list[str]]:
    out = []
    for (build, where), g in f.groupby(["build", "where"], sort=False):
        cells = [build, f"{where} ({g.record.nunique()} records)"]
        for widening in ("off", "on"):
            w = g[g.widening == widening]
            seeds = w.groupby("seed").cover.mean()
            cells.append(f"{w.cover.mean():.3f} ({seeds.min():.3f}–{seeds.max():.3f})")
        for key, spec in (("width", ".4f"), ("score", ".3f")):
            a, b = (g[g.widening == x][key].mean() for x in ("off", "on"))
            cells.append(f"{a:{spec}} → {b:{spec}}")
        out.append(cells)
    return out


HEADER = "| build | Δt records | 95 % coverage, before | after | mean width | interval score |"


def table() -> str:
    return "\n".join([HEADER, "|---|---|---|---|---|---|", *("| " + " | ".join(r) + " |" for r in rows(scored()))])


if __name__ == "__main__":
    print(table())
