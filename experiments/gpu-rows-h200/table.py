"""The table of this folder's README: seven runs of ``benchmarks/paper_gpu_throughput.py`` on one
H200, in three calls, from the JSON files and profiles in call1/, call2/ and call3/.

Per run (the planets ``paper`` preset's xVal model, one process, 500 + 300 steps then 20
profiled): the first 500 steps' rate, the steady window's (300 steps), their ratio, the steady
share of the bf16 peak measured in the same process, the first step, the steps on an (M, length)
shape new to the process (count, median ms), the median GPU ms of the steady steps, the host's
wait for batches over the run, and the share of the profiled window's wall time the GPU's kernels
ran.

    python experiments/gpu-rows-h200/table.py
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: (JSON file, its profile, label)
RUNS = (
    ("call1/paper_tuned.json", "call1/profile-xval-tuned.txt", "1: tuned"),
    ("call1/paper_tuned_compile.json", "call1/profile-xval-tuned-compile.txt", "1: tuned + compiled"),
    ("call2/layout_tuned.json", "call2/profile-xval-tuned.txt", "2: tuned, layout in the main process"),
    ("call2/layout_tuned_nocudnn.json", None, "2: the same, cuDNN attention off"),
    ("call2/layout_tuned_compile.json", "call2/profile-xval-tuned-compile.txt", "2: tuned + compiled, layout in the main process"),
    ("call3/collate_tuned.json", "call3/profile-xval-tuned.txt", "3: tuned, layout in the loader"),
    ("call3/collate_tuned_compile.json", "call3/profile-xval-tuned-compile.txt", "3: tuned + compiled, layout in the loader"),
)


def load(name: str) -> tuple[dict, list[dict]]:
    """A run's one row and its steps."""
    d = json.loads((HERE / name).read_text())
    (row,) = d["rows"]
    (steps,) = d["per_step"].values()
    return row, steps


def busy(profile: str | None) -> str:
    """The share of the profiled window's wall time the GPU ran kernels: the profile's "Self CUDA
    time total" over the wall seconds of its first line. (Call 1's first line summed the optimizer
    step's annotation too, over 100 %; the benchmark now sums kernels alone, which equals the total.)"""
    if profile is None:
        return "–"  # its profile did not come back from the device
    text = (HERE / profile).read_text()
    wall = float(re.search(r": ([\d.]+) s wall", text.splitlines()[0]).group(1))  # type: ignore[union-attr]
    value, unit = re.search(r"Self CUDA time total: ([\d.]+)(ms|s)", text).groups()  # type: ignore[union-attr]
    kernels = float(value) / (1e3 if unit == "ms" else 1)
    return f"{100 * kernels / wall:.0f} %"


def cells(name: str, profile: str | None) -> list[str]:
    row, steps = load(name)
    return [
        f"{row['first_steps_per_s']:.1f}",
        f"{row['steps_per_s']:.1f}",
        f"{row['first_vs_steady']:.2f}",
        f"{100 * row['mfu_measured']:.1f} %",
        f"{steps[0]['gpu_ms'] / 1e3:.1f} s",
        f"{row['new_steps']}: {row['new_median_ms']:.0f}",
        f"{statistics.median(s['gpu_ms'] for s in steps[500:800]):.1f}",
        f"{row['wait_s']:.1f} s",
        busy(profile),
    ]


HEADER = (
    "| run | first 500 steps: steps/s | steady steps/s | first ÷ steady | steady share of the measured peak | first step "
    "| new shapes: count, median ms | steady steps: median ms | host waiting for batches | GPU busy (20 profiled steps) |"
)


def table() -> str:
    lines = [HEADER, "|" + "---|" * 10]
    lines += ["| " + " | ".join([label, *cells(name, profile)]) + " |" for name, profile, label in RUNS]
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
