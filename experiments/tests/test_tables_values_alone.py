"""experiments/tables-values-alone: the figures its README quotes, recomputed from the files
published beside it, and the verdict read off the rule it declared (not adopted, so the
product's default is the reference)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
from development_fits import check_development_fits, ratios

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "experiments" / "tables-values-alone"
CANDIDATES = ("default", "values-alone")


def _compare():
    """tables-fit-cheaper's ``compare.py``, whose rule this experiment declared."""
    spec = importlib.util.spec_from_file_location("tables_values_alone_compare", ROOT / "experiments" / "tables-fit-cheaper" / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _text() -> str:
    return re.sub(r"\s+", " ", (HERE / "README.md").read_text(encoding="utf-8"))


def _cpu(c: str) -> dict[str, float]:
    return {k: t["cpu_s"] for k, t in json.loads((HERE / "dev" / c / "fit-times.json").read_text()).items()}


def test_both_fitted_the_declared_development_tables_and_the_product_default_is_unchanged():
    import scinum.estimator as est

    check_development_fits(HERE / "dev", CANDIDATES)
    assert not (HERE / "test").exists()  # not adopted, so no test table was fitted
    assert est.DEFAULTS["model"].get("structure_tokens", True) is True
    spec = importlib.util.spec_from_file_location("tables_values_alone_fit_save", HERE / "fit_save.py")
    fit_save = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fit_save)
    assert fit_save.CANDIDATES == {"default": {}, "values-alone": {"config": {"model": {"structure_tokens": False}}}}


def test_the_verdict_and_the_figures_quoted():
    compare = _compare()
    figs = {c: compare.figures(HERE / "dev" / c) for c in CANDIDATES}
    verdict = compare.clauses(figs["values-alone"], figs["default"])
    failed = sorted(k for k, ok in verdict.items() if not ok)
    assert failed == ["2. inside: within 1.5×", "4. median fit time"]
    text = _text()
    for key, label in (
        ("extrap: geometric mean", "above the range: geometric mean"),
        ("test: geometric mean", "inside the range: geometric mean"),
        ("extrap: inside 90 %", "above the range: inside 90 %"),
        ("test: inside 90 %", "inside the range: inside 90 %"),
    ):
        assert f"| {label} | " + " | ".join(figs[c][key] for c in CANDIDATES) + " |" in text, key
    a, b = (figs[c]["median_cpu_s"] for c in CANDIDATES)
    assert f"| fit, CPU s: median | {a:.1f} | {b:.1f} (**{b / a:.2f}×**) |" in text
    assert f"1.05 × {figs['default']['extrap: geometric mean']} = {1.05 * float(figs['default']['extrap: geometric mean']):.3f}" in text
    assert (HERE / "dev" / "summary.md").read_text() == compare.render(HERE / "dev")


def test_the_per_table_moves_and_the_per_fit_times_quoted():
    text = _text()
    before, after = ratios(HERE / "dev", "default"), ratios(HERE / "dev", "values-alone")
    for table, split in (("ccard", "test"), ("scotland", "extrap"), ("copper", "extrap"), ("ccard", "extrap"), ("linnerud", "extrap")):
        assert f"{before[table, split]:.2f}× → {after[table, split]:.2f}×" in text, (table, split)
    a, b = _cpu("default"), _cpu("values-alone")
    r = [b[k] / a[k] for k in a]
    assert f"{np.median(r):.2f}× the default's CPU time in the median ({min(r):.2f}–{max(r):.2f}×)" in text


def test_the_reference_reproduces_the_one_member_reading():
    a = pd.read_csv(HERE / "dev" / "default" / "scores.csv")
    b = pd.read_csv(ROOT / "experiments" / "tables-fit-cheaper" / "dev" / "one-member" / "scores.csv")
    m = a.merge(b, on=["table", "seed", "split", "model"], suffixes=("", "_before"))
    assert len(m) == len(a) == 192 and np.array_equal(m.mse.to_numpy(), m.mse_before.to_numpy())
    assert "on all 192 (table, seed, split, model) rows" in _text()
