"""The GPU check's table (README.md), from the benchmark's JSON files in this folder.

One row per run of ``benchmarks/paper_gpu_throughput.py`` (the planets ``paper`` preset's xVal
model, one process each): the first 500 steps' rate, the steady window's (steps after them, as
many as the run's time limit left), their ratio, the steady share of the bf16 peak measured in
the same process, and from every step's GPU time (CUDA events, start to end of the step): the
median of steps 1-99 on lengths seen before, the median of steps 100-499, the steps on a batch
length new to the process (count and median), and the longest step after step 1 (a recompile).

    python experiments/gpu-check-h200/table.py
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: (file, label): the gpu_check.sh call's four runs, then the tuned run again in a second call
RUNS = (
    ("paper_preset.json", "preset (lengths as the records make them, 4 workers)"),
    ("paper_tuned.json", "tuned (pad_to 128, 8 workers, pinned, fused AdamW)"),
    ("tuned_expandable.json", "tuned again, expandable allocator segments (2nd call)"),
    ("paper_tuned_compile.json", "tuned + trunk compiled, dynamic shapes"),
    ("paper_tuned_compile_static.json", "tuned + trunk compiled per length (static shapes)"),
)


def load(name: str) -> tuple[dict, list[dict]]:
    """A run's one row and its steps."""
    d = json.loads((HERE / name).read_text())
    (row,) = d["rows"]
    (steps,) = d["per_step"].values()
    return row, steps


def median_ms(steps: list[dict], lo: int, hi: int, seen_only: bool = False) -> float | None:
    ms = [s["gpu_ms"] for s in steps[lo:hi] if not (seen_only and s["new"])]
    return statistics.median(ms) if ms else None


def cells(name: str) -> list[str]:
    row, steps = load(name)
    f = lambda v, spec: "–" if v is None else format(v, spec)  # noqa: E731
    steady = row["steps_per_s"]
    return [
        f"{row['first_steps_per_s']:.1f} ({row['first_steps']})",
        "none reached" if steady is None else f"{steady:.1f} ({row['steps']})",
        f(row.get("first_vs_steady"), ".2f"),
        "–" if row["mfu_measured"] is None else f"{100 * row['mfu_measured']:.1f} %",
        f(median_ms(steps, 1, 100, seen_only=True), ".0f"),
        f(median_ms(steps, 100, 500), ".0f"),
        f"{row['new_steps']}: {row['new_median_ms']:.0f}",
        f"{max(s['gpu_ms'] for s in steps[1:]) / 1e3:.1f} s",
        f"{steps[0]['gpu_ms'] / 1e3:.1f} s",
    ]


HEADER = (
    "| run | first 500 steps: steps/s (steps) | steady: steps/s (steps) | first ÷ steady | steady share of the measured peak "
    "| ms a step, steps 1–99 on seen lengths | ms a step, steps 100–499 | new lengths: count, median ms "
    "| longest step after the first | first step |"
)


def table() -> str:
    lines = [HEADER, "|" + "---|" * 10]
    lines += ["| " + " | ".join([label, *cells(name)]) + " |" for name, label in RUNS]
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
