"""The report of a comparison over seeds: tables (markdown, CSV) and plots with error bars.

Input: ``per_seed`` — one row per (model, seed, field, split) with the metrics of
:func:`scinum.analysis.metrics.summarize` (as :func:`scinum.analysis.evaluate.evaluate` gives
them, plus a ``seed`` column) — and an optional *table spec*, a paper's table to lay ours out
like::

    {metric: mse, reference: xval, source: "xVal paper, Table 5 (MSE)",
     columns: [{name: "a₁", field: description.planet0.a, split: test}, ...],
     paper: {p10: ["7.6e-4", "0.0076 (1%)", ...], ...}}   # cells as printed, in the paper's units

Every figure of ours (cells: :mod:`.report_cells`) is ``mean [ci95_low, ci95_high]`` over seeds, or, in a cell where a seed
diverged, the median and "diverged k/n" (:mod:`scinum.analysis.stats`); each cell names its n
(records × seeds) and, for text encodings, how many predictions did not parse (scored as the
train mean's prediction, :func:`scinum.analysis.scoring.fill_unparsed`). Paired differences: a
paired bootstrap over records and seeds with Holm's correction (:mod:`scinum.analysis.paired`).
The paper's row for a model stands under ours. *Baselines* (non-learned predictors, a long frame
``model, field, split, metric, mean, ci95_low, ci95_high, n_records, interval``) are rows of their own: their
interval is over the evaluated records (they have no seed), and ``interval`` says how.
:func:`write_budgets` lays several budgets' comparisons side by side (the xVal paper's Table 4).
A t interval of a positive metric (MSE) can reach
below 0 with few seeds: it is printed as computed, not clipped.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from ..util.atomic import write_bytes_atomic, write_text_atomic
from .comparison_plots import budgets_plot, comparison_plot, train_seconds
from .report_cells import baseline_rows, cell_text, g, md_table, n_text, paired_md, value_text
from .paired import RESAMPLES, SEED, paired_table
from .results import check_results_dir
from .stats import DIVERGENCE_FACTOR, LOG_METRICS, diverged, summarize_seeds

__all__ = ["METRICS", "PREDICTION_COLUMNS", "write_comparison", "write_budgets"]

#: per-seed metrics summarized (when present)
METRICS = (
    "mse",
    "mse_K2",
    "r2",
    "log_smape",
    "exact",
    "unparseable",
    "n_unparsed",
    "mse_parsed",
    "r2_parsed",
    "nll",
    "coverage68",
    "coverage95",
    "not_number",
    "non_finite",
)

#: columns of a comparison's ``predictions.csv.gz`` (``prediction``: as scored, an unparsed one
#: the train mean's; ``unparsed``: 1 where the model's own did not parse)
PREDICTION_COLUMNS = ["model", "seed", "split", "field", "record", "truth", "prediction", "unparsed"]

#: what a comparison table's header says of its statistics
RULES = (
    "A seed's cell **diverged** when its MSE is not finite or exceeds {k:g}× the train mean's MSE on "
    "the same records (a run that much worse than predicting the training average learned nothing "
    "that seed-to-seed spread explains); a cell with a diverged seed shows the median over seeds "
    "and *diverged k/n* instead of a mean and interval. MSE and R² score every prediction: an "
    "unparsed one (a text encoding's digits that are no number) counts as the train mean's "
    "prediction, and their number per seed stands beside the MSE. *n R × S*: R test records, S "
    "seeds. Per-seed values: seeds.csv; every prediction: predictions.csv.gz.\n"
)


def _layout(
    long: pd.DataFrame,
    spec: dict,
    models: Sequence[str],
    metric: str,
    with_paper: bool,
    seeds: dict[str, int],
    baselines: pd.DataFrame | None = None,
) -> str:
    """Rows per model (ours, then the paper's where it has one) x the spec's columns; ``seeds``:
    model -> seeds evaluated (a cell's interval counts only the seeds where the metric is
    defined: not where every prediction was unparseable)."""
    cols = spec["columns"]
    rows = []
    for m in models:
        cells = [cell_text(long, m, c, metric) for c in cols]
        n = seeds.get(m, 0)
        rows.append([f"**{m}** (ours, {n} seed{'' if n == 1 else 's'})", *cells])
        paper = (spec.get("paper") or {}).get(m)
        if with_paper and paper:
            rows.append([f"{m} (paper)", *[str(p) for p in paper]])
    rows += baseline_rows(baselines, cols, metric)
    return md_table(["model", *[c["name"] for c in cols]], rows)


def _flagged(per_seed: pd.DataFrame) -> pd.DataFrame:
    """``per_seed`` with its ``diverged`` column (:func:`scinum.analysis.stats.diverged` of its
    ``mse`` against its ``train_mean_mse`` where it has one)."""
    if "mse" not in per_seed:
        return per_seed
    return per_seed.assign(diverged=diverged(per_seed["mse"], per_seed.get("train_mean_mse")))


def _predictions_csv(predictions: pd.DataFrame) -> bytes:
    """``predictions.csv.gz`` (:data:`PREDICTION_COLUMNS`), gzip with no timestamp: the same
    predictions give the same bytes."""
    p = predictions.rename(columns={"true": "truth", "pred": "prediction"}).assign(unparsed=predictions["unparsed"].astype(int))
    return gzip.compress(p[PREDICTION_COLUMNS].to_csv(index=False).encode(), mtime=0)


def _settings_md(meta: dict, spec: dict, models: Sequence[str]) -> str:
    """Under a table: what each row is (``meta["row_settings"]``, read from its runs' configs)
    and how it departs from its paper's form (``spec["departures"]``: label -> text, ``all`` for
    every row, as the preset declares them; ``meta["overrides"]``: the ``--set`` words the run
    changed them by, said so); empty when the meta has no settings."""
    settings = meta.get("row_settings") or {}
    if not settings:
        return ""
    departures = spec.get("departures") or {}
    keys = list(next(iter(settings.values())))
    rows = [[m, *(settings[m][k] for k in keys), departures.get(m, "–")] for m in models if m in settings]
    text = "\n**What each row is** (from its runs' configs) **and how it departs from its paper's form**"
    if departures.get("all"):
        text += f"; in every row: {departures['all']}"
    if meta.get("overrides"):
        text += (
            f". **This run overrides the preset for every row** (`--set {' '.join(meta['overrides'])}`): the settings "
            "columns show what ran; a departure text that names a setting the override changes is the preset's, not this run's"
        )
    return text + "\n\n" + md_table(["model", *keys, "departs from its paper"], rows)


def _runs_md(meta: dict, models: Sequence[str]) -> str:
    rows = []
    for m in models:
        runs = [v for k, v in meta.get("runs", {}).items() if k.rsplit("/seed", 1)[0] == m]
        if not runs:
            rows.append([m, "–", "–", "–", "–", "–"])
            continue

        def span(key: str, digits: int = 0) -> str:
            v = [r[key] for r in runs if r.get(key) is not None]
            if not v:
                return "–"
            lo, hi = min(v), max(v)
            return f"{lo:.{digits}f}" if lo == hi else f"{lo:.{digits}f}–{hi:.{digits}f}"

        rows.append([m, span("steps"), span("samples"), span("tokens"), span("train_seconds"), span("eval_seconds")])
    return md_table(["model", "steps", "samples seen", "real tokens seen", "training s (1 thread)", "evaluation s"], rows)


def write_comparison(
    out: str | Path,
    per_seed: pd.DataFrame,
    meta: dict[str, Any],
    spec: dict | None = None,
    models: Sequence[str] | None = None,
    baselines: pd.DataFrame | None = None,
    predictions: pd.DataFrame | None = None,
    train_ranges: dict | None = None,
) -> Path:
    """Write ``table.md``, ``table.csv``, ``seeds.csv``, ``paired.csv``, ``meta.json``,
    ``predictions.csv.gz`` and ``plots/compare_<metric>.png`` into ``out`` (module docstring);
    returns ``out``. ``per_seed`` may carry ``train_mean_mse`` (the divergence rule's reference,
    :func:`scinum.analysis.scoring.rescore`); ``predictions``: every model's per-number
    predictions with unparsed ones scored (:func:`scinum.analysis.scoring.fill_unparsed`), which
    the paired differences resample (none given: no paired differences); ``train_ranges``: the
    dataset's ``evaluation.train_ranges`` (for ``<split>:interp``/``:extrap`` columns). An ``out``
    holding such files that is not a results directory scinum wrote is refused
    (:func:`~.results.check_results_dir`)."""
    out = Path(out)
    check_results_dir(out)
    out.mkdir(parents=True, exist_ok=True)
    models = [m for m in (models or dict.fromkeys(per_seed["model"])) if m in set(per_seed["model"])]
    per_seed = _flagged(per_seed)
    long = summarize_seeds(per_seed, [m for m in METRICS if m in per_seed])
    write_text_atomic(out / "seeds.csv", per_seed.to_csv(index=False))
    if predictions is not None:
        write_bytes_atomic(out / "predictions.csv.gz", _predictions_csv(predictions))
    long.insert(1, "kind", "model")
    table = long
    if baselines is not None and not baselines.empty:  # their rows too, with n and seeds
        table = pd.concat([long, baselines if "kind" in baselines else baselines.assign(kind="reference")], ignore_index=True)
    write_text_atomic(out / "table.csv", table.to_csv(index=False))
    if spec is None:  # every (field, split) of the evaluation as a column
        pairs = per_seed[["field", "split"]].drop_duplicates().itertuples(index=False)
        spec = {"metric": "mse", "columns": [{"name": f"{f} {s}", "field": f, "split": s} for f, s in pairs]}
    metric, ref = spec.get("metric", "mse"), spec.get("reference", models[0])
    paired = pd.DataFrame()
    if ref in models and len(models) > 1 and predictions is not None:
        cells = [(c["field"], c["split"]) for c in spec["columns"]]
        paired = paired_table(predictions[predictions["model"].isin(models)], ref, cells, metric, train_ranges)
        names = {(c["field"], c["split"]): c["name"] for c in spec["columns"]}
        paired.insert(3, "column", [names[(f, s)] for f, s in zip(paired["field"], paired["split"])])
    write_text_atomic(out / "paired.csv", paired.to_csv(index=False))
    budget = meta.get("budget", {})
    seeds = per_seed.groupby("model")["seed"].nunique().to_dict()
    n_seeds = len(meta.get("seeds", [])) or int(per_seed["seed"].nunique())
    parts = [
        f"Budget {json.dumps(budget)} for every model; seeds {meta.get('seeds')} "
        f"({meta.get('seed_varies', 'seed: training config')}). Every figure: mean "
        f"[95 % Student t interval] over the seeds each row names (of {n_seeds}; one seed: no "
        "interval; a bound beyond what the metric can be — MSE below 0, R² above 1 — clipped to "
        "it); units as the dataset writes them.\n",
        RULES.format(k=DIVERGENCE_FACTOR),
    ]
    if meta.get("core_seconds"):
        parts.append(
            f"Training and evaluation of the {len(meta.get('runs', {}))} runs: "
            f"{meta['core_seconds'] / 60:.0f} core-minutes (one thread each; sum of the "
            "runs' own clocks; the table below has each model's share).\n"
        )
    if meta.get("missing"):
        grouped: dict[str, list[str]] = {}
        for run in meta["missing"]:  # "label seed s (why)"
            label, _, rest = run.partition(" seed ")
            grouped.setdefault(label, []).append(rest)
        text = "; ".join(f"{lb} seed {', '.join(v)}" for lb, v in grouped.items())
        parts.append(f"**Missing (not finished, not in these figures): {text}.**\n")
    src = spec.get("source", "")
    parts += [
        f"## {metric.upper()} — {src}\n",
        _layout(long, spec, models, metric, True, seeds, baselines),
        _settings_md(meta, spec, models),
        "\n## R² (same cells)\n",
        _layout(long, spec, models, "r2", False, seeds, baselines),
    ]
    if not paired.empty:
        parts += [
            f"\n## Paired differences against {ref}\n",
            f"Per seed, the ratio of the two models' MSE on the same records; the figure is its "
            f"geometric mean over seeds, the interval a 95 % paired bootstrap ({RESAMPLES} "
            f"resamples, seed {SEED}) drawing the test records and the seeds jointly for both "
            "models, from their predictions. p: two-sided bootstrap p-value of no difference; "
            "*significant alone*: the interval excludes 1, uncorrected. The family corrected "
            f"for multiplicity is this table's {len(paired)} tests (every model against {ref} "
            "in every column): *survives Holm* where Holm's adjusted p is below 0.05 — "
            f"{int(paired['survives_holm'].sum())} of {len(paired)} do.\n",
            paired_md(paired),
        ]
    cov = long[long["metric"].isin(["coverage68", "coverage95"]) & long["median"].notna()]
    if not cov.empty:
        rows = [[r["model"], r["field"], r["split"], r["metric"], value_text(r, 3)] for _, r in cov.iterrows()]
        parts += [
            "\n## Interval coverage (recalibrated on validation)\n",
            md_table(["model", "field", "split", "nominal", "coverage [95 % CI]"], rows),
        ]
    parts += ["\n## Budget actually spent per model (range over seeds)\n", _runs_md(meta, models)]
    full = long[long["metric"].isin(["mse", "r2"])]
    rows = [[r["model"], r["field"], r["split"], r["metric"], value_text(r, 3), n_text(r)] for _, r in full.iterrows()]
    parts += [
        "\n## Every cell (MSE, R²; seeds: those where the metric is defined)\n",
        md_table(["model", "field", "split", "metric", "mean [95 % CI] or median (diverged k/n)", "n records × seeds"], rows),
    ]
    write_text_atomic(out / "table.md", "\n".join(parts))
    write_text_atomic(out / "meta.json", json.dumps(meta, indent=1, default=str))
    comparison_plot(long, spec, models, metric, out / "plots" / f"compare_{metric}.png", log=metric in LOG_METRICS, baselines=baselines)
    comparison_plot(long, spec, models, "r2", out / "plots" / "compare_r2.png", log=False, baselines=baselines)
    return out


def _budgets_layout(
    longs: dict[str, pd.DataFrame],
    metas: dict[str, dict],
    spec: dict,
    models: Sequence[str],
    metric: str,
    with_paper: bool,
    baselines: pd.DataFrame | None,
) -> str:
    """Table 4 layout: per budget, each spec column's ``metric`` and the mean training seconds."""
    cols = spec["columns"]
    header = ["model"]
    for b in longs:
        header += [f"{c['name']} — {b}" for c in cols] + [f"training s — {b}"]
    rows = []
    for m in models:
        cells = []
        for b, long in longs.items():
            cells += [cell_text(long, m, c, metric) for c in cols]
            cells.append(g(train_seconds(metas[b], m), 3))
        rows.append([f"**{m}**", *cells])
        paper = (spec.get("paper") or {}).get(m)
        if with_paper and paper:
            rows.append([f"{m} (paper)", *[str(p) for p in paper]])
    for row in baseline_rows(baselines, cols, metric):  # the same records under every budget
        rows.append([row[0], *[x for _ in longs for x in (*row[1:], "–")]])
    return md_table(header, rows)


def write_budgets(
    out: str | Path,
    per_seed: dict[str, pd.DataFrame],
    metas: dict[str, dict],
    meta: dict[str, Any],
    spec: dict | None = None,
    baselines: pd.DataFrame | None = None,
) -> Path:
    """Several budgets' comparisons side by side (``per_seed`` and ``metas``: budget name -> that
    budget's per-seed frame and meta, as :func:`write_comparison` got them): ``table.md`` (Table 4
    layout: each column's metric and the training seconds per budget), ``table.csv`` and
    ``seeds.csv`` with a ``budget`` column, ``meta.json``, ``plots/budgets_<metric>.png`` (an
    ``out`` that is not scinum's refused as :func:`write_comparison` does)."""
    out = Path(out)
    check_results_dir(out)
    out.mkdir(parents=True, exist_ok=True)
    models = list(dict.fromkeys(m for f in per_seed.values() for m in f["model"]))
    per_seed = {b: _flagged(f) for b, f in per_seed.items()}
    longs = {b: summarize_seeds(f, [m for m in METRICS if m in f]) for b, f in per_seed.items()}
    write_text_atomic(
        out / "seeds.csv", pd.concat([f.assign(budget=b)[["budget", *f.columns]] for b, f in per_seed.items()]).to_csv(index=False)
    )
    write_text_atomic(
        out / "table.csv", pd.concat([f.assign(budget=b)[["budget", *f.columns]] for b, f in longs.items()]).to_csv(index=False)
    )
    if spec is None:
        first = next(iter(per_seed.values()))
        pairs = first[["field", "split"]].drop_duplicates().itertuples(index=False)
        spec = {"metric": "mse", "columns": [{"name": f"{f} {s}", "field": f, "split": s} for f, s in pairs]}
    metric = spec.get("metric", "mse")
    names = "; ".join(
        f"**{b}** {json.dumps(metas[b].get('budget'))} ([{meta['per_budget'][b]}/]({meta['per_budget'][b]}/table.md))" for b in per_seed
    )
    parts = [
        f"Budgets, each a whole comparison of every model: {names}. Seeds {meta.get('seeds')} "
        f"({meta.get('seed_varies', 'seed: training config')}). Every figure: mean [95 % Student "
        "t interval, clipped to what the metric can be] over seeds; baselines: their own interval, as named. Training s: mean "
        "over seeds of the runs' own clocks, one thread each.\n",
        RULES.format(k=DIVERGENCE_FACTOR),
    ]
    if meta.get("core_seconds"):
        parts.append(f"Training and evaluation of every run: {meta['core_seconds'] / 60:.0f} core-minutes.\n")
    if meta.get("missing"):
        parts.append(f"**Missing (not finished, not in these figures): {'; '.join(meta['missing'])}.**\n")
    parts += [
        f"## {metric.upper()} — {spec.get('source', '')}\n",
        _budgets_layout(longs, metas, spec, models, metric, True, baselines),
        _settings_md(next(iter(metas.values()), {}), spec, models),
        "\n## R² (same cells)\n",
        _budgets_layout(longs, metas, spec, models, "r2", False, baselines),
        "\nPaired differences, interval coverage and the budget each run spent: each budget's own table (linked above).\n",
    ]
    write_text_atomic(out / "table.md", "\n".join(parts))
    write_text_atomic(out / "meta.json", json.dumps(meta, indent=1, default=str))
    for m in dict.fromkeys((metric, "r2")):
        budgets_plot(longs, metas, spec, models, m, out / "plots" / f"budgets_{m}.png", baselines)
    return out
