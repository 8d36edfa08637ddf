"""The table of this folder's README: the `best` preset (values alone, best/) and the four-heads
model it replaced (four-heads/) on planets data of build seed 2026, seeds 0-1, beside ridge and
boosted trees fitted by the same recipe on the same training orbits; test split and Δt between
the training step sizes, each seed and the mean, and each run's training seconds.

    python experiments/planets-fresh-data/table.py
"""

from __future__ import annotations

import csv
from pathlib import Path
from statistics import mean

HERE = Path(__file__).resolve().parent
MODELS = {"best": "xval+gmm, values alone", "four-heads": "xval+gmm"}  # folder -> model label
#: (column, field, split, metric)
COLUMNS = (
    ("e₁ R²", "description.planet0.e", "test", "r2"),
    ("a₁", "description.planet0.a", "test", "mse"),
    ("Δt", "description.stepsize", "test", "mse"),
    ("Δt OoD", "description.stepsize", "ood_stepsize", "mse"),
    ("a₁ OoD", "description.planet0.a", "ood_a1", "mse"),
)
Scores = dict[tuple[str, str, str], float]


def seeds(folder: str) -> dict[int, Scores]:
    """seed -> (field, split, metric) -> value of the folder's model (its seeds.csv)."""
    out: dict[int, Scores] = {}
    with open(HERE / folder / "seeds.csv") as f:
        for r in csv.DictReader(f):
            if r["model"] == MODELS[folder] and r["kind"] == "model":
                for m in ("mse", "r2"):
                    out.setdefault(int(r["seed"]), {})[(r["field"], r["split"], m)] = float(r[m])
    return out


def regressor(name: str, folder: str = "best") -> Scores:
    """A standard regressor fitted on the same training orbits (the folder's table.csv)."""
    with open(HERE / folder / "table.csv") as f:
        return {(r["field"], r["split"], r["metric"]): float(r["mean"]) for r in csv.DictReader(f) if r["model"] == name}


def training_seconds(folder: str) -> dict[int, float]:
    """seed -> training seconds of the folder's runs (training.csv)."""
    with open(HERE / folder / "training.csv") as f:
        return {int(r["seed"]): float(r["train_seconds"]) for r in csv.DictReader(f)}


def fmt(x: float, metric: str) -> str:
    return f"{x:.3f}" if metric == "r2" else f"{x:.2g}"


def markdown() -> str:
    head = ["model", "samples", "training s (seed 0, 1)", *(c[0] for c in COLUMNS)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for folder, samples in (("best", "737 280"), ("four-heads", "460 800")):
        runs, secs = seeds(folder), training_seconds(folder)
        cells = [f"`{MODELS[folder]}` ({folder})", samples, ", ".join(f"{secs[s]:,.0f}".replace(",", " ") for s in sorted(secs))]
        for _, field, split, metric in COLUMNS:
            values = [runs[s][(field, split, metric)] for s in sorted(runs)]
            cells.append(f"{fmt(mean(values), metric)} ({', '.join(fmt(v, metric) for v in values)})")
        lines.append("| " + " | ".join(cells) + " |")
    for name in ("ridge", "boosted trees"):
        ref = regressor(name)
        lines.append("| " + " | ".join([name, "", "", *(fmt(ref[(f, s, m)], m) for _, f, s, m in COLUMNS)]) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown())
