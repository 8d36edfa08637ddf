"""scinum.analysis.plots on a small synthetic results directory, and `scinum plot`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from scinum.errors import ResultsError
from scinum.analysis.results import load_results
from scinum.analysis.plots import make_all
from scinum.analysis.density import plot_gmm_density
from scinum.analysis.ood import plot_ood
from scinum.analysis.scatter import plot_scatter
from scinum.cli.main import main

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
STEP = "description.stepsize"
A1 = "description.planet0.a"
TRAIN_STEPS = [0.2, 0.3, 0.5, 0.8]


def _rows(model: str, field: str, split: str, true: np.ndarray, pred: np.ndarray, mixture: bool = False) -> list[dict]:
    rows = []
    for i, (t, p) in enumerate(zip(true, pred)):
        row = {
            "model": model,
            "encoding": model.split("+")[0],
            "head": "mixture" if mixture else "native",
            "field": field,
            "split": split,
            "record": i,
            "path": field,
            "true": t,
            "pred": p,
        }
        if mixture:
            w, mu, sd = [0.7, 0.3], [p, p + 0.1], [0.02, 0.05]
            row |= {
                "mean": 0.7 * mu[0] + 0.3 * mu[1],
                "std": 0.04,
                "lo68": p - 0.02,
                "hi68": p + 0.04,
                "lo95": p - 0.04,
                "hi95": p + 0.15,
                "mixture": json.dumps({"weights": w, "means": mu, "stds": sd}),
            }
        rows.append(row)
    return rows


def write_results(d: Path, *, meta: bool = True) -> Path:
    rng = np.random.default_rng(0)
    rows = []
    ood_true = np.repeat([0.25, 0.4, 0.65], 4)
    test_true = rng.choice(TRAIN_STEPS, 30)
    a_test = rng.uniform(1.16, 3.0, 40)
    a_ood = rng.uniform(1.0, 1.16, 12)
    snap = lambda v: np.asarray(TRAIN_STEPS)[np.abs(np.subtract.outer(v, TRAIN_STEPS)).argmin(1)]
    for model in ("xval", "p1000", "xval+gmm"):
        mix = model == "xval+gmm"
        smooth = lambda v: v + rng.normal(0, 0.02, v.size)
        step_pred = snap(ood_true) if model == "p1000" else smooth(ood_true)
        a_pred = smooth(a_test)
        if model == "p1000":  # text encoding: some predictions do not parse
            a_pred[::7] = np.nan
        rows += _rows(model, STEP, "ood_stepsize", ood_true, step_pred, mix)
        rows += _rows(model, STEP, "test", test_true, smooth(test_true), mix)
        rows += _rows(model, A1, "test", a_test, a_pred, mix)
        rows += _rows(model, A1, "ood_a1", a_ood, smooth(a_ood), mix)
    d.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(d / "predictions.csv", index=False)
    (d / "train_values.json").write_text(
        json.dumps({STEP: TRAIN_STEPS, A1: [1.0] + sorted(np.round(rng.uniform(1.16, 3, 50), 4).tolist())})
    )
    if meta:
        (d / "meta.json").write_text(
            json.dumps(
                {
                    "dataset": "planets-tiny",
                    "builder": "planets",
                    "units": {STEP: "time units"},
                    "ood_fields": {"ood_stepsize": STEP, "ood_a1": A1},
                }
            )
        )
    return d


@pytest.fixture
def saved(monkeypatch) -> list[Figure]:
    """Every figure a plot saves, in order: a spy on ``Figure.savefig``, where every plot ends
    (its axes' artists hold the plotted data)."""
    figs: list[Figure] = []
    original = Figure.savefig

    def spy(fig, *args, **kwargs):
        figs.append(fig)
        return original(fig, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", spy)
    return figs


def _legends(figs: list[Figure]) -> list[str]:
    return [t.get_text() for fig in figs for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]


def _assert_pngs(paths: list[Path]) -> None:
    for p in paths:
        data = Path(p).read_bytes()
        assert data[:8] == PNG_MAGIC, p
        assert len(data) > 10_000, (p, len(data))


def test_make_all_writes_every_plot(tmp_path):
    d = write_results(tmp_path / "res")
    written = make_all(d)
    names = sorted(p.name for p in written)
    assert names == sorted(
        [
            "ood_ood_stepsize__description.stepsize.png",
            "ood_ood_a1__description.planet0.a.png",
            "hist_test__description.stepsize.png",
            "hist_test__description.planet0.a.png",
            "gmm_xval_gmm_test__description.stepsize.png",
            "gmm_xval_gmm_test__description.planet0.a.png",
            "scatter_test__description.planet0.a.png",
            "fig7_test__description.planet0.a.png",
        ]
    )  # 40 distinct true a1, stepsize only 4
    assert all(p.parent == d / "plots" for p in written)
    _assert_pngs(written)
    # deterministic: drawing again gives the same bytes
    again = plot_ood(load_results(d), STEP, "ood_stepsize", tmp_path / "again.png")
    first = d / "plots" / "ood_ood_stepsize__description.stepsize.png"
    assert again.read_bytes() == first.read_bytes()


def test_ood_with_continuous_training_values(tmp_path):
    d = write_results(tmp_path / "res")
    res = load_results(d)
    res.train_values[STEP] = np.linspace(0.1, 0.9, 150).tolist()  # rug, not 150 lines
    out = plot_ood(res, STEP, "ood_stepsize", tmp_path / "rug.png")
    _assert_pngs([out])
    with pytest.raises(ResultsError, match="no rows for field 'nope'"):
        plot_ood(res, "nope", "ood_stepsize", tmp_path / "x.png")


def _minimal(d: Path) -> Path:
    """Only xval's OOD rows, no meta.json, no train_values.json, no interval columns."""
    write_results(d, meta=False)
    (d / "train_values.json").unlink()
    df = pd.read_csv(d / "predictions.csv")
    df = df[(df["model"] == "xval") & df["split"].str.startswith("ood_")]
    df.drop(columns=["mean", "std", "lo68", "hi68", "lo95", "hi95", "mixture"]).to_csv(d / "predictions.csv", index=False)
    return d


def test_without_meta_and_train_values(tmp_path):
    names = sorted(p.name for p in make_all(_minimal(tmp_path / "res")))
    # no ood_fields: every ood_* split x field present; no test split: histograms on the first
    assert names == [
        "hist_ood_a1__description.planet0.a.png",
        "ood_ood_a1__description.planet0.a.png",
        "ood_ood_stepsize__description.stepsize.png",
    ]


def test_cli_plot(tmp_path, capsys):
    d = _minimal(tmp_path / "res")
    assert main(["plot", str(d)]) == 0
    printed = capsys.readouterr().out.split()
    assert len(printed) == 3 and all(Path(p).is_file() for p in printed)
    _assert_pngs([Path(p) for p in printed])


def test_missing_predictions_is_a_clear_error(tmp_path, capsys):
    d = tmp_path / "empty"
    d.mkdir()
    with pytest.raises(ResultsError, match="predictions.csv"):
        load_results(d)
    assert main(["plot", str(d)]) == 1
    assert "predictions.csv" in capsys.readouterr().err
    assert main(["plot", str(tmp_path / "nope")]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_missing_column_and_bad_mixture(tmp_path):
    d = write_results(tmp_path / "res")
    df = pd.read_csv(d / "predictions.csv")
    df.drop(columns=["pred"]).to_csv(d / "predictions.csv", index=False)
    with pytest.raises(ResultsError, match="missing column.*pred"):
        load_results(d)
    df.loc[df["mixture"].notna(), "mixture"] = "{not json"
    df.to_csv(d / "predictions.csv", index=False)
    with pytest.raises(ResultsError, match="bad mixture"):
        plot_gmm_density(load_results(d), "xval+gmm", STEP, "test", tmp_path / "x.png")
    with pytest.raises(ResultsError, match="no mixture rows for model 'xval'"):
        plot_gmm_density(load_results(d), "xval", STEP, "test", tmp_path / "x.png")


@pytest.mark.parametrize("how", ["all", "some"])
def test_non_finite_predictions_are_drawn_at_the_edge_and_counted(tmp_path, saved, how):
    """A diverged model (±inf, huge values, non-finite mixtures) must not crash any plot: the
    fresh-machine main job died in plot_scatter on BitTokens predictions that decoded to ±inf."""
    d = write_results(tmp_path / "res")
    p = pd.read_csv(d / "predictions.csv")
    wild = np.resize([np.inf, -np.inf, 1e300, -1e300], len(p))
    sel = np.ones(len(p), bool) if how == "all" else (p.index % 3 == 0)
    p.loc[sel, "pred"] = wild[sel]
    mix = p["mixture"].notna() & sel
    p.loc[mix, "mixture"] = json.dumps({"weights": [np.nan, 1.0], "means": [np.inf, -np.inf], "stds": [1.0, np.inf]}).replace("NaN", "NaN")
    p.to_csv(d / "predictions.csv", index=False)
    (d / "meta.json").write_text(json.dumps({"builder": "toy", "ood_fields": {"ood_stepsize": STEP}}))
    written = make_all(d)
    _assert_pngs(written)
    assert len(saved) == len(written)
    legends = _legends(saved)
    assert any(n.name.startswith("scatter_") for n in written) and any(n.name.startswith("gmm_") for n in written)
    n_off = sum(int(t.split("\n")[-1].split()[0]) for t in legends if t.endswith("off-scale"))
    assert n_off > 0
    assert any("outside range" in t for t in legends)
    scatter_counts = [t for t in legends if "R²" in t and "off-scale" in t]
    assert scatter_counts  # the scatter panels name how many they drew at the edge


def test_training_curves_from_the_logs(tmp_path, saved):
    """results/<recipe>/logs/<model>.csv -> plots/curves_<model>.png with train and val lines
    of the losses and of the number error."""
    d = write_results(tmp_path / "res")
    (d / "logs").mkdir()
    steps = np.arange(9, 300, 10)
    rows = [
        {
            "epoch": 0,
            "step": s,
            "train/loss": 3 * np.exp(-s / 100) + 0.1,
            "train/token_ce": 2 * np.exp(-s / 100),
            "train/number_loss": np.exp(-s / 80),
            "train/number_abs_err": 0.5 * np.exp(-s / 90),
        }
        for s in steps
    ]
    rows += [
        {
            "epoch": 0,
            "step": s,
            "val/loss": 0.5,
            "val/token_ce": 0.3,
            "val/number_loss": 0.2,
            "val/number_abs_err": 0.1,
            "val/err/description.stepsize": 0.3 / s,
            "val/err/description.planet0.a": 0.2,
        }
        for s in (99, 199, 299)
    ]
    pd.DataFrame(rows).to_csv(d / "logs" / "xval.csv", index=False)
    written = make_all(d)
    assert (d / "plots" / "curves_xval.png") in written
    labels: list[str] = []
    for ax in saved[written.index(d / "plots" / "curves_xval.png")].axes:
        mine = [t for t in ax.get_legend_handles_labels()[1] if t.startswith(("train ", "val ", "description."))]
        if mine:
            labels.extend(mine)
            assert ax.get_yscale() == "log"  # positive losses: a log axis
    assert {"train loss", "val loss", "train number_abs_err", "val number_abs_err", "description.stepsize", "description.planet0.a"} <= set(
        labels
    )  # per-field panel
    (d / "logs" / "bad.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ResultsError, match="bad.csv: not a scinum training log"):
        make_all(d)


def test_plots_draw_the_predictions_of_their_model_field_and_split(tmp_path, saved):
    """Not just a PNG of some size: the OOD plot's lines are the per-true-value means of each
    model's predictions on that split, its points every parseable prediction, and each scatter
    panel holds exactly its model's (true, predicted) pairs with their R² in the legend."""
    from scinum.analysis.metrics import r2

    d = write_results(tmp_path / "res")
    res = load_results(d)
    p = pd.read_csv(d / "predictions.csv")
    plot_ood(res, STEP, "ood_stepsize", tmp_path / "ood.png")
    ax = saved[-1].axes[0]
    lines = {ln.get_label().split(" (")[0]: ln for ln in ax.lines if not ln.get_label().startswith("_")}
    for model in ("xval", "p1000", "xval+gmm"):
        g = p[(p["model"] == model) & (p["field"] == STEP) & (p["split"] == "ood_stepsize")]
        mean = g.groupby("true")["pred"].mean()
        assert np.allclose(lines[model].get_xdata(), mean.index) and np.allclose(lines[model].get_ydata(), mean)
    points = np.concatenate([ln.get_ydata() for ln in ax.lines if ln.get_marker() == "o"])
    ood = p[(p["field"] == STEP) & (p["split"] == "ood_stepsize")]
    assert np.allclose(np.sort(points), np.sort(ood["pred"]))
    plot_scatter(res, A1, "test", tmp_path / "scatter.png")
    for ax in saved[-1].axes:
        if not ax.get_visible():
            continue
        label = ax.get_legend().get_texts()[0].get_text()
        model = label.split()[0]
        g = p[(p["model"] == model) & (p["field"] == A1) & (p["split"] == "test")]
        shown = g[g["pred"].notna()]
        xy = ax.collections[0].get_offsets()
        assert np.allclose(np.sort(xy[:, 0]), np.sort(shown["true"])) and np.allclose(np.sort(xy[:, 1]), np.sort(shown["pred"]))
        assert f"R² = {r2(g['true'].to_numpy(), g['pred'].to_numpy()):.3f}" in label
        assert (g["pred"].isna().sum() > 0) == ("unparseable" in label)


def test_fig7_joint_histograms_count_every_prediction(tmp_path, saved):
    """The Fig. 7 view (seed 002): per model a 2-d histogram of (true, predicted) m1. A model that
    predicts the mean is a horizontal band, a text model a few stripes; every parseable
    prediction inside the range is in a cell, the others are counted in the title."""
    from scinum.analysis.histograms import plot_joint_histograms

    m1 = "description.planet0.m"
    rng = np.random.default_rng(1)
    true = rng.uniform(1, 5, 300)
    p10 = rng.choice([1.5, 2.5, 3.5, 4.5], true.size)
    p10[:7] = np.nan  # unparseable
    xval = np.full(true.size, 3.0) + rng.normal(0, 0.05, true.size)
    xval[:3] = [1e9, -np.inf, 100.0]  # outside the range
    rows = _rows("p10", m1, "test", true, p10) + _rows("xval", m1, "test", true, xval)
    d = tmp_path / "res"
    d.mkdir()
    pd.DataFrame(rows).to_csv(d / "predictions.csv", index=False)
    (d / "meta.json").write_text(json.dumps({"units": {m1: "1e-5 M_star"}}))
    out = plot_joint_histograms(load_results(d), m1, "test", tmp_path / "fig7.png")
    _assert_pngs([out])
    titles = {ax.get_title(): float(ax.collections[0].get_array().sum()) for ax in saved[-1].axes if ax.collections and ax.get_title()}
    (p10_title, p10_sum), (xval_title, xval_sum) = sorted(titles.items())
    assert p10_title.startswith("p10:") and "7 unparseable" in p10_title and p10_sum == 293
    assert xval_title.startswith("xval:") and "3 outside" in xval_title and xval_sum == 297
    assert "R² = " in xval_title
    written = {p.name for p in make_all(d)}  # wired into `scinum plot`
    assert "fig7_test__description.planet0.m.png" in written
    with pytest.raises(ResultsError, match="no rows for field 'nope'"):
        plot_joint_histograms(load_results(d), "nope", "test", tmp_path / "x.png")
