"""experiments/gpu-check-h200: the table and the figures its README quotes, recomputed from the
benchmark's JSON files and rows.csv beside it; rows.csv's first steps made again on the CPU."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from published import readme, script

ROOT = Path(__file__).resolve().parents[2]
FOLDER = "gpu-check-h200"
HERE = ROOT / "experiments" / FOLDER


def _rows() -> list[dict]:
    with (HERE / "rows.csv").open() as f:
        return [{k: int(v) for k, v in r.items()} for r in csv.DictReader(f)]


def test_the_readme_table_is_table_py_s():
    assert script(FOLDER, "table").table() in (HERE / "README.md").read_text(encoding="utf-8")


def test_the_peak_and_the_summary_are_the_files():
    text = readme(FOLDER)
    peak = json.loads((HERE / "peak_flops.json").read_text())
    measured, sheet = peak["peak_bf16_measured"], peak["datasheet_bf16"]
    assert f"**{measured / 1e12:.1f} TFLOP/s** ({100 * measured / sheet:.1f} % of the datasheet's 989)" in text
    runs = json.loads((HERE / "summary.json").read_text())["runs"]
    assert runs["paper_tuned"]["exit"] == "0" and "23.8% of bound" in runs["paper_tuned"]["last_line"]
    assert [runs[n]["exit"] for n in ("paper_preset", "paper_tuned_compile", "paper_tuned_compile_static")] == ["1"] * 3
    assert "**Steady state: 23–24 % of the measured peak, against a target of 40 %.**" in text


def test_the_row_count_figures_are_rows_py_s():
    """Every step on a new (M, length) pair slow, almost none on a seen one; the pairs a multiple
    of 16 or 32 leaves: as the README quotes them."""
    lines = script(FOLDER, "rows").analysis(_rows())
    tuned, expandable, compiled = lines[:3]
    assert "new (M, length) pair: 153, median 168 ms, 153 over 100 ms; on a seen pair: 370, median 35 ms, 1 over 100 ms" in tuned
    assert "new (M, length) pair: 153, median 163 ms, 153 over 100 ms; on a seen pair: 370, median 34 ms, 1 over 100 ms" in expandable
    assert "pair: 144, median 165 ms, 144 over 100 ms; on a seen pair: 262, median 29 ms, 1 over 100 ms" in compiled
    assert lines[3:] == [
        "M rounded up to a multiple of 1: 153 pairs in the first 500 steps",
        "M rounded up to a multiple of 16: 15 pairs in the first 500 steps",
        "M rounded up to a multiple of 32: 11 pairs in the first 500 steps",
        "M: 51-181, mean 108.0",
    ]
    text = readme(FOLDER)
    for quote in (
        "153 of 153, median 168 ms (tuned) and 163 ms (call 2). Of the 370 steps on a pair seen before, 1 was: median 35 and 34 ms",
        "144 of 144 slow, against 1 of 262",
        "M meets 153 pairs. With M rounded up to a multiple of 16 the same batches meet 15 pairs; with 32, 11.",
        "51–181 here",
        "7 rows on a mean M of 108",
    ):
        assert quote in text, quote


def test_the_product_rounds_by_the_multiple_the_readme_names():
    from scinum.tokens.batch import GPU_ROW_MULTIPLE

    assert GPU_ROW_MULTIPLE == 16 and "rounds M up to a multiple of 16 on a CUDA device" in readme(FOLDER)
    rows = _rows()[:500]
    extra = sum(min(-(-r["rows"] // 16) * 16, r["length"]) - r["rows"] for r in rows) / len(rows)
    assert round(extra) == 7


@pytest.mark.slow
def test_rows_csv_is_the_batch_stream_made_again():
    """The first 20 steps' lengths and row counts, made again on this CPU (about 15 s)."""
    assert script(FOLDER, "rows").make_rows(20) == _rows()[:20]
