"""docs/parity.md's *Why one seed learns e₁*: the table and every figure of its bullets from the
published attention CSVs (docs/results/planets-attention) and the runs' published evaluations."""

import csv
import importlib.util
from collections import defaultdict
from pathlib import Path

import pytest
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "docs" / "results" / "planets-attention"


@pytest.fixture(scope="module")
def table():
    spec = importlib.util.spec_from_file_location("attention_table", HERE / "table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def parity() -> str:
    return " ".join((ROOT / "docs" / "parity.md").read_text().split())


def shares(model: str, seed: int) -> dict[tuple[int, int], dict[str, float]]:
    out: dict[tuple[int, int], dict[str, float]] = defaultdict(dict)
    with open(HERE / model / f"seed{seed}.csv") as f:
        for r in csv.DictReader(f):
            out[(int(r["layer"]), int(r["head"]))][r["path"]] = float(r["share"])
    return out


def test_the_table_is_the_csvs(table):
    assert " ".join(table.markdown().split()) in parity()
    rows = table.rows()
    assert len(rows) == 14
    for model, seed, *_ in rows:  # each CSV: every head's shares add up to 1
        for lh, s in shares(model, seed).items():
            assert sum(s.values()) == pytest.approx(1.0, abs=1e-6), (model, seed, lh)


def test_the_bullets_are_the_table(table):
    rows = table.rows()
    text = parity()
    learnt = [r for r in rows if r[2] >= 0.75]
    rest = [r for r in rows if r[2] < 0.75]
    assert len(learnt) == 7 and all(r[4] == 0 for r in learnt)
    lo, hi = min(r[3] for r in learnt), max(r[3] for r in learnt)
    assert f"The seven runs with R² ≥ 0.75 give those six numbers {lo:.2f}–{hi:.2f} of one head's attention" in text
    assert f"the seven runs at or below {max(r[2] for r in rest):.3f} give them at most {max(r[3] for r in rest):.2f}" in text
    rho, p = stats.spearmanr([r[2] for r in rows], [r[3] for r in rows])
    assert f"rank correlation of the share with R² is {rho:.2f} (Spearman, p = {p:.3f})" in text
    fone = [r[3] for r in rows if r[0] == "fone"]
    assert f"FoNE's heads give them at most {max(fone):.2f} in every seed" in text


def test_seed_3_reads_other_numbers():
    s = shares("xval+gmm", 3)
    planet = defaultdict(float)
    for (layer, head), paths in s.items():
        for path, v in paths.items():
            if path.startswith("data["):
                planet[(layer, head, int(path[5:-1].split("][")[1]))] += v
    text = parity()
    assert f"layer 1 head 0: {planet[(1, 0, 0)]:.2f} of its weight" in text
    assert round(planet[(1, 1, 1)], 2) == 1.0 and "(layer 1 head 1: all of its weight)" in text
    assert f"layer 0 head 0 puts {s[(0, 0)]['(not a number)']:.2f} on tokens that are not numbers): R² 0.318" in text
