"""Means, t intervals, the divergence rule, median cells and Holm over seeds, against hand
computations (the paired bootstrap: tests/test_paired.py)."""

import math

import pandas as pd
import pytest

from scinum.analysis.stats import DIVERGENCE_FACTOR, diverged, holm, mean_ci, summarize_seeds

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


def _per_seed():
    rows = []
    for model, base in (("xval", 1e-3), ("p10", 1e-2)):
        for seed in range(3):
            for split in ("test", "ood"):
                rows.append({"model": model, "seed": seed, "field": "x", "split": split, "mse": base * (seed + 1), "r2": 0.9 - 0.1 * seed})
    return pd.DataFrame(rows)


def test_summarize_seeds_gives_one_row_per_cell_and_metric():
    long = summarize_seeds(_per_seed(), ["mse", "r2"])
    assert list(long.columns) == [
        *("model", "field", "split", "metric", "mean", "ci95_low", "ci95_high", "n_seeds", "median", "n_diverged", "n_records")
    ]
    assert (long["n_diverged"] == 0).all()
    assert len(long) == 2 * 2 * 2 and (long["n_seeds"] == 3).all()
    r = long[(long.model == "xval") & (long.split == "test") & (long.metric == "mse")].iloc[0]
    assert r["mean"] == pytest.approx(2e-3)
    assert r["ci95_high"] == pytest.approx(2e-3 + T2 * 1e-3 / math.sqrt(3))
    r = long[(long.model == "p10") & (long.split == "ood") & (long.metric == "r2")].iloc[0]
    assert r["mean"] == pytest.approx(0.8)


def test_the_divergence_rule_is_non_finite_or_ten_times_the_train_mean():
    assert DIVERGENCE_FACTOR == 10.0
    mse = [0.5, 9.9, 10.1, math.inf, math.nan, 1e300, 3.0]
    ref = [1.0, 1.0, 1.0, 1.0, 1.0, math.nan, math.nan]  # no reference: only non-finite diverges
    assert diverged(mse, ref).tolist() == [False, False, True, True, True, False, False]
    assert diverged([1e300, math.inf]).tolist() == [False, True]


def test_a_cell_with_a_diverged_seed_is_its_median_and_k_of_n():
    rows = [
        {"model": "m", "seed": s, "field": "x", "split": "test", "mse": v, "r2": r, "diverged": d, "n_records": 200}
        for s, (v, r, d) in enumerate([(0.01, 0.9, False), (0.03, 0.7, False), (1e6, -1e7, True)])
    ]
    rows += [
        {"model": "ok", "seed": s, "field": "x", "split": "test", "mse": 0.01 * (s + 1), "r2": 0.5, "diverged": False} for s in range(3)
    ]
    long = summarize_seeds(pd.DataFrame(rows), ["mse", "r2"]).set_index(["model", "metric"])
    mse, r2 = long.loc[("m", "mse")], long.loc[("m", "r2")]
    assert mse["median"] == 0.03 and r2["median"] == 0.7  # not the diverged seed's 1e6 / -1e7
    assert math.isnan(mse["mean"]) and math.isnan(mse["ci95_low"]) and math.isnan(r2["ci95_high"])
    assert mse["n_diverged"] == 1 and mse["n_seeds"] == 3 and mse["n_records"] == 200
    ok = long.loc[("ok", "mse")]  # a cell without one keeps its mean and t interval
    assert ok["n_diverged"] == 0 and ok["mean"] == pytest.approx(0.02) and ok["ci95_high"] == pytest.approx(0.02 + T2 * 0.01 / math.sqrt(3))
    assert math.isnan(ok["n_records"])


def test_holm_on_a_known_family():
    # sorted 0.005, 0.01, 0.03, 0.04 -> x4, x3, x2, x1 = 0.02, 0.03, 0.06, 0.04 -> running max
    adjusted = holm([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert (adjusted < 0.05).tolist() == [True, False, False, True]
    # without Holm all four are below 0.05; a NaN (no test) is not in the family (m = 2)
    with_nan = holm([math.nan, 0.02, 0.04])
    assert math.isnan(with_nan[0]) and with_nan[1:] == pytest.approx([0.04, 0.04])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0]) and holm([]).size == 0


def test_an_interval_never_leaves_what_the_metric_can_be():
    """Skewed seeds (one weak among good ones) put a symmetric t interval below 0 for MSE and
    above 1 for R²; the summary clips each bound to the metric's range, the mean untouched."""
    per_seed = pd.DataFrame(
        {
            "model": "m",
            "seed": [0, 1, 2],
            "field": "f",
            "split": "test",
            "mse": [0.001, 0.001, 0.05],
            "r2": [0.99, 0.99, 0.5],
            "coverage68": [0.99, 0.98, 0.2],
        }
    )
    long = summarize_seeds(per_seed, ["mse", "r2", "coverage68"]).set_index("metric")
    raw = {m: mean_ci(per_seed[m]) for m in ("mse", "r2", "coverage68")}
    assert raw["mse"]["ci95_low"] < 0 and long.loc["mse", "ci95_low"] == 0.0
    assert long.loc["mse", "ci95_high"] == pytest.approx(raw["mse"]["ci95_high"])
    assert raw["r2"]["ci95_high"] > 1 and long.loc["r2", "ci95_high"] == 1.0
    assert long.loc["coverage68", "ci95_low"] == 0.0 and long.loc["coverage68", "ci95_high"] == 1.0
    assert (long["mean"] == pd.Series({m: raw[m]["mean"] for m in raw})).all()
