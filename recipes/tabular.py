"""Worked example "scinum for tabular data": Engel's food expenditure table with scinum.Regressor.

The data is real and ships inside the ``statsmodels`` wheel (``statsmodels.datasets.engel``:
235 Belgian working-class households in 1857, annual income and food expenditure in Belgian
francs; nothing is downloaded). The task: predict ``foodexp`` from ``income``.

Splits: the 10 % of households with the highest incomes are held out (``extrap``: incomes above
any the models trained on); of the rest, a seeded 25 % is the ``test`` split (inside the training
range) and 75 % is trained on. scinum.Regressor (its :data:`~scinum.estimator.DEFAULTS`: one
model) is compared with the standard regressors fitted on the same rows: the training mean,
ordinary least squares and gradient-boosted trees (scikit-learn); and the scinum rows of
:data:`SCINUM_ROWS`: an ensemble of three (``members: 3``: the default before,
experiments/tables-fit-cheaper); the default without the least-squares line under the network
(``line: False``: the default before, experiments/tables-linear-baseline); without the curvature
penalty (``optim: {curvature_weight: 0}``: the default before); then, each taking back one more
of the estimator's changes: the trunk's ``linear`` value path instead of ``linear_mlp`` (``model:
{value_path: linear}``: the MLPs read LayerNorms); xVal's own head instead of the mixture; the
mixture with a mean per component and no MSE term (``head: {location: free, mse_weight: 0}``:
the estimator's head before); that with the target hidden among MLM masks (``data:
{mask_fields_alone: false}``); and that with the paper's pre-LN trunk too (``model:
{value_path: layernorm}``: the estimator's first defaults). The rows from the fifth on say
"one member": one model each, as the default now trains (the published tables of
experiments/tabular-engel and tables-by-range-* were made when the default was three).
Metrics per split: R², mean squared error and its ratio to the best standard model's (OLS or
trees, whichever is lower on that split, over the seeds' mean), mean absolute error and the share
of households inside the 90 % interval (heads with a distribution); mean and range over the seeds.

    python recipes/tabular.py --out experiments/tabular-engel [--seeds 0 1 2]

writes ``table.md`` and ``engel.png`` (predictions and 90 % intervals against the truth) there.
Needs ``pip install -e ".[examples,baselines]"``. About 6 minutes on one core.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

TOP_SHARE, TEST_SHARE = 0.10, 0.25


def load(seed: int):
    """``(train, test, extrap)`` DataFrames of the Engel table (module docstring)."""
    from statsmodels.datasets import engel

    df = engel.load_pandas().data
    cut = df["income"].quantile(1 - TOP_SHARE)
    inside, extrap = df[df["income"] <= cut], df[df["income"] > cut]
    test = np.random.default_rng(seed).permutation(len(inside))[: int(round(TEST_SHARE * len(inside)))]
    is_test = np.zeros(len(inside), bool)
    is_test[test] = True
    return inside[~is_test], inside[is_test], extrap


#: the mixture head with a mean per component and no MSE term (the estimator's head before)
_FREE = {"config": {"head": {"location": "free", "mse_weight": 0.0}}}
#: one model (the default; said in the labels of the rows that were run beside an ensemble of three)
_ONE = {"members": 1}
#: an ensemble of three models (the estimator's default before experiments/tables-fit-cheaper)
_THREE = {"members": 3}
#: the MLPs read LayerNorms, only the attention values the residual stream (the default before)
_LINEAR = {"config": {"model": {"value_path": "linear"}}}
#: without the curvature penalty (the default before; experiments/tabular.md, *A curvature penalty*)
_NO_CURVATURE = {"config": {"optim": {"curvature_weight": 0.0}}}


def _merge(*options: dict) -> dict:
    """scinum.Regressor options, later ones over earlier ones (``config`` merged section by section)."""
    out: dict = {}
    for o in options:
        for k, v in o.items():
            if k == "config":
                config = {section: dict(keys) for section, keys in out.get("config", {}).items()}
                for section, keys in v.items():
                    config[section] = {**config.get(section, {}), **keys}
                out["config"] = config
            else:
                out[k] = v
    return out


#: the scinum rows: label -> scinum.Regressor options over its defaults; the second is an ensemble
#: of three (the default before), the third the first without the line under the network, the
#: fourth without the curvature penalty; each row after them takes back one more of the defaults'
#: changes
SCINUM_ROWS = {
    "scinum.Regressor": {},
    "scinum.Regressor, three members": _THREE,
    "scinum.Regressor, no line under the network": {"line": False},
    "scinum.Regressor, no curvature penalty": _NO_CURVATURE,
    "scinum.Regressor, one member, linear value path": _merge(_ONE, _LINEAR),
    "scinum.Regressor, one member, linear value path, xVal's head": _merge(_ONE, _LINEAR, {"config": {"head": {"kind": "native"}}}),
    "scinum.Regressor, one member, linear value path, free mixture means": _merge(_ONE, _LINEAR, _FREE),
    "scinum.Regressor, one member, linear value path, free mixture means, target not asked alone": _merge(
        _ONE, _LINEAR, _FREE, {"config": {"data": {"mask_fields_alone": False}}}
    ),
    "scinum.Regressor, one member, free mixture means, pre-LN trunk, target not asked alone": _merge(
        _ONE, _FREE, {"config": {"model": {"value_path": "layernorm"}, "data": {"mask_fields_alone": False}}}
    ),
}
#: the standard models whose best MSE a row is compared with
STANDARD = ("linear (OLS)", "boosted trees")


def _scores(y, pred, lo=None, hi=None) -> dict:
    from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score

    out = {"r2": r2_score(y, pred), "mse": mean_squared_error(y, pred), "mae": mean_absolute_error(y, pred)}
    if lo is not None:
        out["cover90"] = float(np.mean((y >= lo) & (y <= hi)))
    return out


def run(seed: int) -> tuple[dict, dict]:
    """Scores per model and split for one seed, and scinum's predictions for the plot."""
    import scinum
    from scinum.fill.extrapolation import ExtrapolationWarning
    from sklearn.dummy import DummyRegressor
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.linear_model import LinearRegression

    train, test, extrap = load(seed)
    X, y = train[["income"]], train["foodexp"]
    scores: dict = {}
    plot: dict = {}
    for label, options in SCINUM_ROWS.items():
        t = time.perf_counter()
        reg = scinum.Regressor(seed=seed, **options).fit(X, y)
        if not options:
            plot["fit_s"] = time.perf_counter() - t
        for split, part in (("test", test), ("extrap", extrap)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ExtrapolationWarning)
                pred = reg.predict(part[["income"]])
                q = reg.predict_quantiles(part[["income"]], [0.05, 0.95]) if reg.models_[0].model.head.has_distribution else None
            bounds = (q[:, 0], q[:, 1]) if q is not None else ()
            scores[(label, split)] = _scores(part["foodexp"], pred, *bounds)
            if not options:
                plot[split] = (part["income"].to_numpy(), part["foodexp"].to_numpy(), pred, q)
    for name, model in (
        ("training mean", DummyRegressor()),
        ("linear (OLS)", LinearRegression()),
        ("boosted trees", GradientBoostingRegressor(random_state=seed)),
    ):
        model.fit(X, y)
        for split, part in (("test", test), ("extrap", extrap)):
            scores[(name, split)] = _scores(part["foodexp"], model.predict(part[["income"]]))
    plot["train"] = (X["income"].to_numpy(), y.to_numpy())
    return scores, plot


def table(runs: list[dict], seeds: list[int]) -> str:
    """Markdown: mean [min, max] over seeds per model and split."""
    keys = list(runs[0])
    mean_mse = {key: float(np.mean([r[key]["mse"] for r in runs])) for key in keys}
    best = {split: min(mean_mse[(name, split)] for name in STANDARD) for _, split in keys}
    lines = [
        f"Engel food expenditure (statsmodels), seeds {seeds}: mean [min, max] over seeds; "
        "MSE ÷ best: the row's mean MSE over the best standard model's (OLS or boosted trees) on that split.",
        "",
        "| model | split | R² | MSE (10³ francs²) | MSE ÷ best | MAE (francs) | 90 % interval covers |",
        "|---|---|---|---|---|---|---|",
    ]
    for key in keys:
        cells = []
        for metric, fmt in (("r2", "{:.3f}"), ("mse", "{:.1f}"), ("ratio", "{:.2f}"), ("mae", "{:.1f}"), ("cover90", "{:.0%}")):
            if metric == "ratio":
                cells.append(f"{mean_mse[key] / best[key[1]]:.2f}×")
                continue
            scale = 1e-3 if metric == "mse" else 1.0
            vals = [r[key][metric] * scale for r in runs if metric in r[key]]
            cells.append(f"{fmt.format(np.mean(vals))} [{fmt.format(min(vals))}, {fmt.format(max(vals))}]" if vals else "—")
        lines.append(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def draw(plot: dict, out: Path) -> Path:
    from scinum.analysis.drawing import figure, save

    fig, axes = figure((7.5, 4.5))
    ax = axes[0, 0]
    ax.scatter(*plot["train"], s=8, color="0.7", label="training households")
    cut = plot["extrap"][0].min()
    ax.axvspan(cut, plot["extrap"][0].max() * 1.02, color="tab:red", alpha=0.08, label="held out: incomes above training")
    for split, color in (("test", "tab:blue"), ("extrap", "tab:red")):
        x, y, pred, q = plot[split]
        order = np.argsort(x)
        ax.scatter(x, y, s=14, color=color, label=f"truth ({split})")
        ax.errorbar(
            x[order],
            pred[order],
            yerr=[pred[order] - q[order, 0], q[order, 1] - pred[order]],
            fmt="x",
            color="k",
            ms=4,
            lw=0.6,
            alpha=0.7,
            label="scinum.Regressor: prediction, 90 % interval" if split == "test" else None,
        )
    ax.set_xlabel("income [Belgian francs / year]")
    ax.set_ylabel("food expenditure [Belgian francs / year]")
    ax.legend(fontsize=7, loc="upper left")
    return save(fig, out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results/tabular-engel"))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args(argv)
    runs, plots = [], []
    for seed in args.seeds:
        scores, plot = run(seed)
        runs.append(scores)
        plots.append(plot)
        print(f"seed {seed}: fitted in {plot['fit_s']:.1f} s", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    text = table(runs, args.seeds)
    (args.out / "table.md").write_text(text)
    from scinum.util.provenance import result_provenance

    (args.out / "meta.json").write_text(
        json.dumps({"seeds": args.seeds, "fit_seconds": [p["fit_s"] for p in plots], **result_provenance()}, indent=1)
    )
    draw(plots[0], args.out / "engel.png")
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
