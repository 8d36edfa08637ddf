"""The table of experiments/parity.md's *Four heads, a₁ asked as often as e₁*: parity-b64-30min-4heads's
model with ``data.mask_fields`` [e₁, a₁] instead of [e₁] (each hidden in half the records), seeds
0-2 at the cap (``seedS`` here) and 0-4 at twice it (``samples921600/seedS``), the same at the cap
with nothing else hidden in a record where e₁ or a₁ is (``alone/seedS``), beside the four-heads
runs of the same budgets (``../seedS``, seeds 0-2; ``../curve/samples921600/seedS``, seeds 0, 1)
and the regressors fitted on the same records (compare-b64-30min's table).
``python experiments/planets-4heads/a1-asked/table.py`` prints it."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from statistics import mean

HERE = Path(__file__).parent
_spec = importlib.util.spec_from_file_location("heads_curve", HERE.parent / "curve" / "curve.py")
curve = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(curve)

LABELS = ("e₁ asked (four heads)", "e₁ and a₁ asked", "e₁ and a₁ asked, alone there")
#: (label, samples) -> the seeds run, in the table's order: the cap, then twice it
SEEDS = {
    (LABELS[0], 460800): (0, 1, 2),
    (LABELS[1], 460800): (0, 1, 2),
    (LABELS[2], 460800): (0, 1, 2),
    (LABELS[0], 921600): (0, 1),
    (LABELS[1], 921600): (0, 1, 2, 3, 4),
}


def folder(label: str, samples: int, seed: int) -> Path:
    """The run of ``label`` at ``samples`` and ``seed``: the four-heads runs and their curve, or this
    folder's (``alone/seedS``: nothing else hidden in a record where e₁ or a₁ is)."""
    if label == LABELS[0]:
        return curve.run_dir(samples, seed)
    if label == LABELS[2]:
        return HERE / "alone" / f"seed{seed}"
    return HERE / f"seed{seed}" if samples == 460800 else HERE / f"samples{samples}" / f"seed{seed}"


def cells(values: dict[tuple[str, str, str, str], float]) -> str:
    return " | ".join(curve.fmt(values[c[1:]], c[4]) for c in curve.COLUMNS)


def markdown() -> str:
    head = ["model", "samples", "seed", *(c[0] for c in curve.COLUMNS), "training s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (label, n), seeds in SEEDS.items():
        runs = {s: curve.table_scores(folder(label, n, s)) for s in seeds}
        for s in seeds:
            lines.append(
                f"| {label} | {curve.spaced(n)} | {s} | {cells(runs[s])} | {curve.spaced(curve.training_seconds(folder(label, n, s)))} |"
            )
        means = {c[1:]: mean(r[c[1:]] for r in runs.values()) for c in curve.COLUMNS}
        lines.append(f"| **{label}, mean** | {curve.spaced(n)} | {seeds[0]}–{seeds[-1]} | {cells(means)} | |")
    for name in ("ridge", "boosted trees"):
        ref = curve.regressor(name)
        lines.append(f"| {name} | | | " + " | ".join(curve.fmt(ref[c[1:]], c[4]) for c in curve.COLUMNS) + " | |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown())
