"""recipes/tables_by_range.py: the held-out-by-range splits of the bundled tables and their table."""

import numpy as np
import pandas as pd
import pytest

from recipes.tables_by_range import HELD_OUT_BY, load, splits, table
from recipes.tabular import SCINUM_ROWS


@pytest.mark.parametrize("name", sorted(HELD_OUT_BY))
def test_extrap_is_the_top_tenth_of_one_input_and_splits_do_not_overlap(name):
    X, y = load(name)
    assert len(X) == len(y) and not X.isna().any().any()
    s = splits(X, name, seed=1)
    assert sorted(np.concatenate(list(s.values()))) == list(range(len(X)))  # a partition
    col = X[HELD_OUT_BY[name]].to_numpy()
    assert col[s["extrap"]].min() > col[np.concatenate([s["train"], s["test"]])].max()  # beyond training
    assert abs(len(s["extrap"]) - 0.1 * len(X)) <= 1
    assert len(s["test"]) == (len(X) - len(s["extrap"])) // 4
    assert np.array_equal(splits(X, name, seed=1)["test"], s["test"])
    assert not np.array_equal(splits(X, name, seed=2)["test"], s["test"])


def test_table_divides_by_the_better_standard_model_per_split():
    rows = []
    for seed, scale in ((0, 1.0), (1, 3.0)):
        for model, test, extrap in (("scinum.Regressor", 2.0, 9.0), ("linear (OLS)", 1.0, 3.0), ("boosted trees", 0.5, 6.0)):
            rows += [
                {"table": "engel", "seed": seed, "model": model, "split": "test", "mse": test * scale, "n": 10},
                {"table": "engel", "seed": seed, "model": model, "split": "extrap", "mse": extrap * scale, "n": 3},
            ]
    text = table(pd.DataFrame(rows))
    assert "| scinum.Regressor | 4.00× | 3.00× |" in text  # test ÷ trees', extrap ÷ OLS's
    assert "| boosted trees | 1.00× | 2.00× |" in text
    assert "engel test (10 rows) | engel extrap (3 rows)" in text


def test_unseen_names_the_four_tables_run_after_the_defaults_were_chosen(tmp_path, monkeypatch):
    import json

    import recipes.tables_by_range as tbr

    assert set(tbr.TUNED) | set(tbr.UNSEEN) | set(tbr.FRESH) | set(tbr.BLIND) == set(HELD_OUT_BY) and len(HELD_OUT_BY) == 16
    seen = []

    def fake(name, seed, rows):
        seen.append(name)
        assert rows == list(SCINUM_ROWS)
        return [
            {"table": name, "seed": seed, "model": m, "split": s, "mse": 1.0, "n": 2}
            for m in ("linear (OLS)", "boosted trees")
            for s in ("test", "extrap")
        ]

    monkeypatch.setattr(tbr, "scores", fake)
    assert tbr.main(["--tables", "unseen", "--seeds", "0", "--out", str(tmp_path)]) == 0
    assert seen == list(tbr.UNSEEN)
    assert json.loads((tmp_path / "meta.json").read_text())["tables"] == list(tbr.UNSEEN)
    seen.clear()
    assert tbr.main(["--tables", "fresh", "engel", "--seeds", "0", "--out", str(tmp_path)]) == 0
    assert seen == [*tbr.FRESH, "engel"]
    seen.clear()
    assert tbr.main(["--tables", "blind", "--seeds", "0", "--out", str(tmp_path)]) == 0
    assert seen == list(tbr.BLIND)


def test_jobs_fit_the_pairs_elsewhere_and_keep_their_order(tmp_path, monkeypatch):
    """``--jobs 2`` hands each (table, seed) pair to a worker (here a thread pool standing in for
    the process pool) and writes the rows in the order of the pairs, whichever finishes first."""
    import json
    import time
    from concurrent.futures import ThreadPoolExecutor

    import torch

    import recipes.tables_by_range as tbr
    import scinum.util.processes

    def fake(name, seed, rows):
        time.sleep(0.05 if seed == 0 else 0.0)  # the first pair finishes last
        cells = [(m, s) for m in tbr.STANDARD for s in ("test", "extrap")]
        return [{"table": name, "seed": seed, "model": m, "split": s, "mse": 1.0 + seed, "n": 2} for m, s in cells]

    monkeypatch.setattr(tbr, "scores", fake)
    monkeypatch.setattr(scinum.util.processes, "worker_pool", lambda n: ThreadPoolExecutor(n))
    threads = []
    monkeypatch.setattr(torch, "set_num_threads", threads.append)
    assert tbr.main(["--tables", "engel", "cancer", "--seeds", "0", "1", "--jobs", "2", "--out", str(tmp_path)]) == 0
    frame = pd.read_csv(tmp_path / "scores.csv")
    pairs = list(dict.fromkeys(zip(frame["table"], frame["seed"])))
    assert pairs == [("engel", 0), ("engel", 1), ("cancer", 0), ("cancer", 1)] and threads == [1] * 4
    assert json.loads((tmp_path / "meta.json").read_text())["tables"] == ["engel", "cancer"]
