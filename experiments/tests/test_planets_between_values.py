"""experiments/planets-between-values: the table and the figures its README quotes, recomputed
from predictions.csv.gz; the fills with the widening off are the published step-2 fills."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from published import readme, script

ROOT = Path(__file__).resolve().parents[2]
FOLDER = "planets-between-values"
HERE = ROOT / "experiments" / FOLDER


def test_the_readme_table_is_table_py_s():
    assert script(FOLDER, "table").table() in (HERE / "README.md").read_text(encoding="utf-8")


def test_the_widening_moves_no_prediction_and_off_is_what_step_2_published():
    f = pd.read_csv(HERE / "predictions.csv.gz")
    key = ["build", "seed", "split", "record"]
    on, off = (f[f.widening == w].set_index(key).sort_index() for w in ("on", "off"))
    assert (on.pred == off.pred).all() and (on.true == off.true).all() and len(on) == 7 * 400
    assert ((on.hi95 - on.lo95) >= (off.hi95 - off.lo95) - 1e-12).all()  # never narrower
    published = pd.read_csv(ROOT / "experiments" / "planets-line-cap" / "cap-1075k" / "predictions.csv.gz")
    published = published[(published.field == "description.stepsize") & published.split.isin(["test", "ood_stepsize"])]
    dev = off.loc["development (build 0)"].reset_index()
    both = dev.merge(published, on=["seed", "split", "record"])
    assert len(both) == 5 * 400 and (both.pred == both.prediction).all() and (both.true == both.truth).all()


def test_the_readme_quotes_the_scores():
    f = script(FOLDER, "table").scored()
    text = readme(FOLDER)
    g = f.groupby(["build", "where", "widening"]).agg(cover=("cover", "mean"), width=("width", "mean"), score=("score", "mean"))
    between = g.xs("between them", level="where")
    lo_before, hi_before = sorted(between.xs("off", level="widening").cover)
    lo_after, hi_after = sorted(between.xs("on", level="widening").cover)
    after, before = f"{100 * lo_after:.1f}–{100 * hi_after:.1f} %", f"{100 * lo_before:.1f}–{100 * hi_before:.1f} %"
    assert f"{after} of them cover the truth, against {before} before" in text
    ratio = between.xs("on", level="widening").width / between.xs("off", level="widening").width
    assert 5 <= ratio.min() and ratio.max() < 7 and "five to six times wider" in text
    score = between.xs("on", level="widening").score / between.xs("off", level="widening").score
    assert round(score["development (build 0)"], 2) == 0.33 and round(score["test (build 2718)"], 2) == 0.45
    past = g.xs("past them", level="where").cover
    before, after = (past.xs(w, level="widening") for w in ("off", "on"))
    assert f"from {100 * before.min():.1f}–{100 * before.max():.1f} % to {100 * after.min():.1f}–{100 * after.max():.1f} %" in text
