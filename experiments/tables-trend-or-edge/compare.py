"""The rule declared in the README, ``held`` against ``trend`` on the development tables, and the
test tables' figures when they exist.

    python experiments/tables-trend-or-edge/compare.py     # writes dev/summary.md (and test/summary.md)
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
#: the clauses' allowances (README): the geometric mean inside the range at most this factor above
#: the trend's, coverage at most this far below
GEOMEAN_INSIDE, COVERAGE = 1.05, 0.03


def _cheaper():
    spec = importlib.util.spec_from_file_location("fit_cheaper_compare", ROOT / "experiments" / "tables-fit-cheaper" / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def clauses(fig: dict, ref: dict) -> dict[str, bool]:
    """The declared rule's clauses, ``held``'s figures ``fig`` against ``trend``'s ``ref``."""

    def count(f, key):
        return int(f[key].split(" of ")[0])

    return {
        "1. above: within 1.5×, 3×": all(count(fig, f"extrap: within {x}") >= count(ref, f"extrap: within {x}") for x in ("1.5×", "3×")),
        "1. above: geometric mean": float(fig["extrap: geometric mean"]) <= float(ref["extrap: geometric mean"]),
        "2. inside: within 1.5×": count(fig, "test: within 1.5×") >= count(ref, "test: within 1.5×"),
        "2. inside: geometric mean": float(fig["test: geometric mean"]) <= GEOMEAN_INSIDE * float(ref["test: geometric mean"]),
        "3. inside 90 %": all(float(fig[f"{s}: inside 90 %"]) >= float(ref[f"{s}: inside 90 %"]) - COVERAGE for s in ("extrap", "test")),
    }


def per_table(folder: Path, names: list[str]) -> str:
    """Per (table, split) the ratio of each rule's mean MSE over seeds to the better of OLS and trees."""
    ratios = {}
    for n in names:
        m = pd.read_csv(folder / n / "scores.csv").groupby(["table", "split", "model"]).mse.mean().unstack("model")
        ratios[n] = m["scinum.Regressor"] / m[["linear (OLS)", "boosted trees"]].min(axis=1)
    lines = ["| table, split | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for table, split in ratios[names[0]].index:
        cells = [f"{ratios[n][table, split]:.2f}×" for n in names]
        if cells[0] != cells[1]:
            lines.append(f"| {table}, {split} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def dev_summary(dev: Path) -> str:
    cheaper = _cheaper()
    names = ["trend", "held"]
    figs = {n: cheaper.figures(dev / n) for n in names}
    keys = [k for k in figs["trend"] if k not in ("median_cpu_s", "pairs")]
    lines = ["| 16 tables, seeds 0-1 | the line carried on (before) | held where its edges say (candidate) |", "|---|---|---|"]
    lines += [f"| {k} | {figs['trend'][k]} | {figs['held'][k]} |" for k in keys]
    ok = clauses(figs["held"], figs["trend"])
    lines += ["", "| clause (README) | held |", "|---|---|"] + [f"| {c} | {'yes' if v else '**no**'} |" for c, v in ok.items()]
    lines += ["", f"Adopted: {'yes' if all(ok.values()) else 'no'}.", ""]
    lines += ["Where the two differ (mean MSE over seeds ÷ the better of OLS and trees):", ""]
    return "\n".join(lines) + "\n" + per_table(dev, names)


def holds_summary(folder: Path) -> str:
    h = pd.read_csv(folder / "holds.csv")
    h = h[h.held]
    if h.empty:
        return "No line holds any input.\n"
    return "Held (table, seed: input side): " + "; ".join(f"{r.table} {r.seed}: {r.input} {r.side}" for r in h.itertuples()) + "\n"


if __name__ == "__main__":
    dev = HERE / "dev"
    text = dev_summary(dev) + "\n" + holds_summary(dev)
    (dev / "summary.md").write_text(text)
    print(text)
    test = HERE / "test"
    if (test / "held" / "scores.csv").exists():
        names = {"trend": "the line carried on (before)", "held": "held where its edges say (adopted)"}
        text = _cheaper().test_tables(test, names) + "\n" + holds_summary(test)
        (test / "summary.md").write_text(text)
        print(text)
    sys.exit(0)
