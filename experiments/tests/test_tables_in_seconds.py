"""experiments/tables-in-seconds: the figures its README quotes, recomputed from the files
published beside it, and the verdict read off the rule it declared (none adopted, so the
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
HERE = ROOT / "experiments" / "tables-in-seconds"
CANDIDATES = ("default", "share-quarter", "one-layer", "share-quarter+one-layer")


def _compare():
    """This folder's ``compare.py`` (other experiments have scripts of the same name)."""
    spec = importlib.util.spec_from_file_location("tables_in_seconds_compare", HERE / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.rules()


def _text() -> str:
    return re.sub(r"\s+", " ", (HERE / "README.md").read_text(encoding="utf-8"))


def test_every_candidate_fitted_the_declared_development_tables_and_seeds():
    check_development_fits(HERE / "dev", CANDIDATES)
    assert not (HERE / "test").exists()  # nothing was adopted, so no test table was fitted


def test_the_summary_the_verdict_and_the_readme_agree():
    compare = _compare()
    figs = {c: compare.figures(HERE / "dev" / c) for c in CANDIDATES}
    verdicts = {c: compare.clauses(figs[c], figs["default"]) for c in CANDIDATES[1:]}
    assert not any(all(v.values()) for v in verdicts.values())
    assert all(not v["1. above: geometric mean"] for v in verdicts.values())
    assert not verdicts["share-quarter"]["4. median fit time"] and not verdicts["share-quarter+one-layer"]["2. inside: within 1.5×"]
    order = ("default", "share-quarter", "one-layer", "share-quarter+one-layer")
    text = _text()
    rows = (("extrap: geometric mean", "above the range: geometric mean"), ("test: geometric mean", "inside the range: geometric mean"))
    for key, label in rows:
        assert f"| {label} | " + " | ".join(figs[c][key] for c in order) + " |" in text
    assert [figs[c]["extrap: geometric mean"] for c in order] == ["0.859", "0.923", "1.024", "1.056"]
    medians = [f"{figs[c]['median_cpu_s']:.1f}" for c in order]
    assert medians == ["12.7", "9.8", "8.8", "8.0"]
    assert f"median time {figs['share-quarter']['median_cpu_s'] / figs['default']['median_cpu_s']:.2f} of the default's" in text
    assert f"1.05 × 0.859 = {1.05 * 0.859:.3f}" in text
    assert (HERE / "dev" / "summary.md").read_text() == compare.render(HERE / "dev")


def test_the_per_table_moves_quoted():
    text = _text()
    default = ratios(HERE / "dev", "default")
    for c, moves in (
        ("one-layer", (("ccard", "10.40", "17.56"), ("longley", "0.02", "0.14"), ("linnerud", "1.22", "2.01"))),
        ("share-quarter", (("ccard", "10.40", "12.15"), ("danish_data", "0.98", "1.35"), ("linnerud", "1.22", "1.49"))),
    ):
        r = ratios(HERE / "dev", c)
        for table, before, after in moves:
            assert f"{default[table, 'extrap']:.2f}" == before and f"{r[table, 'extrap']:.2f}" == after, (c, table)
            assert f"{before}× → {after}×" in text


def test_the_reference_reproduces_the_one_member_reading_and_is_the_product_default():
    import scinum.estimator as est

    a = pd.read_csv(HERE / "dev" / "default" / "scores.csv")
    b = pd.read_csv(ROOT / "experiments" / "tables-fit-cheaper" / "dev" / "one-member" / "scores.csv")
    keys = ["table", "seed", "split", "model"]
    m = a.merge(b, on=keys, suffixes=("", "_before"))
    m = m[m.model == "scinum.Regressor"]
    assert len(m) == 64 and np.array_equal(m.mse.to_numpy(), m.mse_before.to_numpy())
    assert est.DEFAULTS["members"] == 1 and est.DEFAULTS["model"]["n_layers"] == 2
    assert est.DEFAULTS["optim"].get("curvature_share", 1.0) == 1.0


def test_the_fit_times_quoted():
    cells = []
    for c in CANDIDATES[:1] + ("share-quarter", "one-layer", "share-quarter+one-layer"):
        cpu = [t["cpu_s"] for t in json.loads((HERE / "dev" / c / "fit-times.json").read_text()).values()]
        cells.append(f"{np.median(cpu):.1f} ({min(cpu):.1f}–{max(cpu):.1f})")
    assert "| fit, CPU s: median (min–max) | " + " | ".join(cells) + " |" in _text()


def test_the_notebook_rows_quote_the_same_figures():
    index = (ROOT / "experiments" / "README.md").read_text(encoding="utf-8")
    row = next(line for line in index.splitlines() if line.startswith("| [tables-in-seconds]"))
    assert "0.859 → 0.923 / 1.024 / 1.056 (allowed 0.902)" in row and "12.7 → 9.8 / 8.8 / 8.0 CPU s" in row
    fit_time = re.sub(r"\s+", " ", (ROOT / "experiments" / "regressor-fit-time" / "README.md").read_text(encoding="utf-8"))
    assert "a median development fit of 8.0–9.8 s against 12.7 s" in fit_time and "geometric mean 0.859 → 0.923–1.056" in fit_time
