"""The tables of this folder's README: the `best` preset with a line under its network beside the
preset as published, on the development data (cap/ against ../planets-values-alone/cap/, seeds
0-4) and on the test data (fresh/ against ../planets-fresh-data/best/, build seed 2026, seeds
0-1), with ridge and boosted trees fitted by the same recipe on the same training orbits: the
mean over seeds, each seed in brackets.

    python experiments/planets-record-line/table.py
"""

from __future__ import annotations

import csv
from pathlib import Path
from statistics import mean

HERE = Path(__file__).resolve().parent
BEST, ON_A_LINE = "xval+gmm, values alone", "xval+gmm, values alone, on a line"
#: data -> (line folder, best's folder)
DATA = {
    "development (build seed 0)": (HERE / "cap", HERE.parent / "planets-values-alone" / "cap"),
    "test (build seed 2026)": (HERE / "fresh", HERE.parent / "planets-fresh-data" / "best"),
}
#: (column, field, split, metric)
COLUMNS = (
    ("e₁ R²", "description.planet0.e", "test", "r2"),
    ("a₁", "description.planet0.a", "test", "mse"),
    ("Δt", "description.stepsize", "test", "mse"),
    ("Δt OoD", "description.stepsize", "ood_stepsize", "mse"),
    ("a₁ OoD", "description.planet0.a", "ood_a1", "mse"),
)
Scores = dict[tuple[str, str, str], float]


def seeds(folder: Path, model: str) -> dict[int, Scores]:
    """seed -> (field, split, metric) -> value of ``model`` in ``folder``'s seeds.csv."""
    out: dict[int, Scores] = {}
    with open(folder / "seeds.csv") as f:
        for r in csv.DictReader(f):
            if r["model"] == model and r["kind"] == "model":
                for m in ("mse", "r2"):
                    out.setdefault(int(r["seed"]), {})[(r["field"], r["split"], m)] = float(r[m])
    return out


def regressor(name: str, folder: Path) -> Scores:
    """A standard regressor fitted on the same training orbits (the folder's table.csv)."""
    with open(folder / "table.csv") as f:
        return {(r["field"], r["split"], r["metric"]): float(r["mean"]) for r in csv.DictReader(f) if r["model"] == name}


def fmt(x: float, metric: str) -> str:
    return f"{x:.3f}" if metric == "r2" else f"{x:.2g}"


def rows(data: str) -> list[list[str]]:
    """The table's rows for one data set (the line model, the preset, ridge, boosted trees)."""
    line_folder, best_folder = DATA[data]
    out = []
    for label, model, folder in (("on a line", ON_A_LINE, line_folder), ("`best`", BEST, best_folder)):
        runs = seeds(folder, model)
        cells = [f"{label} ({len(runs)} seeds)"]
        for _, field, split, metric in COLUMNS:
            values = [runs[s][(field, split, metric)] for s in sorted(runs)]
            cells.append(f"{fmt(mean(values), metric)} ({', '.join(fmt(v, metric) for v in values)})")
        out.append(cells)
    for name in ("ridge", "boosted trees"):
        scores = regressor(name, line_folder)
        out.append([name, *(fmt(scores[(f, s, m)], m) for _, f, s, m in COLUMNS)])
    return out


def markdown(data: str, make_rows=None) -> str:
    """One data set's table in markdown; ``make_rows``: the rows' maker (default :func:`rows`)."""
    head = ["model", *(c[0] for c in COLUMNS)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in (make_rows or rows)(data)]
    return "\n".join(lines)


if __name__ == "__main__":
    for data, (folder, _) in DATA.items():
        if (folder / "seeds.csv").exists():
            print(f"{data}:\n\n{markdown(data)}\n")
