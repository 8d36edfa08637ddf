"""The report of a comparison over seeds: tables (markdown, CSV) and plots with error bars.

Input: ``per_seed`` — one row per (model, seed, field, split) with the metrics of
:func:`scinum.analysis.metrics.summarize` (as :func:`scinum.analysis.evaluate.evaluate` gives
them, plus a ``seed`` column) — and an optional *table spec*, a paper's table to lay ours out
like::

    {metric: mse, reference: xval, source: "xVal paper, Table 5 (MSE)",
     columns: [{name: "a₁", field: description.planet0.a, split: test}, ...],
     paper: {p10: ["7.6e-4", "0.0076 (1%)", ...], ...}}   # cells as printed, in the paper's units

Every figure of ours is ``mean [ci95_low, ci95_high]`` over seeds (:mod:`scinum.analysis.stats`);
the paper's row for a model stands under ours. *Baselines* (non-learned predictors, a long frame
``model, field, split, metric, mean, ci95_low, ci95_high, n_records, interval``) are rows of their own: their
interval is over the evaluated records (they have no seed), and ``interval`` says how.
:func:`write_budgets` lays several budgets' comparisons side by side (the xVal paper's Table 4).
A t interval of a positive metric (MSE) can reach
below 0 with few seeds: it is printed as computed, not clipped.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from ..util.atomic import write_text_atomic
from .comparison_plots import budgets_plot, cell, comparison_plot, train_seconds
from .stats import LOG_METRICS, paired_table, summarize_seeds

__all__ = ["METRICS", "write_comparison", "write_budgets", "fmt_ci"]

#: per-seed metrics summarized (when present)
METRICS = ("mse", "mse_K2", "r2", "log_smape", "exact", "unparseable", "nll", "coverage68", "coverage95", "not_number", "non_finite")


def _g(x: float, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{digits}g}" if x != 0 else "0"


def fmt_ci(mean: float, lo: float, hi: float, digits: int = 2) -> str:
    """``mean [lo, hi]`` in ``digits`` significant digits (``mean`` alone without an interval)."""
    if math.isnan(lo) or math.isnan(hi):
        return _g(mean, digits)
    return f"{_g(mean, digits)} [{_g(lo, digits)}, {_g(hi, digits)}]"


def _md(header: Sequence[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _cell_text(long: pd.DataFrame, model: str, column: dict, metric: str) -> str:
    """``mean [lo, hi]`` of a cell, with the share of unparseable predictions where there are
    any (as the paper prints it)."""
    r = cell(long, model, column["field"], column["split"], metric)
    text = "–" if r is None else fmt_ci(r["mean"], r["ci95_low"], r["ci95_high"])
    u = cell(long, model, column["field"], column["split"], "unparseable")
    if u is not None and u["mean"] > 1e-4:
        text += f" ({u['mean']:.1%} unparseable)"
    return text


def _baseline_rows(baselines: pd.DataFrame | None, cols: Sequence[dict], metric: str) -> list[list[str]]:
    """One row per baseline with its ``metric`` in each column (``–`` where it has none; ``n``
    numbers where the frame says), labelled by its ``kind`` where it has one (an oracle reads
    the truth)."""
    if baselines is None or baselines.empty:
        return []
    rows = []
    for name, g in baselines[baselines["metric"] == metric].groupby("model", sort=False):
        cells = []
        for c in cols:
            r = g[(g["field"] == c["field"]) & (g["split"] == c["split"])]
            n = r.iloc[0].get("n") if not r.empty else None
            cells.append(
                "–"
                if r.empty
                else fmt_ci(*(float(r.iloc[0][k]) for k in ("mean", "ci95_low", "ci95_high"))) + (f" (n {int(n)})" if pd.notna(n) else "")
            )
        kind = g["kind"].iloc[0] if "kind" in g and pd.notna(g["kind"].iloc[0]) else None
        what = {
            "regressor": "standard regressor, fitted on the train split" + (f", seed {g['seeds'].iloc[0]}" if "seeds" in g else ""),
            "oracle": "ORACLE: reads the truth",
        }.get(kind, "no training")
        rows.append([f"*{name}* ({what}; {g['interval'].iloc[0]})", *cells])
    return rows


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
        cells = [_cell_text(long, m, c, metric) for c in cols]
        n = seeds.get(m, 0)
        rows.append([f"**{m}** (ours, {n} seed{'' if n == 1 else 's'})", *cells])
        paper = (spec.get("paper") or {}).get(m)
        if with_paper and paper:
            rows.append([f"{m} (paper)", *[str(p) for p in paper]])
    rows += _baseline_rows(baselines, cols, metric)
    return _md(["model", *[c["name"] for c in cols]], rows)


def _paired_md(paired: pd.DataFrame) -> str:
    rows = []
    for _, r in paired.iterrows():
        ratio = fmt_ci(r["ratio"], r["ratio_low"], r["ratio_high"])
        verdict = ("**yes**, lower" if r["ratio_high"] < 1 else "**yes**, higher") if r["significant"] else "no"
        rows.append([r["model"], r["column"], ratio, str(int(r["n_seeds"])), verdict])
    return _md(["model", "cell", "MSE ratio to reference [95 % CI]", "seeds", "significant"], rows)


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
    return _md(["model", "steps", "samples seen", "real tokens seen", "training s (1 thread)", "evaluation s"], rows)


def write_comparison(
    out: str | Path,
    per_seed: pd.DataFrame,
    meta: dict[str, Any],
    spec: dict | None = None,
    models: Sequence[str] | None = None,
    baselines: pd.DataFrame | None = None,
) -> Path:
    """Write ``table.md``, ``table.csv``, ``seeds.csv``, ``paired.csv``, ``meta.json`` and
    ``plots/compare_<metric>.png`` into ``out`` (module docstring); returns ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    models = [m for m in (models or dict.fromkeys(per_seed["model"])) if m in set(per_seed["model"])]
    long = summarize_seeds(per_seed, [m for m in METRICS if m in per_seed])
    write_text_atomic(out / "seeds.csv", per_seed.to_csv(index=False))
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
    if ref in models and len(models) > 1:
        paired = paired_table(per_seed, ref, [(c["field"], c["split"]) for c in spec["columns"]], metric)
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
        "interval); units as the dataset writes them.\n"
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
        "\n## R² (same cells)\n",
        _layout(long, spec, models, "r2", False, seeds, baselines),
    ]
    if not paired.empty:
        parts += [
            f"\n## Paired differences against {ref} (MSE ratio per seed, t interval of the "
            "log10 ratios; significant: the interval excludes 1)\n",
            _paired_md(paired),
        ]
    cov = long[long["metric"].isin(["coverage68", "coverage95"]) & long["mean"].notna()]
    if not cov.empty:
        rows = [[r.model, r.field, r.split, r.metric, fmt_ci(r.mean, r.ci95_low, r.ci95_high, 3)] for r in cov.itertuples()]
        parts += [
            "\n## Interval coverage (recalibrated on validation)\n",
            _md(["model", "field", "split", "nominal", "coverage [95 % CI]"], rows),
        ]
    parts += ["\n## Budget actually spent per model (range over seeds)\n", _runs_md(meta, models)]
    full = long[long["metric"].isin(["mse", "r2"])]
    rows = [
        [r.model, r.field, r.split, r.metric, fmt_ci(r.mean, r.ci95_low, r.ci95_high, 3), str(int(r.n_seeds))] for r in full.itertuples()
    ]
    parts += [
        "\n## Every cell (MSE, R²; seeds: those where the metric is defined)\n",
        _md(["model", "field", "split", "metric", "mean [95 % CI]", "seeds"], rows),
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
            cells += [_cell_text(long, m, c, metric) for c in cols]
            cells.append(_g(train_seconds(metas[b], m), 3))
        rows.append([f"**{m}**", *cells])
        paper = (spec.get("paper") or {}).get(m)
        if with_paper and paper:
            rows.append([f"{m} (paper)", *[str(p) for p in paper]])
    for row in _baseline_rows(baselines, cols, metric):  # the same records under every budget
        rows.append([row[0], *[x for _ in longs for x in (*row[1:], "–")]])
    return _md(header, rows)


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
    ``seeds.csv`` with a ``budget`` column, ``meta.json``, ``plots/budgets_<metric>.png``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    models = list(dict.fromkeys(m for f in per_seed.values() for m in f["model"]))
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
        "t interval] over seeds; baselines: their own interval, as named. Training s: mean "
        "over seeds of the runs' own clocks, one thread each.\n"
    ]
    if meta.get("core_seconds"):
        parts.append(f"Training and evaluation of every run: {meta['core_seconds'] / 60:.0f} core-minutes.\n")
    if meta.get("missing"):
        parts.append(f"**Missing (not finished, not in these figures): {'; '.join(meta['missing'])}.**\n")
    parts += [
        f"## {metric.upper()} — {spec.get('source', '')}\n",
        _budgets_layout(longs, metas, spec, models, metric, True, baselines),
        "\n## R² (same cells)\n",
        _budgets_layout(longs, metas, spec, models, "r2", False, baselines),
        "\nPaired differences, interval coverage and the budget each run spent: each budget's own table (linked above).\n",
    ]
    write_text_atomic(out / "table.md", "\n".join(parts))
    write_text_atomic(out / "meta.json", json.dumps(meta, indent=1, default=str))
    for m in dict.fromkeys((metric, "r2")):
        budgets_plot(longs, metas, spec, models, m, out / "plots" / f"budgets_{m}.png", baselines)
    return out
