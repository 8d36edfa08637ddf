"""The table of experiments/parity.md's *Four heads*: parity-b64-30min-4heads's runs (seeds 0-4, this
folder) beside the same model with two heads (parity-b64-30min-avg: the weight-average runs'
``avg0.99``, seeds 0-4) and the regressors fitted on the same records (compare-b64-30min's table).
``python experiments/planets-4heads/table.py`` prints it."""

from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path
from statistics import mean

HERE = Path(__file__).parent
RESULTS = HERE.parent
_spec = importlib.util.spec_from_file_location("attention_table", RESULTS / "planets-attention" / "table.py")
_attention = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_attention)
largest_share = _attention.largest_share

SEEDS = (0, 1, 2, 3, 4)
#: (column, field, split, metric)
COLUMNS = (
    ("e₁ test R²", "description.planet0.e", "test", "r2"),
    ("a₁ test", "description.planet0.a", "test", "mse"),
    ("a₁ OoD", "description.planet0.a", "ood_a1", "mse"),
    ("Δt test", "description.stepsize", "test", "mse"),
    ("Δt OoD", "description.stepsize", "ood_stepsize", "mse"),
)


def scores(path: Path, model: str) -> dict[tuple[str, str, str], float]:
    """(field, split, metric) -> value of ``model`` in an evaluation's table.csv (every record)."""
    with open(path) as f:
        return {
            (r["field"], r["split"], m): float(r[m])
            for r in csv.DictReader(f)
            if r["model"] == model and r["subset"] == "all"
            for m in ("mse", "r2")
        }


def four_heads(seed: int) -> dict[tuple[str, str, str], float]:
    return scores(HERE / f"seed{seed}" / "table.csv", "xval+gmm")


def two_heads(seed: int) -> dict[tuple[str, str, str], float]:
    return scores(RESULTS / "planets-weight-average" / f"seed{seed}" / "table.csv", "avg0.99")


def regressor(name: str) -> dict[tuple[str, str, str], float]:
    with open(RESULTS / "planets-compare-b64-30min" / "table.csv") as f:
        return {(r["field"], r["split"], r["metric"]): float(r["mean"]) for r in csv.DictReader(f) if r["model"] == name}


def training_s(seed: int) -> float:
    return json.loads((HERE / f"seed{seed}" / "training.json").read_text())["train_seconds"]


def fmt(x: float, metric: str) -> str:
    return f"{x:.3f}" if metric == "r2" else f"{x:.2g}"


def markdown() -> str:
    last = "planet 0's first positions: largest share of one head"
    head = "| model | seed | " + " | ".join(c[0] for c in COLUMNS) + f" | training s | {last} |"
    lines = [head, "|" + "---|" * (len(COLUMNS) + 4)]
    runs = {s: four_heads(s) for s in SEEDS}
    for s in SEEDS:
        cells = " | ".join(fmt(runs[s][c[1:]], c[3]) for c in COLUMNS)
        share, layer, h = largest_share(HERE / f"seed{s}" / "attention.csv")
        seconds = f"{training_s(s):,.0f}".replace(",", " ")
        lines.append(f"| four heads | {s} | {cells} | {seconds} | {share:.2f} (layer {layer}, head {h}) |")
    for label, per_seed in (("**four heads, mean**", runs), ("two heads (parity-b64-30min-avg), mean", {s: two_heads(s) for s in SEEDS})):
        cells = " | ".join(fmt(mean(per_seed[s][c[1:]] for s in SEEDS), c[3]) for c in COLUMNS)
        lines.append(f"| {label} | 0–4 | {cells} | | |")
    for name in ("ridge", "boosted trees"):
        ref = regressor(name)
        cells = " | ".join(fmt(ref[c[1:]], c[3]) for c in COLUMNS)
        lines.append(f"| {name} | | {cells} | | |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown())
