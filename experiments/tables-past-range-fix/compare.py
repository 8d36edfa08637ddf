"""The four test tables whose columns have quoted paths, scored again after the past-range fix,
beside the published scores of the default (experiments/tables-fit-cheaper/test/one-member), and
the twelve test tables' summary with those four replaced.

    python experiments/tables-fit-cheaper/fit_save.py MODELS one-member iris:0 ... fertility:2
    python experiments/tables-fit-cheaper/evaluate.py MODELS OUT one-member   # OUT/one-member/scores.csv -> scores.csv here
    python experiments/tables-past-range-fix/compare.py
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PUBLISHED = ROOT / "experiments" / "tables-fit-cheaper" / "test" / "one-member"
AFFECTED = ("breast_cancer", "fertility", "iris", "wine")
OURS, STANDARD = "scinum.Regressor", ["linear (OLS)", "boosted trees"]


def _summary():
    spec = importlib.util.spec_from_file_location("fit_budget_compare", ROOT / "experiments" / "tables-fit-budget" / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.summary


def frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    """(published, fixed): the twelve tables' scores before, and with the four re-scored."""
    before = pd.read_csv(PUBLISHED / "scores.csv")
    new = pd.read_csv(HERE / "scores.csv")
    assert set(new.table) == set(AFFECTED)
    after = pd.concat([before[~before.table.isin(AFFECTED)], new], ignore_index=True)
    return before, after


def ratios(frame: pd.DataFrame) -> pd.DataFrame:
    """Table x split: scinum's MSE over the better standard model's (means over seeds first)."""
    m = frame.groupby(["table", "split", "model"]).mse.mean().unstack("model")
    return (m[OURS] / m[STANDARD].min(axis=1)).unstack("split")


def affected_table() -> str:
    before, after = frames()
    rb, ra = ratios(before), ratios(after)
    cb, ca = (f[f.model == OURS].groupby(["table", "split"]).inside_90.mean().unstack("split") for f in (before, after))
    lines = [
        "| table | above the range: ratio before → after | inside 90 %, before → after | inside the range: ratio before → after |",
        "|---|---|---|---|",
    ]
    for t in AFFECTED:
        lines.append(
            f"| {t} | {rb.loc[t, 'extrap']:.2f}× → {ra.loc[t, 'extrap']:.2f}× "
            f"| {cb.loc[t, 'extrap']:.3f} → {ca.loc[t, 'extrap']:.3f} | {rb.loc[t, 'test']:.2f}× → {ra.loc[t, 'test']:.2f}× |"
        )
    return "\n".join(lines)


def summary_table() -> str:
    before, after = frames()
    times = json.loads((PUBLISHED / "fit-times.json").read_text())
    s = _summary()
    b, a = s(before, times), s(after, times)
    keys = [k for k in b if not k.startswith("fit")]
    lines = ["| 12 test tables, seeds 0–2 | published | after the fix |", "|---|---|---|"]
    lines += [f"| {k} | {b[k]} | {a[k]} |" for k in keys]
    worse = [", ".join(f"{t} {r:.2f}×" for t, r in ratios(f)["extrap"].items() if r > 3) or "none" for f in (before, after)]
    lines.append(f"| extrap: worse than 3× | {worse[0]} | {worse[1]} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(affected_table())
    print()
    print(summary_table())
