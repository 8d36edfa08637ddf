"""Means, t intervals and paired differences over seeds, against hand computations."""

import math

import numpy as np
import pandas as pd
import pytest

from scinum.analysis.stats import mean_ci, paired_difference, paired_table, summarize_seeds

T2 = 4.302652729911275  # t_{0.975, 2 df}, from a table
T4 = 2.7764451051977987  # t_{0.975, 4 df}


def test_mean_ci_by_hand():
    r = mean_ci([1.0, 2.0, 3.0])  # mean 2, s = 1, half width = 4.3027 / sqrt(3) = 2.48414
    assert r["mean"] == 2.0 and r["sd"] == pytest.approx(1.0) and r["n_seeds"] == 3
    assert r["ci95_low"] == pytest.approx(2 - 2.484138, abs=1e-6)
    assert r["ci95_high"] == pytest.approx(2 + 2.484138, abs=1e-6)
    r = mean_ci([2.0, 4.0, 4.0, 4.0, 6.0])  # mean 4, s^2 = 8/4 = 2
    assert r["ci95_high"] - 4 == pytest.approx(T4 * math.sqrt(2) / math.sqrt(5))


def test_mean_ci_edge_cases():
    one = mean_ci([0.5])
    assert one["mean"] == 0.5 and one["n_seeds"] == 1 and math.isnan(one["ci95_low"])
    none = mean_ci([math.nan, math.nan])
    assert none["n_seeds"] == 0 and math.isnan(none["mean"])
    r = mean_ci([1.0, math.nan, 3.0])  # NaN (undefined on a seed) is left out
    assert r["n_seeds"] == 2 and r["mean"] == 2.0
    assert r["ci95_high"] - 2 == pytest.approx(12.706204736174698 * math.sqrt(2) / math.sqrt(2))
    same = mean_ci([0.3, 0.3, 0.3])
    assert same["ci95_low"] == pytest.approx(0.3) and same["ci95_high"] == pytest.approx(0.3)


def test_paired_difference_by_hand():
    r = paired_difference([3.0, 5.0, 7.0], [1.0, 2.0, 3.0])  # d = 2, 3, 4
    assert r["diff"] == 3.0 and r["n_seeds"] == 3 and r["significant"]
    assert (r["ci95_low"], r["ci95_high"]) == pytest.approx((3 - 2.484138, 3 + 2.484138), abs=1e-6)
    # differences straddling 0 are not significant, although every a differs from its b
    r = paired_difference([1.0, 2.0, 3.0], [2.0, 1.0, 3.5])  # d = -1, 1, -0.5
    assert not r["significant"] and r["diff"] == pytest.approx(-1 / 6)
    # unpaired, the same numbers can look different: pairing is what the seeds buy
    r = paired_difference([1.0, 2.0, 3.0], [1.1, 2.1, 3.1])
    assert r["significant"] and r["diff"] == pytest.approx(-0.1)


def test_paired_difference_of_mse_is_a_ratio():
    # log10 ratios 1, log10 2 + 1, log10 4 + 1: mean 1 + log10 2 (ratio 20), s = log10 2
    r = paired_difference([1e-2, 2e-2, 4e-2], [1e-3, 1e-3, 1e-3], log=True)
    assert r["ratio"] == pytest.approx(20.0)
    half = T2 * math.log10(2) / math.sqrt(3)
    assert r["ratio_low"] == pytest.approx(10 ** (1 + math.log10(2) - half))
    assert r["ratio_high"] == pytest.approx(10 ** (1 + math.log10(2) + half))
    assert r["significant"]
    r = paired_difference([1.0, 2.0, math.nan], [1.0, 1.0, 1.0], log=True)  # NaN pair dropped
    assert r["n_seeds"] == 2
    with pytest.raises(ValueError, match="one value per seed"):
        paired_difference([1.0, 2.0], [1.0])


def _per_seed():
    rows = []
    for model, base in (("xval", 1e-3), ("p10", 1e-2)):
        for seed in range(3):
            for split in ("test", "ood"):
                rows.append({"model": model, "seed": seed, "field": "x", "split": split, "mse": base * (seed + 1), "r2": 0.9 - 0.1 * seed})
    return pd.DataFrame(rows)


def test_summarize_seeds_gives_one_row_per_cell_and_metric():
    long = summarize_seeds(_per_seed(), ["mse", "r2"])
    assert list(long.columns) == ["model", "field", "split", "metric", "mean", "ci95_low", "ci95_high", "n_seeds"]
    assert len(long) == 2 * 2 * 2 and (long["n_seeds"] == 3).all()
    r = long[(long.model == "xval") & (long.split == "test") & (long.metric == "mse")].iloc[0]
    assert r["mean"] == pytest.approx(2e-3)
    assert r["ci95_high"] == pytest.approx(2e-3 + T2 * 1e-3 / math.sqrt(3))
    r = long[(long.model == "p10") & (long.split == "ood") & (long.metric == "r2")].iloc[0]
    assert r["mean"] == pytest.approx(0.8)


def test_paired_table_pairs_by_seed():
    per_seed = _per_seed().sample(frac=1.0, random_state=1)  # row order must not matter
    t = paired_table(per_seed, "xval", [("x", "test"), ("x", "ood")])
    assert list(t["model"]) == ["p10", "p10"]
    assert t["ratio"].to_numpy() == pytest.approx([10.0, 10.0])  # exactly 10x on every seed
    assert t["significant"].all()
    assert np.allclose(t["ratio_low"], 10.0) and np.allclose(t["ratio_high"], 10.0)
