"""The budget rules side by side on the development tables: for each rule, per split, how many
tables ``scinum.Regressor`` (the default ``extrapolation="network"``) is within 1.5× (and 3×) of
the better of OLS and boosted trees on, the geometric mean of those MSE ratios (means over seeds
0-1 first), the share of held-out targets inside the 90 % interval, and the median fit time.

The first column reads experiments/tables-past-range/dev (the default's fits at e378632, before the
curvature penalty ran in the step's own pass); the others this folder's fits (``fit_save.py``, at
69e0d38). A rule that changes only some tables (``floor-steps``: the tables under 32 training
rows) takes the others from the default's fits, as the rule gives them the default's budget.

    python experiments/tables-fit-budget/compare.py    # writes experiments/tables-fit-budget/dev/summary.md
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
from recipes.tables_by_range import STANDARD  # noqa: E402

OURS = "scinum.Regressor"
BEFORE = ROOT / "experiments" / "tables-past-range" / "dev"
DEV = HERE / "dev"
#: rule -> the folders of its fits, a later folder's tables replacing an earlier's: a rule that
#: changes only some tables (``floor-steps``: those under 32 training rows; ``floor-over-cap``:
#: those the cap of cells held below the floor) gives the others the budget they had before
RULES = {
    "default, before the speedup (e378632)": (BEFORE,),
    "capped (69e0d38)": (DEV / "default",),
    "floor-steps": (DEV / "default", DEV / "floor-steps"),
    "quarter": (DEV / "quarter",),
    "floor-over-cap (the default now)": (DEV / "default", DEV / "floor-steps", DEV / "floor-over-cap"),
}


def scores(*folders: Path) -> tuple[pd.DataFrame, dict]:
    """The scores (OLS, trees and ours) and fit times of ``folders``' fits, a later folder's
    tables replacing an earlier's."""
    frame, times = pd.DataFrame(), {}
    for folder in folders:
        own = pd.read_csv(folder / "scores.csv")
        frame = pd.concat([frame[~frame.table.isin(set(own.table))], own]) if len(frame) else own
        times = {k: v for k, v in times.items() if k.rsplit("-", 1)[0] not in set(own.table)}
        times.update(json.loads((folder / "fit-times.json").read_text()))
    return frame, times


def summary(frame: pd.DataFrame, times: dict) -> dict[str, str]:
    m = frame.groupby(["table", "split", "model"]).mse.mean().unstack("model")
    ratio = m[OURS] / m[list(STANDARD)].min(axis=1)
    out = {}
    for split in ("extrap", "test"):
        r = ratio.xs(split, level="split")
        out[f"{split}: within 1.5×"] = f"{int((r <= 1.5).sum())} of {len(r)}"
        out[f"{split}: within 3×"] = f"{int((r <= 3).sum())} of {len(r)}"
        out[f"{split}: geometric mean"] = f"{float(np.exp(np.log(r).mean())):.3f}"
        cov = frame[(frame.model == OURS) & (frame.split == split)].inside_90.mean()
        out[f"{split}: inside 90 %"] = f"{cov:.3f}"
    cpu = [v["cpu_s"] for v in times.values()]
    out["fit, CPU s: median (min-max)"] = f"{np.median(cpu):.0f} ({min(cpu):.0f}-{max(cpu):.0f})"
    return out


#: the development tables with fewer than 32 training rows: the only ones ``floor-steps`` changes
TINY = ("committee", "copper", "linnerud", "longley", "scotland", "stackloss")


def tiny() -> str:
    """The tables ``floor-steps`` changes, seeds 0-3: MSE ratio (mean over seeds first) per table
    and split under the default and under ``floor-steps``."""
    ratios = {}
    for rule in ("default", "floor-steps"):
        f = pd.concat([pd.read_csv(DEV / rule / "scores.csv"), pd.read_csv(DEV / f"{rule}-seeds-2-3" / "scores.csv")])
        f = f[f.table.isin(TINY)]
        assert sorted(set(f.seed)) == [0, 1, 2, 3], rule
        m = f.groupby(["table", "split", "model"]).mse.mean().unstack("model")
        ratios[rule] = m[OURS] / m[list(STANDARD)].min(axis=1)
    lines = ["| table, split (seeds 0-3) | default | floor-steps |", "|---|---|---|"]
    for (table, split), r in ratios["default"].items():
        lines.append(f"| {table}, {split} | {r:.2f}× | {ratios['floor-steps'][table, split]:.2f}× |")
    for split in ("extrap", "test"):
        cells = []
        for rule in ratios:
            r = ratios[rule].xs(split, level="split")
            cells.append(f"{int((r <= 1.5).sum())} of {len(r)} within 1.5×, geometric mean {float(np.exp(np.log(r).mean())):.3f}")
        lines.append(f"| {split}: all six | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


#: the development tables whose budget the cap of cells holds below the floor
CAPPED = ("elnino", "star98", "statecrime")


def capped() -> str:
    """The capped development tables, seeds 0-1: MSE ratio per table and split, capped (the
    default) and with the floor above the cap (``floor-over-cap``)."""
    ratios = {}
    for rule in ("default", "floor-over-cap"):
        f = pd.read_csv(DEV / rule / "scores.csv")
        f = f[f.table.isin(CAPPED)]
        m = f.groupby(["table", "split", "model"]).mse.mean().unstack("model")
        ratios[rule] = m[OURS] / m[list(STANDARD)].min(axis=1)
    lines = ["| table, split (seeds 0-1) | default (capped) | floor over the cap |", "|---|---|---|"]
    for (table, split), r in ratios["default"].items():
        lines.append(f"| {table}, {split} | {r:.2f}× | {ratios['floor-over-cap'][table, split]:.2f}× |")
    return "\n".join(lines) + "\n"


def capped_test() -> str:
    """The rule ``floor-over-cap`` read once on the declared test tables, seeds 0-2: the five it
    changes refitted under it (test/floor-over-cap), the other seven unchanged (their default fits,
    experiments/tables-past-range/test): per table and the counts of the issue's targets."""
    before = pd.read_csv(ROOT / "experiments" / "tables-past-range" / "test" / "scores.csv")
    refit = pd.read_csv(HERE / "test" / "floor-over-cap" / "scores.csv")
    assert sorted(set(refit.seed)) == sorted(set(before.seed)) == [0, 1, 2]
    after = pd.concat([before[~before.table.isin(set(refit.table))], refit])
    ratios = {}
    for name, f in (("default", before), ("floor-over-cap", after)):
        m = f.groupby(["table", "split", "model"]).mse.mean().unstack("model")
        ratios[name] = m[OURS] / m[list(STANDARD)].min(axis=1)
    lines = ["| test table, split (seeds 0-2) | default (capped) | floor over the cap |", "|---|---|---|"]
    for table in sorted(set(refit.table)):
        for split in ("extrap", "test"):
            lines.append(f"| {table}, {split} | {ratios['default'][table, split]:.2f}× | {ratios['floor-over-cap'][table, split]:.2f}× |")
    for split in ("extrap", "test"):
        cells = []
        for name, r in ratios.items():
            r = r.xs(split, level="split")
            cells.append(f"{int((r <= 1.5).sum())} of {len(r)} within 1.5×, {int((r > 3).sum())} worse than 3×")
        lines.append(f"| {split}: all twelve | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> str:
    cols = {name: summary(*scores(*folders)) for name, folders in RULES.items()}
    keys = list(next(iter(cols.values())))
    lines = ["| development tables, seeds 0-1 | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    lines += [f"| {k} | " + " | ".join(c[k] for c in cols.values()) + " |" for k in keys]
    return "\n".join(lines) + "\n\n" + tiny() + "\n" + capped() + "\n" + capped_test()


if __name__ == "__main__":
    text = main()
    (HERE / "dev").mkdir(exist_ok=True)
    (HERE / "dev" / "summary.md").write_text(text)
    print(text)
