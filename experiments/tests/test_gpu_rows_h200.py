"""experiments/gpu-rows-h200: the table and the figures its README quotes, recomputed from the
benchmark's JSON files and profiles beside it."""

from __future__ import annotations

import statistics
from pathlib import Path

from published import readme, script

ROOT = Path(__file__).resolve().parents[2]
FOLDER = "gpu-rows-h200"
HERE = ROOT / "experiments" / FOLDER


def test_the_readme_table_is_table_py_s():
    assert script(FOLDER, "table").table() in (HERE / "README.md").read_text(encoding="utf-8")


def test_the_first_windows_cost_and_the_hosts_gap_are_the_files():
    table = script(FOLDER, "table")
    text = readme(FOLDER)
    row, steps = table.load("call1/paper_tuned.json")
    seen = statistics.median(s["gpu_ms"] for s in steps[:500] if not s["new"])
    extra = sum(s["gpu_ms"] - seen for s in steps[:500] if s["new"])
    assert row["new_steps"] == 15 and round(extra / 1e3, 1) == 4.4 and round(row["first_s"], 1) == 21.9
    assert "the 15 new shapes cost 4.4 s of the first window's 21.9 s" in text
    row, _ = table.load("call3/collate_tuned_compile.json")
    kernels_ms = 409.860 / 20  # the profile's "Self CUDA time total" over its 20 steps
    assert "Self CUDA time total: 409.860ms" in (HERE / "call3/profile-xval-tuned-compile.txt").read_text()
    ideal = row["mfu_measured"] * (1e3 / row["steps_per_s"]) / kernels_ms
    assert round(kernels_ms, 1) == 20.5 and round(100 * ideal) == 48
    assert (
        "The compiled run's kernels took 20.5 ms a step (410 ms for 20). If the GPU never waited, that would be about 48 % of the peak."
        in text
    )


def test_the_product_is_what_call_3_ran():
    """The loader makes the hidden tokens' layout, rounded by the GPU multiple the README names."""
    from scinum.tokens.batch import GPU_ROW_MULTIPLE, HiddenLayout
    from scinum.train.masking import MLMCollator

    assert GPU_ROW_MULTIPLE == 16 and HiddenLayout._fields == ("rows", "take", "targets", "numbers")
    assert "row_multiple" in MLMCollator.__init__.__code__.co_varnames
