"""experiments/tables-held-network: where the rule fires (flags.txt) and the toys at today's
defaults (toys-today.txt), as the README quotes them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from published import readme

FOLDER = "tables-held-network"
HERE = Path(__file__).resolve().parents[1] / FOLDER


def test_it_fires_on_the_saturating_toy_alone():
    flags = pd.read_csv(HERE / "flags.txt", sep=" ")
    assert (flags["fires"] == (~flags["line_kept"] & flags["held_top"])).all()
    fired = set(flags.loc[flags["fires"], "table"])
    assert fired == {"toy:saturating"} and flags.loc[flags["table"] == "toy:saturating", "fires"].all()
    curved = flags[flags["table"] == "toy:curved"]
    assert not curved["held_top"].any() and curved["held_any"].all()
    top = flags[flags["held_top"] & ~flags["table"].str.startswith("toy:")]
    assert set(top["table"]) == {"star98"} and top["line_kept"].all()
    tanh = flags[flags["table"].str.startswith("large:tanh")]
    assert (~tanh["line_kept"]).sum() == 3 and not tanh["held_top"].any()
    fits = (HERE / "fits.txt").read_text().splitlines()
    assert len(fits) == 1  # the header alone: no larger table fires
    text = readme(FOLDER)
    assert "it fires on none." in text and "keep no line on three fits of four" in text


def test_the_toys_table_is_toys_today_txt():
    toys = pd.read_csv(HERE / "toys-today.txt", sep=" ")
    sat = toys[toys["toy"] == "saturating"].set_index("seed")
    text = readme(FOLDER)
    for seed, r in sat.iterrows():
        cells = " | ".join(f"{v:.4g}" for v in (r.edge, r.network, r.least_squares, r.boosted_trees))
        assert f"| {seed} | {cells} |" in text, seed
    better = [int(s) for s, r in sat.iterrows() if r.edge < r.network]
    assert better == [0] and "Holding is better on seed 0 and worse on seeds 1 and 2" in text
    assert (sat.boosted_trees < sat[["edge", "network"]].min(axis=1) / 10).all()


def test_the_verdict_quotes_the_curved_toy_at_the_edge():
    toys = pd.read_csv(HERE / "toys-today.txt", sep=" ")
    curved = toys[toys["toy"] == "curved"]
    better = curved[["least_squares", "boosted_trees"]].min(axis=1)
    assert (curved["edge"] > better).all()  # the edge reading fails the product's curved-toy bound
    text = readme(FOLDER)
    edge = f"{curved.edge.min():.1f}–{curved.edge.max():.1f}"
    assert f"the trees ({better.min():.1f}–{better.max():.1f}), and at the edge it is {edge}" in text
