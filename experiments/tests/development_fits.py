"""Shared by the tests of the experiments that fit candidates on the declared development tables
(tables-fit-cheaper, tables-in-seconds, tables-values-alone): the check that each candidate's
scores cover exactly those tables and seeds 0–1 and its fit times hold its 32 fits, and each
table's ratio to the better standard model."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]


def check_development_fits(dev: Path, candidates: tuple[str, ...]) -> None:
    """Assert it for every candidate folder ``dev/<candidate>`` (``scores.csv``, ``fit-times.json``)."""
    declared = set(json.loads((ROOT / "experiments" / "tables-protocol" / "declared.json").read_text())["development"]["tables"])
    for c in candidates:
        f = pd.read_csv(dev / c / "scores.csv")
        assert set(f.table) == declared and sorted(set(f.seed)) == [0, 1], c
        times = json.loads((dev / c / "fit-times.json").read_text())
        assert len(times) == 32 and {t["candidate"] for t in times.values()} == {c}


def ratios(dev: Path, candidate: str) -> pd.Series:
    """The candidate's mean MSE over seeds ÷ the better of OLS and boosted trees, by (table, split)."""
    from recipes.tables_by_range import STANDARD

    f = pd.read_csv(dev / candidate / "scores.csv")
    m = f.groupby(["table", "split", "model"]).mse.mean().unstack("model")
    return m["scinum.Regressor"] / m[list(STANDARD)].min(axis=1)
