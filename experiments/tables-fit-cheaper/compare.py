"""The candidates against the default on the development tables, and the declared rule
(README): per split, tables within 1.5× (3×) of the better of OLS and boosted trees, the
geometric mean of those ratios (means over seeds first), the share inside the 90 % interval,
and the median fit time; then each clause for each candidate, and the one adopted.

    python experiments/tables-fit-cheaper/compare.py [DEV_DIR]   # writes DEV_DIR/summary.md (and test/summary.md)
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
#: the clauses' allowances (README): geometric means at most this factor above the default's,
#: coverage at most this far below, the median fit time at most this share of the default's
GEOMEAN, COVERAGE, TIME = 1.05, 0.03, 0.75


def _summary():
    spec = importlib.util.spec_from_file_location("fit_budget_compare", ROOT / "experiments" / "tables-fit-budget" / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.summary


def figures(folder: Path) -> dict:
    """The candidate's figures: counts, geometric means, coverage, median fit CPU s."""
    frame = pd.read_csv(folder / "scores.csv")
    times = json.loads((folder / "fit-times.json").read_text())
    out = _summary()(frame, times)
    out["median_cpu_s"] = float(np.median([v["cpu_s"] for v in times.values()]))
    out["pairs"] = len(times)
    return out


def clauses(fig: dict, ref: dict) -> dict[str, bool]:
    """Each clause of the declared rule, ``fig`` against the default's ``ref``."""

    def count(f, key):
        return int(f[key].split(" of ")[0])

    ok = {}
    ok["1. above: within 1.5×, 3×"] = count(fig, "extrap: within 1.5×") >= count(ref, "extrap: within 1.5×") and count(
        fig, "extrap: within 3×"
    ) >= count(ref, "extrap: within 3×")
    ok["1. above: geometric mean"] = float(fig["extrap: geometric mean"]) <= GEOMEAN * float(ref["extrap: geometric mean"])
    ok["2. inside: within 1.5×"] = count(fig, "test: within 1.5×") >= count(ref, "test: within 1.5×")
    ok["2. inside: geometric mean"] = float(fig["test: geometric mean"]) <= GEOMEAN * float(ref["test: geometric mean"])
    ok["3. inside 90 %"] = all(float(fig[f"{s}: inside 90 %"]) >= float(ref[f"{s}: inside 90 %"]) - COVERAGE for s in ("extrap", "test"))
    ok["4. median fit time"] = fig["median_cpu_s"] <= TIME * ref["median_cpu_s"]
    return ok


def render(dev: Path) -> str:
    """``summary.md``'s text for the candidates under ``dev``."""
    names = sorted(p.name for p in dev.iterdir() if (p / "scores.csv").exists())
    names = ["default"] + [n for n in names if n != "default"]
    figs = {n: figures(dev / n) for n in names}
    ref = figs["default"]
    keys = [k for k in ref if k not in ("median_cpu_s", "pairs")]
    lines = [f"| 16 tables, seeds 0-1 | {' | '.join(names)} |", "|---|" + "---|" * len(names)]
    for k in keys:
        lines.append(f"| {k} | " + " | ".join(str(figs[n][k]) for n in names) + " |")
    lines.append("| fit, CPU s: median | " + " | ".join(f"{figs[n]['median_cpu_s']:.1f}" for n in names) + " |")
    lines += ["", "| clause (README) | " + " | ".join(names[1:]) + " |", "|---|" + "---|" * (len(names) - 1)]
    verdicts = {n: clauses(figs[n], ref) for n in names[1:]}
    for c in next(iter(verdicts.values())) if verdicts else []:
        lines.append(f"| {c} | " + " | ".join("yes" if verdicts[n][c] else "**no**" for n in names[1:]) + " |")
    passed = sorted((figs[n]["median_cpu_s"], n) for n in names[1:] if all(verdicts[n].values()))
    lines += ["", f"Meet every clause: {', '.join(n for _, n in passed) or 'none'}."]
    return "\n".join(lines) + "\n"


def main(dev: Path) -> str:
    text = render(dev)
    (dev / "summary.md").write_text(text)
    return text


#: the test run's candidates and their columns' labels
TESTED = {"default": "three members (the default when declared)", "one-member": "one member (adopted)"}


def test_tables(test: Path, names: dict[str, str] = TESTED) -> str:
    """The declared test tables (seeds 0-2), the candidates ``names`` (folder -> label; the
    default when declared first) side by side: per split the tables within 1.5× of the better
    standard model, those worse than 3×, the geometric mean, the share inside the 90 % interval
    and the median fit time; then per table."""
    ratios, figs = {}, {}
    for c in names:
        frame = pd.read_csv(test / c / "scores.csv")
        m = frame.groupby(["table", "split", "model"]).mse.mean().unstack("model")
        ratios[c] = m["scinum.Regressor"] / m[["linear (OLS)", "boosted trees"]].min(axis=1)
        times = json.loads((test / c / "fit-times.json").read_text())
        figs[c] = {"median_cpu_s": float(np.median([v["cpu_s"] for v in times.values()])), "frame": frame}
    rule = "|---|" + "---|" * len(names)
    lines = [f"| 12 test tables, seeds 0-2 | {' | '.join(names.values())} |", rule]
    for split, label in (("extrap", "above the range"), ("test", "inside the range")):
        cells = {c: ratios[c].xs(split, level="split") for c in names}
        lines.append(f"| {label}: within 1.5× | " + " | ".join(f"{int((r <= 1.5).sum())} of {len(r)}" for r in cells.values()) + " |")
        worse = [", ".join(f"{t} {v:.2f}×" for t, v in r[r > 3].items()) or "none" for r in cells.values()]
        lines.append(f"| {label}: worse than 3× | " + " | ".join(worse) + " |")
        lines.append(f"| {label}: geometric mean | " + " | ".join(f"{float(np.exp(np.log(r).mean())):.3f}" for r in cells.values()) + " |")
        cover = []
        for c in names:
            f = figs[c]["frame"]
            cover.append(f[(f.model == "scinum.Regressor") & (f.split == split)].inside_90.mean())
        lines.append(f"| {label}: inside 90 % | " + " | ".join(f"{v:.3f}" for v in cover) + " |")
    lines.append("| fit, CPU s: median | " + " | ".join(f"{figs[c]['median_cpu_s']:.1f}" for c in names) + " |")
    lines += ["", "| table, split | " + " | ".join(names.values()) + " |", rule]
    for table, split in ratios[next(iter(names))].index:
        lines.append(f"| {table}, {split} | " + " | ".join(f"{ratios[c][table, split]:.2f}×" for c in names) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "dev"))
    if (HERE / "test" / "one-member" / "scores.csv").exists():
        text = test_tables(HERE / "test")
        (HERE / "test" / "summary.md").write_text(text)
        print(text)
