"""experiments/tables-fit-cheaper: the figures its README quotes, recomputed from the files
published beside it, the verdict read off the rule it declared, and the product's default set
to the candidate the rule adopted."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "experiments" / "tables-fit-cheaper"
CANDIDATES = ("default", "half", "quarter", "one-member", "flat-under-line")
STANDARD = ["linear (OLS)", "boosted trees"]


def _module(name: str):
    """This folder's script ``name`` (other experiments have scripts of the same names)."""
    spec = importlib.util.spec_from_file_location(f"tables_fit_cheaper_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _text() -> str:
    return re.sub(r"\s+", " ", (HERE / "README.md").read_text(encoding="utf-8"))


def _ratios(folder: Path) -> pd.Series:
    f = pd.read_csv(folder / "scores.csv")
    m = f.groupby(["table", "split", "model"]).mse.mean().unstack("model")
    return m["scinum.Regressor"] / m[STANDARD].min(axis=1)


def test_every_candidate_fitted_the_declared_development_tables_and_seeds():
    declared = set(json.loads((ROOT / "experiments" / "tables-protocol" / "declared.json").read_text())["development"]["tables"])
    for c in CANDIDATES:
        f = pd.read_csv(HERE / "dev" / c / "scores.csv")
        assert set(f.table) == declared and sorted(set(f.seed)) == [0, 1], c
        times = json.loads((HERE / "dev" / c / "fit-times.json").read_text())
        assert len(times) == 32 and {t["candidate"] for t in times.values()} == {c}


def test_the_summary_the_verdict_and_the_readme_agree():
    compare = _module("compare")
    figs = {c: compare.figures(HERE / "dev" / c) for c in CANDIDATES}
    verdicts = {c: compare.clauses(figs[c], figs["default"]) for c in CANDIDATES[1:]}
    assert [c for c in CANDIDATES[1:] if all(verdicts[c].values())] == ["one-member"]
    assert not verdicts["half"]["1. above: geometric mean"] and not verdicts["half"]["2. inside: geometric mean"]
    assert not verdicts["flat-under-line"]["3. inside 90 %"]
    text = _text()
    cells = " | ".join(figs[c]["extrap: geometric mean"] for c in ("default", "half", "quarter", "one-member", "flat-under-line"))
    assert cells.replace("0.859", "**0.859**") in text
    medians = [f"{figs[c]['median_cpu_s']:.1f}" for c in CANDIDATES]
    assert medians == ["39.2", "22.3", "11.7", "12.5", "26.0"]
    for m in medians:
        assert m in text
    assert f"{figs['one-member']['test: geometric mean']}" == "1.084" and "**1.084**" in text
    assert (HERE / "dev" / "summary.md").read_text() == compare.render(HERE / "dev")


def test_the_per_table_moves_quoted():
    default, one = _ratios(HERE / "dev" / "default"), _ratios(HERE / "dev" / "one-member")
    text = _text()
    for table, split, before, after in (
        ("ccard", "extrap", "13.07", "10.40"),
        ("danish_data", "extrap", "1.17", "0.98"),
        ("longley", "extrap", "0.08", "0.02"),
        ("longley", "test", "4.24", "7.70"),
        ("linnerud", "test", "0.83", "0.70"),
    ):
        assert f"{default[table, split]:.2f}" == before and f"{one[table, split]:.2f}" == after, (table, split)
        assert f"{before}× → {after}×" in text


def test_the_reference_reproduces_the_earlier_reading():
    now = pd.read_csv(HERE / "dev" / "default" / "scores.csv")
    before = pd.read_csv(ROOT / "experiments" / "tables-linear-baseline" / "dev" / "select" / "scores.csv")
    now = now[now.model == "scinum.Regressor"].set_index(["table", "seed", "split"]).mse
    before = before[before.model == "selected, held at the edge"].set_index(["table", "seed", "split"]).mse
    rel = (now / before.reindex(now.index) - 1).abs()
    assert len(rel) == 64 and float(rel.max()) < 6e-8 and "within a relative 6e-8 on all 64" in _text()


def test_the_product_default_is_the_adopted_candidate():
    import scinum.estimator as est

    fit_save = _module("fit_save")
    assert fit_save.CANDIDATES["one-member"] == ({}, {"members": 1}) and est.DEFAULTS["members"] == 1
    assert fit_save.CANDIDATES["default"] == ({}, {"members": 3})  # the default when declared
    times = {c: np.median([t["cpu_s"] for t in json.loads((HERE / "dev" / c / "fit-times.json").read_text()).values()]) for c in CANDIDATES}
    assert times["one-member"] <= 0.75 * times["default"]
