"""experiments/tables-fresh-r: the README's table and counts are what summary.py prints from the
published fits, and the tables run are the ones the README declared, in its order."""

from __future__ import annotations

import re
from published import published_summary, readme, script

FOLDER = "tables-fresh-r"


def test_the_readme_quotes_summary_py():
    out = published_summary(FOLDER)
    text = readme(FOLDER)
    plain = text.replace("**", "")  # the README bolds the one table beyond 3x
    rows = [row for row in out.splitlines() if row.startswith("| ") and not row.startswith("| table")]
    assert len(rows) == 16
    for row in rows:
        assert row in plain, row
    assert "inside: within 1.5× on 16 of 16 (100%); worse than 3.0×: none; geometric mean 0.976" in out
    assert "past: within 1.5× on 15 of 16 (94%); worse than 3.0×: quakes 3.26×; geometric mean 1.054" in out
    assert "**Inside the range: 16 of 16 within 1.5×** (geometric mean 0.976" in text
    assert "**Past it: 15 of 16 within 1.5×** (94 %; geometric mean 1.054)" in text


def test_the_tables_run_are_the_declared_ones():
    declared = readme(FOLDER).split("**Tables and targets**, in this order: ")[1].split("- **Inputs**")[0]
    pairs = re.findall(r"`([\w.]+)` \(([\w.]+)\)", declared)
    assert list(script(FOLDER, "run").TABLES.items()) == pairs
