"""experiments/tables-protocol: the test tables are declared, load offline and are not development tables."""

import json
from pathlib import Path

import numpy as np
import pytest

import recipes.tables_by_range as tbr

DECLARED = json.loads((Path(__file__).resolve().parent.parent / "experiments/tables-protocol/declared.json").read_text())


def test_the_declaration_is_the_recipes_list_and_leaves_the_development_tables_out():
    assert list(DECLARED["test"]) == list(tbr.TEST_TABLES) and len(tbr.TEST_TABLES) >= 10
    assert {n: t["held_out"] for n, t in DECLARED["test"].items()} == tbr.TEST_TABLES
    assert not set(tbr.TEST_TABLES) & set(tbr.HELD_OUT_BY)
    assert tbr.DEVELOPMENT == tuple(DECLARED["development"]["tables"]) and set(tbr.DEVELOPMENT) == set(tbr.HELD_OUT_BY)
    sets = {"TUNED": tbr.TUNED, "UNSEEN": tbr.UNSEEN, "FRESH": tbr.FRESH, "BLIND": tbr.BLIND}
    for name, t in DECLARED["development"]["tables"].items():
        assert name in sets[t["set"]] and t["held_out"] == tbr.HELD_OUT_BY[name]
    for choice in DECLARED["development"]["choices"]:  # choices read development tables only
        assert set(choice["tables"]) <= set(tbr.DEVELOPMENT), choice["choice"]
    assert DECLARED["seeds"] == [0, 1, 2] and tbr.SETS["test"] == tuple(tbr.TEST_TABLES)


@pytest.mark.parametrize("name", list(tbr.TEST_TABLES))
def test_a_test_table_loads_offline_with_its_declared_shape_and_held_out_input(name, monkeypatch):
    import socket

    def no_network(*args, **kwargs):
        raise AssertionError("a test table reached for the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    d = DECLARED["test"][name]
    X, y = tbr.load(name)
    assert X.shape == (d["rows"], d["columns"] - 1) and len(y) == d["rows"]
    assert list(X.columns) == d["inputs"] and y.name == d["target"]
    assert all(t == np.float64 for t in [*X.dtypes, y.dtype]) and not X.isna().any().any() and not y.isna().any()
    assert tbr.most_correlated_input(X, y) == tbr.TEST_TABLES[name]  # the declared rule, applied
    for seed in DECLARED["seeds"]:
        s = tbr.splits(X, name, seed)
        assert sorted(np.concatenate(list(s.values()))) == list(range(len(X)))
        col = X[tbr.TEST_TABLES[name]].to_numpy()
        assert col[s["extrap"]].min() > col[np.concatenate([s["train"], s["test"]])].max()
        assert abs(len(s["extrap"]) - 0.1 * len(X)) <= 1 and len(s["test"]) == (len(X) - len(s["extrap"])) // 4


def test_the_rule_skips_an_input_with_ties_at_the_top():
    import pandas as pd

    x = np.arange(40.0)
    y = pd.Series(x + np.sin(x))
    X = pd.DataFrame({"flat_top": np.minimum(x, 30.0), "noisy": x + 5 * np.cos(3 * x), "same": x})
    assert not tbr.top_tenth_is_defined(X["flat_top"].to_numpy())  # ten rows tie at its top
    assert tbr.most_correlated_input(X, y) == "same"
    assert tbr.most_correlated_input(X[["noisy", "flat_top"]], y) == "noisy"
    with pytest.raises(ValueError, match="no input"):
        tbr.most_correlated_input(X[["flat_top"]], y)


def test_dash_dash_tables_test_runs_the_twelve(tmp_path, monkeypatch):
    seen = []

    def fake(name, seed, rows):
        seen.append(name)
        return [{"table": name, "seed": seed, "model": m, "split": s, "mse": 1.0, "n": 2} for m in tbr.STANDARD for s in ("test", "extrap")]

    monkeypatch.setattr(tbr, "scores", fake)
    assert tbr.main(["--tables", "test", "--seeds", "0", "--out", str(tmp_path)]) == 0
    assert seen == list(tbr.TEST_TABLES)
    assert "goog's low" in (tmp_path / "table.md").read_text()
