"""experiments/tables-clamp-probe: the README's figures are the published outputs' (the toys'
MSEs and the edges' t values), and the edges' t values on the development tables are what
``edges.py`` computes now (no scinum fit: scikit-learn alone, seconds)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from published import readme, script

FOLDER = "tables-clamp-probe"
HERE = Path(__file__).resolve().parents[1] / FOLDER


def _read(name: str) -> pd.DataFrame:
    return pd.read_csv(HERE / name, sep=" ")


def test_no_development_table_reaches_t_2_and_the_toys_fire_as_the_readme_says():
    edges = _read("edges.txt")
    dev = edges[~edges.table.str.startswith("toy:")]
    assert len(dev) == 32 and not (dev["t_over_line"] >= 2).any()
    top = dev.sort_values("t_over_line", ascending=False).iloc[:2]
    assert [(r.table, r.seed, round(r["t_over_line"], 2)) for _, r in top.iterrows()] == [("linnerud", 0, 0.48), ("ccard", 0, 0.06)]
    assert set(dev[dev["t_over_line"].isna()].apply(lambda r: f"{r.table}:{r.seed}", axis=1)) == {"stackloss:0", "longley:0", "longley:1"}
    toys = edges[edges.table.str.startswith("toy:")].set_index(["table", "seed"])["t_over_line"]
    assert (toys["toy:saturating"] >= 2).all() and (toys["toy:straight"] < 2).all()
    assert list(toys["toy:curved"] >= 2) == [True, False, True]
    assert not (edges.t_over_line_or_quadratic >= 2).any()  # against the better of line and quadratic: none fires
    text = readme(FOLDER)
    assert "t = 13.6–23.7" in text and "(13.9, 8.55; 1.18 on seed 1)" in text


def _cell(v: float) -> str:
    """How the README's toys table writes an MSE."""
    return f"{v:.2g}" if v < 0.01 else (f"{v:.3g}" if v < 1 else f"{v:.1f}")


def test_the_toys_table_is_toys_txt():
    toys = _read("toys.txt")
    text = readme(FOLDER)
    for r in toys.itertuples():
        cells = [_cell(v) for v in (r.edge, r.network, r.least_squares, r.boosted_trees)]
        assert f"| {r.toy}, {r.seed} | " + " | ".join(cells) + " |" in text, (r, cells)
    sat, cur = toys[toys.toy == "saturating"], toys[toys.toy == "curved"]
    assert np.round(cur.network / cur.least_squares, 2).tolist() == [0.71, 0.81, 0.77]
    assert np.round((sat.network / sat.edge).to_numpy(), 1).tolist()[::2] == [3.5, 51.3]
    assert round(float(sat.edge.iloc[1] / sat.network.iloc[1]), 1) == 2.5


def test_edges_py_gives_the_published_t_values_on_the_development_tables():
    edges = script(FOLDER, "edges")
    published = _read("edges.txt").set_index(["table", "seed"])
    import tables_by_range as tbr

    for name, seed in (("ccard", 0), ("linnerud", 0), ("engel", 1)):
        X, y = tbr.load(name)
        train = tbr.splits(X, name, seed)["train"]
        got = edges.t_values(X.iloc[train].to_numpy(np.float64), y.iloc[train].to_numpy(np.float64))
        assert np.round(got, 2).tolist() == published.loc[(name, seed)].round(2).tolist()
