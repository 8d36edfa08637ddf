"""The paired bootstrap over records and seeds, on tiny hand-built predictions (no training)."""

import math

import numpy as np
import pandas as pd
import pytest

from scinum.analysis.paired import RESAMPLES, paired_bootstrap, paired_table


def predictions(errors: dict[str, list[float]], records: int = 40, field: str = "x", split: str = "test") -> pd.DataFrame:
    """One number per record; model m's prediction on seed s is the truth plus
    ``errors[m][s]`` times a fixed pattern of ±1 and ±2 (so its MSE is errors[m][s]² · 2.5)."""
    truth = np.linspace(0.0, 1.0, records)
    pattern = np.resize([1.0, -2.0, -1.0, 2.0], records)
    rows = [
        pd.DataFrame(
            {
                "model": m,
                "seed": s,
                "field": field,
                "split": split,
                "record": np.arange(records),
                "true": truth,
                "pred": truth + e * pattern,
            }
        )
        for m, per_seed in errors.items()
        for s, e in enumerate(per_seed)
    ]
    return pd.concat(rows, ignore_index=True)


def test_a_known_ratio_is_found_and_significant():
    # b's errors are twice a's on every record and seed: MSE ratio a/b = 1/4 in every draw
    t = paired_table(predictions({"b": [0.2, 0.3, 0.1], "a": [0.1, 0.15, 0.05]}), "b", [("x", "test")], resamples=2000)
    r = t.iloc[0]
    assert r["model"] == "a" and r["n_seeds"] == 3 and r["n_records"] == 40 and r["resamples"] == 2000
    assert r["ratio"] == pytest.approx(0.25) and r["ratio_low"] == pytest.approx(0.25) and r["ratio_high"] == pytest.approx(0.25)
    assert r["significant"] and r["p"] == pytest.approx(2 / 2001) and r["survives_holm"]


def test_equal_predictions_show_no_difference():
    t = paired_table(predictions({"b": [0.2, 0.3, 0.1], "a": [0.2, 0.3, 0.1]}), "b", [("x", "test")], resamples=500)
    r = t.iloc[0]
    assert r["ratio"] == 1.0 and r["ratio_low"] == 1.0 and r["ratio_high"] == 1.0
    assert not r["significant"] and r["p"] == 1.0 and r["p_holm"] == 1.0 and not r["survives_holm"]


def test_noise_between_seeds_widens_the_interval_and_records_are_resampled():
    # a is better on two seeds and worse on one: the seeds' spread makes the interval span 1
    t = paired_table(predictions({"b": [0.2, 0.2, 0.2], "a": [0.1, 0.1, 0.4]}), "b", [("x", "test")], resamples=2000)
    r = t.iloc[0]
    assert r["ratio_low"] < 1 < r["ratio_high"] and not r["significant"] and r["p"] > 0.05
    # one seed, records that disagree: the interval comes from the records alone
    rng = np.random.default_rng(3)
    p = predictions({"b": [0.2], "a": [0.2]})
    p.loc[p["model"] == "a", "pred"] += rng.normal(0, 0.05, 40)
    r = paired_table(p, "b", [("x", "test")], resamples=2000).iloc[0]
    assert r["n_seeds"] == 1 and r["ratio_low"] < r["ratio"] < r["ratio_high"]


def test_reproducible_and_holm_across_the_table():
    p = pd.concat(
        [
            predictions({"ref": [0.2, 0.3, 0.1], "good": [0.1, 0.15, 0.05], "same": [0.2, 0.3, 0.1]}, split=split)
            for split in ("test", "ood")
        ]
    )
    cells = [("x", "test"), ("x", "ood")]
    t = paired_table(p, "ref", cells, resamples=1000)
    assert t.equals(paired_table(p, "ref", cells, resamples=1000))  # seeded: the same report again
    assert list(zip(t["model"], t["split"])) == [("good", "test"), ("same", "test"), ("good", "ood"), ("same", "ood")]
    # a family of 4: the smallest p (2/1001) times 4 still survives; the equal models do not
    assert t["p_holm"].tolist() == pytest.approx([4 * 2 / 1001, 1.0, 4 * 2 / 1001, 1.0])
    assert t["survives_holm"].tolist() == [True, False, True, False]


def test_a_diverged_seed_makes_its_draws_infinite_not_nan():
    sse_a = np.array([[1.0, 1.0], [math.inf, 1.0]])  # a diverged on seed 1
    sse_b = np.array([[1.0, 1.0], [1.0, 1.0]])
    r = paired_bootstrap(sse_a, sse_b, np.random.default_rng(0), resamples=1000)
    assert r["ratio"] == math.inf and r["ratio_high"] == math.inf and r["ratio_low"] == 1.0
    assert not r["significant"]
    both = paired_bootstrap(np.full((2, 2), math.inf), np.full((2, 2), math.inf), np.random.default_rng(0), resamples=100)
    assert both["ratio"] == 1.0 and both["p"] == 1.0  # both diverged everywhere: no evidence either way
    assert RESAMPLES == 10000
