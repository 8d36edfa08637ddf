"""The declared rule (README) read off the published per-seed scores: for each candidate the mean
MSE over seeds of each column against ``none``'s, the cost ratio from ``costs.txt`` (the output
of ``experiments/probe-costs/mixup_cost.py``), each clause, and the candidate adopted.

    python experiments/quick-xval-mixup/verdict.py [dev]     # prints the table (markdown)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
#: (label, field, split) of the columns the rule reads
COLUMNS = (
    ("a₁", "description.planet0.a", "test"),
    ("a₁ (OoD)", "description.planet0.a", "ood_a1"),
    ("e₁", "description.planet0.e", "test"),
    ("Δt", "description.stepsize", "test"),
    ("Δt (OoD)", "description.stepsize", "ood_stepsize"),
)
#: the candidates and the mixup share each trains with
SHARES = {"mixup-quarter": 0.25, "mixup-half": 0.5, "mixup": 1.0}
#: the clauses' limits: cost per sample, Δt (OoD) against none's, the other columns against none's
COST, OOD, OTHERS = 1.3, 0.9, 1.25


def means(folder: Path) -> pd.DataFrame:
    """Mean MSE over seeds: model x column label (the models' rows only)."""
    f = pd.read_csv(folder / "seeds.csv")
    f = f[(f.kind == "model") & (f.subset == "all")] if "subset" in f else f[f.kind == "model"]
    out = {}
    for label, field, split in COLUMNS:
        out[label] = f[(f.field == field) & (f.split == split)].groupby("model").mse.mean()
    return pd.DataFrame(out)


def costs(path: Path) -> dict[str, float]:
    """Share -> cost ratio against none, from ``mixup_cost.py``'s output lines."""
    out = {}
    for m in re.finditer(r"share (\S+) training cost: .*?= ([\d.]+)x", path.read_text()):
        out[float(m.group(1))] = float(m.group(2))
    return out


def verdict(folder: Path) -> tuple[pd.DataFrame, dict[str, dict[str, bool]], str | None]:
    """``(means, clauses per candidate, the adopted candidate or None)``."""
    m = means(folder)
    ratio = costs(HERE / "costs.txt") if (HERE / "costs.txt").exists() else {}
    ref = m.loc["none"]
    clauses = {}
    for c, share in SHARES.items():
        row = m.loc[c]
        clauses[c] = {
            "1. cost ≤ 1.3×": share in ratio and ratio[share] <= COST,
            "2. Δt (OoD) ≤ 0.9×": row["Δt (OoD)"] <= OOD * ref["Δt (OoD)"],
            "3. a₁, a₁ (OoD), e₁, Δt ≤ 1.25×": all(row[k] <= OTHERS * ref[k] for k in ("a₁", "a₁ (OoD)", "e₁", "Δt")),
        }
    passing = [c for c in SHARES if all(clauses[c].values())]
    adopted = min(passing, key=lambda c: m.loc[c, "Δt (OoD)"]) if passing else None
    return m, clauses, adopted


def render(folder: Path) -> str:
    m, clauses, adopted = verdict(folder)
    lines = ["| mean MSE, seeds 0–2 | " + " | ".join(m.columns) + " |", "|---|" + "---|" * len(m.columns)]
    for model in ["none", *SHARES]:
        lines.append(f"| {model} | " + " | ".join(f"{v:.3g}" for v in m.loc[model]) + " |")
    lines += ["", "| clause | " + " | ".join(SHARES) + " |", "|---|" + "---|" * len(SHARES)]
    for k in next(iter(clauses.values())):
        lines.append(f"| {k} | " + " | ".join("yes" if clauses[c][k] else "**no**" for c in SHARES) + " |")
    lines += ["", f"Adopted: {adopted or 'none'}."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render(HERE / (sys.argv[1] if len(sys.argv) > 1 else "dev")))
