"""experiments/tables-fit-budget: every figure its README and docs/how-to/tables.md quote,
recomputed from the files published beside it; the rule it adopted is the estimator's."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "experiments" / "tables-fit-budget"
DEV = HERE / "dev"
for p in (str(ROOT), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)


def _compare():
    """This folder's ``compare.py``, loaded under a name of its own: ``import compare`` would take
    whichever ``compare`` another test put first on the path (recipes/compare.py)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("tables_fit_budget_compare", HERE / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _text(path: Path) -> str:
    return re.sub(r"\s+", " ", path.read_text(encoding="utf-8"))


def _times(*rules: str) -> dict:
    out: dict = {}
    for r in rules:
        out.update(json.loads((DEV / r / "fit-times.json").read_text()))
    return out


def test_the_folders_hold_the_declared_development_tables_and_seeds():
    import pandas as pd

    declared = set(json.loads((ROOT / "experiments" / "tables-protocol" / "declared.json").read_text())["development"]["tables"])
    compare = _compare()

    for rule, seeds, tables in (
        ("default", [0, 1], declared),
        ("quarter", [0, 1], declared),
        ("floor-steps", [0, 1], set(compare.TINY)),
        ("default-seeds-2-3", [2, 3], set(compare.TINY)),
        ("floor-steps-seeds-2-3", [2, 3], set(compare.TINY)),
    ):
        f = pd.read_csv(DEV / rule / "scores.csv")
        assert set(f.table) == tables and sorted(set(f.seed)) == seeds, rule
    times = _times("default")
    assert {k.rsplit("-", 1)[0] for k in times} == declared
    assert set(compare.TINY) == {k.rsplit("-", 1)[0] for k, v in times.items() if v["rows"] < 32}  # the tables the floor changes


def test_the_summary_and_both_readme_tables_are_recomputed():
    compare = _compare()

    text = compare.main()
    assert (DEV / "summary.md").read_text() == text
    readme = (HERE / "README.md").read_text()
    for line in text.strip().splitlines():
        assert line in readme, line


def test_the_adopted_rule_is_the_estimators():
    from fit_save import RULES, rule

    from scinum.estimator import DEFAULTS, training_samples

    steps, cells = RULES["floor-over-cap"]
    assert (steps, cells) == (DEFAULTS["min_steps"], DEFAULTS["max_cells"])
    batch, epochs = DEFAULTS["data"]["batch_size"], DEFAULTS["epochs"]
    experiment = rule("floor-over-cap")
    for rows in (2, 11, 14, 31, 32, 33, 159, 499, 500, 800, 5000):
        for c in (2.0, 5.0, 11.0, 13.0):
            assert experiment(rows, c, epochs, 0, batch, 0) == training_samples(rows, c, epochs, steps, batch, DEFAULTS["max_cells"])
    # the floor-steps fits trained 625 whole-table steps a member (no table there holds out validation rows)
    for k, v in _times("floor-steps", "floor-steps-seeds-2-3").items():
        assert v["rule"] == "floor-steps" and v["samples"] == 625 * v["rows"], k


def test_the_fit_times_quoted():
    compare = _compare()

    adopted = compare.scores(*compare.RULES["floor-over-cap (the default now)"])[1]
    assert len(adopted) == 32
    cpu = [v["cpu_s"] for v in adopted.values()]
    # the how-to quoted these until the default became one member (experiments/tables-fit-cheaper)
    median = round(float(np.median(cpu)))
    assert f"| {median} ({round(min(cpu))}-{round(max(cpu))}) |" in (HERE / "README.md").read_text() and median == 41
    readme = _text(HERE / "README.md")
    tiny = {k: v["cpu_s"] for k, v in {**_times("floor-steps"), **_times("floor-steps-seeds-2-3")}.items()}
    before = {k: v["cpu_s"] for k, v in {**_times("default"), **_times("default-seeds-2-3")}.items() if v["rows"] < 32}
    assert len(tiny) == len(before) == 24
    assert (
        f"fits took {round(min(tiny.values()))}–{round(max(tiny.values()))} CPU s instead of "
        f"{round(min(before.values()))}–{round(max(before.values()))} (all 24 fits of each rule)" in readme
    )


@pytest.mark.parametrize("table, before, after", [("linnerud", "0.53×", "1.86×"), ("stackloss", "1.16×", "1.56×")])
def test_the_two_seed_reading_quoted(table, before, after):
    import pandas as pd

    from recipes.tables_by_range import STANDARD

    def ratio(rule: str) -> str:
        f = pd.read_csv(DEV / rule / "scores.csv")
        m = f[f.split == "extrap"].groupby(["table", "model"]).mse.mean().unstack("model")
        return f"{(m['scinum.Regressor'] / m[list(STANDARD)].min(axis=1))[table]:.2f}×"

    assert (ratio("default"), ratio("floor-steps")) == (before, after)
    assert f"{table} {before} → {after}" in _text(HERE / "README.md")


def test_the_paired_fit_times_quoted():
    """The README's paired table: each farm-bench block of timing.txt (A: after, B: before; CPU
    seconds median (min–max), the pairs' ratio) in the order of its rows."""
    blocks = (HERE / "timing.txt").read_text().split("farm-bench 3 |")[1:]
    assert len(blocks) == 3

    def stat(block: str, name: str, digits: int) -> str:
        lo, med, hi = (float(x) for x in re.search(rf"^{re.escape(name)}\s+(\S+)\s+(\S+)\s+(\S+)", block, re.M).groups())
        return f"{med:.{digits}f}" + (" s" if digits == 1 else "") + f" ({lo:.{digits}f}–{hi:.{digits}f})"

    readme = _text(HERE / "README.md")
    commands = ("time_fit.py 17x2", "time_fit.py 1000x10", "planets_steps.py 150")
    for command in commands:
        block = next(b for b in blocks if command in b)
        assert "pinned to cpu 0" in block and "A 3, B 3, in turn" in block
        row = f"| {stat(block, 'A cpu s', 1)} | {stat(block, 'B cpu s', 1)} | {stat(block, 'A/B cpu', 2)} |"
        assert row in readme, (command, row)


@pytest.mark.parametrize("name", ["floor-steps", "quarter", "floor-over-cap"])
def test_each_rule_plugs_into_the_estimator_as_fit_save_runs_it(name, monkeypatch, tmp_path):
    import scinum.estimator as est
    from fit_save import rule

    default = est.Regressor()._config(tmp_path / "d", tmp_path / "o", ["y"], 14, 12.0, 0)["budget"]["samples"]
    monkeypatch.setattr(est, "training_samples", rule(name))
    budget = est.Regressor()._config(tmp_path / "d", tmp_path / "o", ["y"], 14, 12.0, 0)["budget"]["samples"]
    # 14 rows of 12 cells: 625 whole-table steps (8,750 records, 105,000 cells) pass the cap of cells
    assert default == 8750 and budget == {"floor-steps": 8333, "quarter": 2083, "floor-over-cap": 8750}[name]


def test_the_capped_tables_reading_is_quoted_and_the_floor_stands_above_the_cap():
    compare = _compare()

    from scinum.estimator import DEFAULTS, training_samples

    readme = (HERE / "README.md").read_text()
    assert compare.capped() in readme
    times = _times("floor-over-cap")
    assert {k.rsplit("-", 1)[0] for k in times} == set(compare.CAPPED) and {v["samples"] for v in times.values()} == {20000}
    capped = [round(v["cpu_s"]) for k, v in _times("default").items() if k.rsplit("-", 1)[0] in compare.CAPPED]
    fits = [round(v["cpu_s"]) for v in times.values()]
    assert f"took {min(fits)}–{max(fits)} CPU s" in _text(HERE / "README.md")
    assert f"against {min(capped)}–{max(capped)} capped" in _text(HERE / "README.md")
    # adopted: 12 cells a row of 42 rows (elnino) would be capped at 8,333 records; the floor of 20,000 stands
    assert training_samples(42, 12.0, DEFAULTS["epochs"], DEFAULTS["min_steps"], 32, DEFAULTS["max_cells"]) == 20000


def test_the_rules_test_table_reading_is_quoted_with_the_targets_it_meets():
    compare = _compare()

    text = compare.capped_test()
    assert text in (HERE / "README.md").read_text()
    assert "| test: all twelve | 9 of 12 within 1.5×, 0 worse than 3× | 12 of 12 within 1.5×, 0 worse than 3× |" in text
    assert "| extrap: all twelve | 7 of 12 within 1.5×, 3 worse than 3× | 8 of 12 within 1.5×, 1 worse than 3× |" in text
    readme = _text(HERE / "README.md")
    assert "12 of 12 test tables are within 1.5×" in readme and "8 of 12 are within 1.5×" in readme


def test_the_benchmark_after_the_floor_stands_above_the_cap_is_quoted():
    rows = {}
    for line in (HERE / "benchmark-floor-over-cap.txt").read_text().splitlines():
        m = re.match(r"^\s+1000x10 (scinum\.Regressor|boosted trees|ridge)\s+(\S+)\s+\S+\s+(\S+)\s+(\S+)", line)
        if m:
            rows[m[1]] = (m[2], m[3], m[4])
    ours, trees, ridge = rows["scinum.Regressor"], rows["boosted trees"], rows["ridge"]
    text = _text(HERE / "README.md")
    quote = f"one run, load {ours[2][:3]}): the 1,000 × 10 table fitted in {ours[0]} CPU s, to a held-out MSE of {ours[1]}"
    assert f"{quote} (ridge {ridge[1]}, boosted trees {trees[1]})" in text
    assert float(ours[1]) < float(trees[1])  # no longer a constant
