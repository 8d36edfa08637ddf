"""experiments/tables-past-range-fix: the tables its README shows are compare.py's, the tables it
scored again are exactly the test tables with a column whose path is quoted, and the rows of
those tables where no input is past its range reproduce the published scores."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
from published import script

ROOT = Path(__file__).resolve().parents[2]
FOLDER = "tables-past-range-fix"
HERE = ROOT / "experiments" / FOLDER


def test_the_readme_tables_are_compare_py_s():
    compare = script(FOLDER, "compare")
    text = (HERE / "README.md").read_text(encoding="utf-8")
    assert compare.affected_table() in text and compare.summary_table() in text


def test_the_tables_scored_again_are_those_with_a_quoted_column():
    sys.path.insert(0, str(ROOT / "recipes"))
    import tables_by_range as tbr
    from scinum.records.paths import format_path

    quoted = {n for n in [*tbr.DEVELOPMENT, *tbr.TEST_TABLES] if any(format_path((c,)) != c for c in tbr.load(n)[0].columns)}
    assert quoted == set(script(FOLDER, "compare").AFFECTED) and not quoted & set(tbr.DEVELOPMENT)


def test_the_standard_models_and_fertility_inside_the_range_are_the_published_scores():
    before, after = (f.set_index(["table", "seed", "model", "split"]).sort_index().mse for f in script(FOLDER, "compare").frames())
    standard = [k for k in after.index if k[2] != "scinum.Regressor"]
    assert (after[standard] - before[standard]).abs().max() < 1e-12
    fertility = after.xs(("fertility", "scinum.Regressor", "test"), level=["table", "model", "split"])
    assert (fertility - before.xs(("fertility", "scinum.Regressor", "test"), level=["table", "model", "split"])).abs().max() < 3e-4
    assert len(pd.read_csv(HERE / "scores.csv")) == 4 * 3 * 3 * 2
