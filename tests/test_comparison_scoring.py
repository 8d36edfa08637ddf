"""How a comparison scores and reports its runs, on hand-built predictions (no training):
unparsed predictions scored as the train mean, diverged seeds as medians, every cell's n."""

import gzip
import io
import math

import numpy as np
import pandas as pd
import pytest

from scinum.analysis.report import write_comparison
from scinum.analysis.scoring import fill_unparsed, rescore
from scinum.errors import RecipeError

MANIFEST = {"evaluation": {"train_ranges": {"x": [0.0, 1.0]}}}


def evaluated(model: str, seed: int, pred, truth, unparseable=None, split: str = "test") -> pd.DataFrame:
    """Rows as a run's predictions.csv holds them (``scinum evaluate``)."""
    n = len(truth)
    return pd.DataFrame(
        {
            "model": model,
            "seed": seed,
            "field": "x",
            "split": split,
            "record": np.arange(n),
            "path": "x",
            "true": np.asarray(truth, dtype=np.float64),
            "pred": np.asarray(pred, dtype=np.float64),
            "unparseable": np.zeros(n, bool) if unparseable is None else np.asarray(unparseable),
        }
    )


def test_unparsed_predictions_are_scored_as_the_train_mean_and_counted():
    truth = [0.0, 0.5, 1.0, 1.0]
    rows = evaluated("p10", 0, [0.1, math.nan, 0.9, math.nan], truth, unparseable=[False, True, False, True])
    filled = fill_unparsed(rows, {"x": 0.5})
    assert filled["pred"].tolist() == [0.1, 0.5, 0.9, 0.5] and filled["unparsed"].tolist() == [False, True, False, True]
    s = rescore(filled, MANIFEST, {"x": 0.5}).iloc[0]
    assert s["n_unparsed"] == 2 and s["n_records"] == 4
    # every prediction counts: (0.01 + 0 + 0.01 + 0.25) / 4, not the parsed pair's 0.01
    assert s["mse"] == pytest.approx(0.27 / 4) and s["mse_parsed"] == pytest.approx(0.01)
    sst = sum((t - 0.625) ** 2 for t in truth)
    assert s["r2"] == pytest.approx(1 - 0.27 / sst)
    assert s["train_mean_mse"] == pytest.approx((0.25 + 0 + 0.25 + 0.25) / 4)
    # a NaN that a number head predicted is a wrong prediction (inf), not left out or filled
    nan = fill_unparsed(evaluated("xval", 0, [math.nan, 0.5, 1.0, 1.0], truth), {"x": 0.5})
    assert nan["pred"].iloc[0] == math.inf and not nan["unparsed"].any()
    assert rescore(nan, MANIFEST, {"x": 0.5}).iloc[0]["mse"] == math.inf


def test_rescore_splits_an_ood_split_into_its_interpolation_and_extrapolation_cells():
    rows = evaluated("m", 0, [0.5, 2.5], [0.4, 2.0], split="ood")
    s = rescore(fill_unparsed(rows, {"x": 0.5}), MANIFEST, {"x": 0.5}).set_index("split")
    assert list(s.index) == ["ood", "ood:interp", "ood:extrap"]
    assert s.loc["ood:interp", "mse"] == pytest.approx(0.01) and s.loc["ood:extrap", "mse"] == pytest.approx(0.25)


def comparison(tmp_path):
    """Two models, three seeds, 50 records; model 'wild' diverges on seed 2."""
    rng = np.random.default_rng(0)
    truth = rng.uniform(0, 1, 50)
    frames = []
    for seed in range(3):
        frames.append(evaluated("ref", seed, truth + rng.normal(0, 0.1, 50), truth))
        wild = truth + rng.normal(0, 0.05, 50) if seed < 2 else np.full(50, 1e6)
        frames.append(evaluated("wild", seed, wild, truth))
    filled = fill_unparsed(pd.concat(frames, ignore_index=True), {"x": 0.5})
    per_seed = rescore(filled, MANIFEST, {"x": 0.5})
    spec = {"metric": "mse", "reference": "ref", "columns": [{"name": "x", "field": "x", "split": "test"}]}
    meta = {
        "budget": {"samples": 8},
        "seeds": [0, 1, 2],
        "recipe": "planets",
        "command": "python recipes/planets.py --preset parity --seeds 3",
        "commit": "0123456789abcdef",
        "dirty": False,
        "machine": "m",
        "finished": "2026-11-25T12:00:00+00:00",
        "elapsed_s": 60.0,
    }
    return write_comparison(tmp_path, per_seed, meta, spec, predictions=filled, train_ranges=MANIFEST["evaluation"]["train_ranges"]), filled


def test_report_shows_medians_of_diverged_cells_n_and_holm(tmp_path):
    out, filled = comparison(tmp_path)
    table = pd.read_csv(out / "table.csv").set_index(["model", "metric"])
    wild, ref = table.loc[("wild", "mse")], table.loc[("ref", "mse")]
    assert wild["n_diverged"] == 1 and math.isnan(wild["mean"]) and math.isnan(wild["ci95_high"])
    assert wild["median"] < 0.01 and wild["n_records"] == 50 and wild["n_seeds"] == 3
    assert ref["n_diverged"] == 0 and ref["ci95_low"] < ref["mean"] < ref["ci95_high"]
    assert pd.read_csv(out / "seeds.csv")["diverged"].tolist() == [False, False, False, False, False, True]
    md = (out / "table.md").read_text()
    assert f"median {wild['median']:.2g} (diverged 1/3) (n 50 × 3)" in md
    assert "exceeds 10× the train mean's MSE" in md and "(n 50 × 3)" in md.split("| **ref**")[1].split("\n")[0]
    paired = pd.read_csv(out / "paired.csv").iloc[0]
    # 4x better on two seeds, 1e14x worse on one: the resampled seeds make it no verdict either way
    assert paired["ratio"] > 1000 and paired["ratio_low"] < 1 < paired["ratio_high"] and paired["n_records"] == 50
    assert not paired["significant"] and not paired["survives_holm"]
    assert "The family corrected for multiplicity is this table's 1 tests" in md and "survives Holm" in md


def test_predictions_are_written_to_recompute_every_cell(tmp_path):
    out, filled = comparison(tmp_path)
    raw = (out / "predictions.csv.gz").read_bytes()
    again, _ = comparison(tmp_path / "again")
    assert (again / "predictions.csv.gz").read_bytes() == raw  # the same predictions, the same bytes
    p = pd.read_csv(io.BytesIO(gzip.decompress(raw)))
    assert list(p.columns) == ["model", "seed", "split", "field", "record", "truth", "prediction", "unparsed"]
    assert len(p) == len(filled) and p["prediction"].to_numpy() == pytest.approx(filled["pred"].to_numpy(), rel=0, abs=0)
    ref = p[p["model"] == "ref"]
    per_seed = ((ref["prediction"] - ref["truth"]) ** 2).groupby(ref["seed"]).mean()
    cell = pd.read_csv(out / "table.csv").set_index(["model", "metric"]).loc[("ref", "mse")]
    assert per_seed.mean() == pytest.approx(cell["mean"], rel=1e-12)


def test_publish_brings_the_predictions_and_a_cell_recomputes_from_them(tmp_path):
    from recipes.publish import publish

    out, _ = comparison(tmp_path / "results")
    docs = publish(out, tmp_path / "docs")
    assert (docs / "predictions.csv.gz").read_bytes() == (out / "predictions.csv.gz").read_bytes()
    p = pd.read_csv(docs / "predictions.csv.gz")  # a reader's recomputation: R² of ref on test
    table = pd.read_csv(docs / "table.csv").set_index(["model", "metric"])
    ref = p[(p["model"] == "ref") & (p["split"] == "test") & (p["field"] == "x")]
    r2 = [1 - ((g.prediction - g.truth) ** 2).sum() / ((g.truth - g.truth.mean()) ** 2).sum() for _, g in ref.groupby("seed")]
    assert np.mean(r2) == pytest.approx(table.loc[("ref", "r2"), "mean"], rel=1e-9)
    (out / "predictions.csv.gz").unlink()  # a comparison without its predictions is not published
    with pytest.raises(RecipeError, match="predictions.csv.gz: missing"):
        publish(out, tmp_path / "docs2")
    assert not (tmp_path / "docs2").exists()
