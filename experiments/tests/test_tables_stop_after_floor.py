"""experiments/tables-stop-after-floor: the README's figures are what summary.py prints from the
published fits, the rule read the development tables and rejected the candidate, and the product
kept its early stopping (the floor is an option, 0 by default)."""

from __future__ import annotations

from published import published_summary, readme

FOLDER = "tables-stop-after-floor"


def test_the_readme_quotes_summary_py():
    out = published_summary(FOLDER)
    text = readme(FOLDER)
    dev = out.split("## test")[0]
    for row in dev.splitlines():
        if row.startswith("| ") and not row.startswith("| table"):
            assert row in text, row
    assert "past: geometric mean 0.860 → 0.938; within 1.5×: 13 → 13 of 16; worse than 3×: ccard 10.40× → ccard 40.48×" in out
    assert "inside: geometric mean 1.083 → 1.092" in out and "median fit: 16.0 → 13.0 CPU s" in out
    assert "default fits early stopping ended before step 625: 8 of 32" in out and "the rule's clauses: not all hold" in out
    assert "9 of 36" in out.split("## test")[1]
    fresh = out.split("## fresh")[1]
    assert "| quakes | 1.12× | 0.97× | 3.26× | 1.29× |" in fresh
    assert "past: geometric mean 1.054 → 0.996; within 1.5×: 15 → 16 of 16; worse than 3×: quakes 3.26× → none" in fresh
    test = out.split("## test")[1].split("## fresh")[0]
    assert "past: geometric mean 0.770 → 0.770; within 1.5×: 10 → 10 of 12; worse than 3×: iris 3.23× → iris 3.23×" in test
    assert "inside: geometric mean 0.828 → 0.827; within 1.5×: 12 → 12 of 12" in test
    assert "| 16 R tables, candidate (not blind) | 16 of 16 | 16 of 16 | none | 0.967 / 0.996 |" in text


def test_the_product_kept_its_early_stopping():
    from scinum.regressor_params import DEFAULTS
    from scinum.train.config import TrainerConfig

    assert TrainerConfig().early_stopping_min_steps == 0
    assert "early_stopping_min_steps" not in DEFAULTS["trainer"]
