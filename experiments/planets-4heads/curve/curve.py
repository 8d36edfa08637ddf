"""The budget curve of experiments/parity.md's *Four heads past the cap*: parity-b64-30min-4heads's
model trained on 460 800 (the cap), 921 600 and 1 382 400 samples, seeds 0 and 1
(``samplesN/seedS`` here; 460 800 is the preset's own runs, ``../seedS``), beside the regressors
fitted on the same records (compare-b64-30min's table), and a₁'s error by range at twice the cap.
``python experiments/planets-4heads/curve/curve.py`` prints it."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from statistics import mean

HERE = Path(__file__).parent
FOUR_HEADS = HERE.parent
RESULTS = FOUR_HEADS.parent
SAMPLES = (460800, 921600, 1382400)
SEEDS = (0, 1)
#: (column, field, split, subset, metric); ``subset`` splits ood_stepsize into the step sizes
#: between the four of training (interp) and past them (extrap)
COLUMNS = (
    ("e₁ test R²", "description.planet0.e", "test", "all", "r2"),
    ("a₁ test", "description.planet0.a", "test", "all", "mse"),
    ("a₁ OoD", "description.planet0.a", "ood_a1", "all", "mse"),
    ("Δt test", "description.stepsize", "test", "all", "mse"),
    ("Δt OoD", "description.stepsize", "ood_stepsize", "all", "mse"),
    ("Δt OoD, between", "description.stepsize", "ood_stepsize", "interp", "mse"),
    ("Δt OoD, past", "description.stepsize", "ood_stepsize", "extrap", "mse"),
)


def run_dir(samples: int, seed: int) -> Path:
    return FOUR_HEADS / f"seed{seed}" if samples == 460800 else HERE / f"samples{samples}" / f"seed{seed}"


def table_scores(folder: Path) -> dict[tuple[str, str, str, str], float]:
    """(field, split, subset, metric) -> value of the model in ``folder``'s table.csv."""
    with open(folder / "table.csv") as f:
        return {(r["field"], r["split"], r["subset"], m): float(r[m]) for r in csv.DictReader(f) for m in ("mse", "r2")}


def scores(samples: int, seed: int) -> dict[tuple[str, str, str, str], float]:
    """:func:`table_scores` of the run with ``samples`` and ``seed``."""
    return table_scores(run_dir(samples, seed))


def training_seconds(folder: Path) -> float:
    """The training seconds of the run in ``folder`` (its training.json)."""
    return json.loads((folder / "training.json").read_text())["train_seconds"]


def training_s(samples: int, seed: int) -> float:
    return training_seconds(run_dir(samples, seed))


def spaced(x: float) -> str:
    """``x`` rounded, thousands apart by a space: 460 800."""
    return f"{x:,.0f}".replace(",", " ")


def regressor(name: str) -> dict[tuple[str, str, str, str], float]:
    """The same keys for a regressor of compare-b64-30min (its subsets written as ``split:subset``)."""
    out = {}
    with open(RESULTS / "planets-compare-b64-30min" / "table.csv") as f:
        for r in csv.DictReader(f):
            if r["model"] == name:
                split, _, subset = r["split"].partition(":")
                out[(r["field"], split, subset or "all", r["metric"])] = float(r["mean"])
    return out


#: a₁'s ranges in a1-by-range: planet 0 the innermost (a₁ = 1, the length unit), then by value
A1_RANGES = (("a₁ = 1 (planet 0 the innermost)", 1.0, 1.0), ("a₁ in (1, 2]", 1.0, 2.0), ("a₁ in (2, 3]", 2.0, 3.0))
A1_MODELS = ("xval+gmm", "ridge", "boosted trees")


def a1_by_range() -> dict[str, dict[str, tuple[int, float]]]:
    """range -> model -> (records, MSE) of a₁ on the test split: twice the cap, seed 1, beside the
    regressors fitted by the same ``scinum evaluate`` (a1-by-range/predictions.csv)."""
    with open(HERE / "a1-by-range" / "predictions.csv") as f:
        rows = list(csv.DictReader(f))
    out: dict[str, dict[str, tuple[int, float]]] = {}
    for name, lo, hi in A1_RANGES:
        out[name] = {}
        for model in A1_MODELS:
            inside = [r for r in rows if r["model"] == model and (lo < float(r["true"]) <= hi or lo == hi == float(r["true"]))]
            out[name][model] = (len(inside), mean((float(r["pred"]) - float(r["true"])) ** 2 for r in inside))
    return out


def a1_markdown() -> str:
    lines = ["| records | n | four heads, twice the cap, seed 1 | ridge | boosted trees |", "|---|---|---|---|---|"]
    for name, by_model in a1_by_range().items():
        cells = " | ".join(fmt(by_model[m][1], "mse") for m in A1_MODELS)
        lines.append(f"| {name} | {by_model[A1_MODELS[0]][0]} | {cells} |")
    return "\n".join(lines)


def fmt(x: float, metric: str) -> str:
    return f"{x:.3f}" if metric == "r2" else f"{x:.2g}"


def markdown() -> str:
    lines = ["| samples | seed | " + " | ".join(c[0] for c in COLUMNS) + " | training s |", "|" + "---|" * (len(COLUMNS) + 3)]
    for n in SAMPLES:
        runs = {s: scores(n, s) for s in SEEDS}
        for s in SEEDS:
            cells = " | ".join(fmt(runs[s][c[1:]], c[4]) for c in COLUMNS)
            lines.append(f"| {spaced(n)} | {s} | {cells} | {spaced(training_s(n, s))} |")
        cells = " | ".join(fmt(mean(runs[s][c[1:]] for s in SEEDS), c[4]) for c in COLUMNS)
        lines.append(f"| {spaced(n)} | mean | {cells} | |")
    for name in ("ridge", "boosted trees"):
        ref = regressor(name)
        cells = " | ".join(fmt(ref[c[1:]], c[4]) if c[1:] in ref else "–" for c in COLUMNS)
        lines.append(f"| {name} | | {cells} | |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown(), a1_markdown(), sep="\n\n")
