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

import numpy as np
import pandas as pd

from ..util.atomic import write_text_atomic
from .drawing import figure, save
from .stats import LOG_METRICS, paired_table, summarize_seeds

__all__ = ["METRICS", "write_comparison", "write_budgets", "fmt_ci"]

#: plotted values beyond this magnitude (a diverged model's 1e300) are named, not drawn
OFF_SCALE = 1e6

#: per-seed metrics summarized (when present)
METRICS = ("mse", "mse_K2", "r2", "log_smape", "exact", "unparseable", "nll", "coverage68", "coverage95",
           "not_number", "non_finite")


def _g(x: float, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{digits}g}" if x != 0 else "0"


def fmt_ci(mean: float, lo: float, hi: float, digits: int = 2) -> str:
    """``mean [lo, hi]`` in ``digits`` significant digits (``mean`` alone without an interval)."""
    if math.isnan(lo) or math.isnan(hi):
        return _g(mean, digits)
    return f"{_g(mean, digits)} [{_g(lo, digits)}, {_g(hi, digits)}]"


def _cell(long: pd.DataFrame, model: str, field: str, split: str, metric: str) -> pd.Series | None:
    r = long[(long["model"] == model) & (long["field"] == field) & (long["split"] == split)
             & (long["metric"] == metric)]
    return None if r.empty else r.iloc[0]


def _md(header: Sequence[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _cell_text(long: pd.DataFrame, model: str, column: dict, metric: str) -> str:
    """``mean [lo, hi]`` of a cell, with the share of unparseable predictions where there are
    any (as the paper prints it)."""
    r = _cell(long, model, column["field"], column["split"], metric)
    text = "–" if r is None else fmt_ci(r["mean"], r["ci95_low"], r["ci95_high"])
    u = _cell(long, model, column["field"], column["split"], "unparseable")
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
            cells.append("–" if r.empty else fmt_ci(*(float(r.iloc[0][k]) for k in (
                "mean", "ci95_low", "ci95_high"))) + (f" (n {int(n)})" if pd.notna(n) else ""))
        kind = g["kind"].iloc[0] if "kind" in g and pd.notna(g["kind"].iloc[0]) else None
        what = {"regressor": "standard regressor, fitted on the train split"
                             + (f", seed {g['seeds'].iloc[0]}" if "seeds" in g else ""),
                "oracle": "ORACLE: reads the truth"}.get(kind, "no training")
        rows.append([f"*{name}* ({what}; {g['interval'].iloc[0]})", *cells])
    return rows


def _layout(long: pd.DataFrame, spec: dict, models: Sequence[str], metric: str,
            with_paper: bool, seeds: dict[str, int], baselines: pd.DataFrame | None = None) -> str:
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
        rows.append([m, span("steps"), span("samples"), span("tokens"), span("train_seconds"),
                     span("eval_seconds")])
    return _md(["model", "steps", "samples seen", "real tokens seen", "training s (1 thread)",
                "evaluation s"], rows)


def _plot(long: pd.DataFrame, spec: dict, models: Sequence[str], metric: str, out: Path,
          log: bool, baselines: pd.DataFrame | None = None) -> Path:
    """One panel per spec column: each model's mean and interval as a horizontal error bar (the
    models' names read across, however long), the paper's value as ×, baselines dashed."""
    from matplotlib.transforms import blended_transform_factory
    cols = spec["columns"]
    names = [] if baselines is None or baselines.empty else list(dict.fromkeys(
        baselines.loc[baselines["metric"] == metric, "model"]))
    below = 0.22 * -(-len(names) // 3)  # inches of the baselines' legend under the panels
    fig, axes = figure((2.2 * len(cols) + 2.6, 0.32 * len(models) + 1.3 + below), 1, len(cols),
                       sharey=True)
    y = np.arange(len(models))[::-1]  # the first model on top
    for ax, c in zip(axes[0], cols):
        edge = blended_transform_factory(ax.transAxes, ax.transData)
        for i, m in zip(y, models):
            r = _cell(long, m, c["field"], c["split"], metric)
            if r is None or not np.isfinite(r["mean"]) or abs(r["mean"]) > OFF_SCALE:
                if r is not None:  # diverged (1e300): named, not drawn
                    ax.text(0.98, i, "off scale", transform=edge, ha="right", va="center", fontsize=6)
                continue
            lo = r["mean"] - r["ci95_low"] if np.isfinite(r["ci95_low"]) else 0.0
            hi = min(r["ci95_high"], OFF_SCALE) - r["mean"] if np.isfinite(r["ci95_high"]) else 0.0
            if log:  # a t interval may reach below 0: draw it to the edge of the axis
                lo = min(lo, r["mean"] * (1 - 1e-3))
            ax.errorbar([r["mean"]], [i], xerr=[[lo], [hi]], fmt="o", color=f"C{i % 10}", capsize=3, ms=4)
            paper = (spec.get("paper") or {}).get(m)
            if metric == spec.get("metric", "mse") and paper:
                try:
                    v = float(str(paper[cols.index(c)]).split()[0].rstrip("†"))
                except ValueError:
                    v = math.nan
                if np.isfinite(v) and (v > 0 or not log):
                    ax.plot([v], [i], "x", color="k", ms=7)
        _draw_baselines(ax, baselines, c, metric, vertical=True, legend=False)
        if metric == "r2":
            ax.set_xlim(max(-1.0, ax.get_xlim()[0]), 1.05)  # R² below -1: as bad as it gets
        if log:
            ax.set_xscale("log")
            lo, hi = ax.get_xlim()
            if 0 < lo and hi < 10 * lo:  # within a decade: matplotlib labels every minor tick
                from matplotlib.ticker import FixedLocator, FormatStrFormatter, NullFormatter
                ax.xaxis.set_minor_formatter(NullFormatter())
                ax.xaxis.set_major_locator(FixedLocator([lo * (hi / lo) ** 0.1, lo * (hi / lo) ** 0.9]))
                ax.xaxis.set_major_formatter(FormatStrFormatter("%.3g"))
        ax.set_yticks(y, list(models), fontsize=7)
        ax.set_title(c["name"], fontsize=9)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(alpha=0.3)
    fig.supxlabel(f"{metric} (mean, 95 % t interval over seeds; × = paper)", fontsize=8,
                  y=below / fig.get_figheight(), va="bottom")
    drawn = {lb: h for ax in axes[0] for h, lb in zip(*ax.get_legend_handles_labels())}
    if drawn:  # one legend for every panel, under them
        fig.legend(list(drawn.values()), list(drawn), loc="lower center", ncol=3, fontsize=6,
                   frameon=False)
    fig.tight_layout(rect=(0, below / fig.get_figheight(), 1, 1))
    return save(fig, out)


def _draw_baselines(ax, baselines: pd.DataFrame | None, column: dict, metric: str,
                    vertical: bool = False, legend: bool = True) -> None:
    """Each baseline's ``metric`` in ``column`` as a labelled line, its style by its kind
    (dashed: regressor, dotted: reference, dash-dotted: oracle), its grey the same in every
    panel (``vertical``: the metric is the x axis; ``legend``: one per panel)."""
    if baselines is None or baselines.empty:
        return
    order = list(dict.fromkeys(baselines["model"]))
    sel = baselines[(baselines["field"] == column["field"]) & (baselines["split"] == column["split"])
                    & (baselines["metric"] == metric)]
    styles = {"regressor": "--", "oracle": "-.", "reference": ":"}
    for r in sel.itertuples():
        k = order.index(r.model)
        if not np.isfinite(r.mean) or (metric in LOG_METRICS and r.mean <= 0):
            continue  # an oracle's MSE 0 has no place on a log axis
        kind = getattr(r, "kind", None)
        kind = kind if isinstance(kind, str) else "reference"
        (ax.axvline if vertical else ax.axhline)(
            r.mean, ls=styles.get(kind, "--"), lw=1.2, color=("0.1", "0.35", "0.55", "0.7")[k % 4],
            label=r.model if r.model.startswith("oracle") else f"{r.model} ({kind})")
    if legend and not sel.empty:
        ax.legend(fontsize=6, loc="best")


def write_comparison(out: str | Path, per_seed: pd.DataFrame, meta: dict[str, Any],
                     spec: dict | None = None, models: Sequence[str] | None = None,
                     baselines: pd.DataFrame | None = None) -> Path:
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
        table = pd.concat([long, baselines if "kind" in baselines else
                           baselines.assign(kind="reference")], ignore_index=True)
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
    parts = [f"Budget {json.dumps(budget)} for every model; seeds {meta.get('seeds')} "
             f"({meta.get('seed_varies', 'seed: training config')}). Every figure: mean "
             f"[95 % Student t interval] over the seeds each row names (of {n_seeds}; one seed: no "
             "interval); units as the dataset writes them.\n"]
    if meta.get("core_seconds"):
        parts.append(f"Training and evaluation of the {len(meta.get('runs', {}))} runs: "
                     f"{meta['core_seconds'] / 60:.0f} core-minutes (one thread each; sum of the "
                     "runs' own clocks; the table below has each model's share).\n")
    if meta.get("missing"):
        grouped: dict[str, list[str]] = {}
        for run in meta["missing"]:  # "label seed s (why)"
            label, _, rest = run.partition(" seed ")
            grouped.setdefault(label, []).append(rest)
        text = "; ".join(f"{lb} seed {', '.join(v)}" for lb, v in grouped.items())
        parts.append(f"**Missing (not finished, not in these figures): {text}.**\n")
    src = spec.get("source", "")
    parts += [f"## {metric.upper()} — {src}\n", _layout(long, spec, models, metric, True, seeds, baselines),
              "\n## R² (same cells)\n", _layout(long, spec, models, "r2", False, seeds, baselines)]
    if not paired.empty:
        parts += [f"\n## Paired differences against {ref} (MSE ratio per seed, t interval of the "
                  "log10 ratios; significant: the interval excludes 1)\n", _paired_md(paired)]
    cov = long[long["metric"].isin(["coverage68", "coverage95"]) & long["mean"].notna()]
    if not cov.empty:
        rows = [[r.model, r.field, r.split, r.metric, fmt_ci(r.mean, r.ci95_low, r.ci95_high, 3)]
                for r in cov.itertuples()]
        parts += ["\n## Interval coverage (recalibrated on validation)\n",
                  _md(["model", "field", "split", "nominal", "coverage [95 % CI]"], rows)]
    parts += ["\n## Budget actually spent per model (range over seeds)\n", _runs_md(meta, models)]
    full = long[long["metric"].isin(["mse", "r2"])]
    rows = [[r.model, r.field, r.split, r.metric, fmt_ci(r.mean, r.ci95_low, r.ci95_high, 3),
             str(int(r.n_seeds))] for r in full.itertuples()]
    parts += ["\n## Every cell (MSE, R²; seeds: those where the metric is defined)\n",
              _md(["model", "field", "split", "metric", "mean [95 % CI]", "seeds"], rows)]
    write_text_atomic(out / "table.md", "\n".join(parts))
    write_text_atomic(out / "meta.json", json.dumps(meta, indent=1, default=str))
    _plot(long, spec, models, metric, out / "plots" / f"compare_{metric}.png", log=metric in LOG_METRICS,
          baselines=baselines)
    _plot(long, spec, models, "r2", out / "plots" / "compare_r2.png", log=False, baselines=baselines)
    return out


def _train_seconds(meta: dict, model: str) -> float:
    """Mean training seconds (one thread) over a model's finished seeds in a comparison's meta."""
    v = [r["train_seconds"] for k, r in meta.get("runs", {}).items()
         if k.rsplit("/seed", 1)[0] == model and r.get("train_seconds") is not None]
    return float(np.mean(v)) if v else math.nan


def _budgets_layout(longs: dict[str, pd.DataFrame], metas: dict[str, dict], spec: dict,
                    models: Sequence[str], metric: str, with_paper: bool,
                    baselines: pd.DataFrame | None) -> str:
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
            cells.append(_g(_train_seconds(metas[b], m), 3))
        rows.append([f"**{m}**", *cells])
        paper = (spec.get("paper") or {}).get(m)
        if with_paper and paper:
            rows.append([f"{m} (paper)", *[str(p) for p in paper]])
    for row in _baseline_rows(baselines, cols, metric):  # the same records under every budget
        rows.append([row[0], *[x for _ in longs for x in (*row[1:], "–")]])
    return _md(header, rows)


def _budgets_plot(longs: dict[str, pd.DataFrame], metas: dict[str, dict], spec: dict,
                  models: Sequence[str], metric: str, out: Path,
                  baselines: pd.DataFrame | None) -> Path:
    """Per spec column: ``metric`` (mean, 95 % t interval) against mean training seconds, one
    line per model through its budgets; baselines dashed."""
    from matplotlib.ticker import NullFormatter
    cols = spec["columns"]
    fig, axes = figure((4.2 * len(cols), 3.6), 1, len(cols))
    for ax, c in zip(axes[0], cols):
        for i, m in enumerate(models):
            pts = []
            for b, long in longs.items():
                r = _cell(long, m, c["field"], c["split"], metric)
                t = _train_seconds(metas[b], m)
                if r is not None and np.isfinite(r["mean"]) and abs(r["mean"]) <= OFF_SCALE and np.isfinite(t):
                    lo = r["mean"] - r["ci95_low"] if np.isfinite(r["ci95_low"]) else 0.0
                    hi = r["ci95_high"] - r["mean"] if np.isfinite(r["ci95_high"]) else 0.0
                    pts.append((t, r["mean"], lo, hi))
            if pts:
                t, y, lo, hi = map(np.array, zip(*sorted(pts)))
                if metric in LOG_METRICS:
                    lo = np.minimum(lo, y * (1 - 1e-3))  # a t interval below 0: to the axis bottom
                ax.errorbar(t, y, yerr=[lo, hi], fmt="o-", color=f"C{i % 10}", capsize=3, label=m, ms=4)
        _draw_baselines(ax, baselines, c, metric)
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # labels on decades only
        if metric in LOG_METRICS:
            ax.set_yscale("log")
        if metric == "r2":
            ax.set_ylim(max(-1.0, ax.get_ylim()[0]), 1.05)
        ax.set_xlabel("training s (one thread, mean over seeds)")
        ax.set_title(c["name"], fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6, loc="best")
    axes[0][0].set_ylabel(f"{metric} (mean, 95 % t interval over seeds)")
    fig.tight_layout()
    return save(fig, out)


def write_budgets(out: str | Path, per_seed: dict[str, pd.DataFrame], metas: dict[str, dict],
                  meta: dict[str, Any], spec: dict | None = None,
                  baselines: pd.DataFrame | None = None) -> Path:
    """Several budgets' comparisons side by side (``per_seed`` and ``metas``: budget name -> that
    budget's per-seed frame and meta, as :func:`write_comparison` got them): ``table.md`` (Table 4
    layout: each column's metric and the training seconds per budget), ``table.csv`` and
    ``seeds.csv`` with a ``budget`` column, ``meta.json``, ``plots/budgets_<metric>.png``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    models = list(dict.fromkeys(m for f in per_seed.values() for m in f["model"]))
    longs = {b: summarize_seeds(f, [m for m in METRICS if m in f]) for b, f in per_seed.items()}
    write_text_atomic(out / "seeds.csv", pd.concat(
        [f.assign(budget=b)[["budget", *f.columns]] for b, f in per_seed.items()]).to_csv(index=False))
    write_text_atomic(out / "table.csv", pd.concat(
        [f.assign(budget=b)[["budget", *f.columns]] for b, f in longs.items()]).to_csv(index=False))
    if spec is None:
        first = next(iter(per_seed.values()))
        pairs = first[["field", "split"]].drop_duplicates().itertuples(index=False)
        spec = {"metric": "mse", "columns": [{"name": f"{f} {s}", "field": f, "split": s} for f, s in pairs]}
    metric = spec.get("metric", "mse")
    names = "; ".join(f"**{b}** {json.dumps(metas[b].get('budget'))} ([{meta['per_budget'][b]}/]"
                      f"({meta['per_budget'][b]}/table.md))" for b in per_seed)
    parts = [f"Budgets, each a whole comparison of every model: {names}. Seeds {meta.get('seeds')} "
             f"({meta.get('seed_varies', 'seed: training config')}). Every figure: mean [95 % Student "
             "t interval] over seeds; baselines: their own interval, as named. Training s: mean "
             "over seeds of the runs' own clocks, one thread each.\n"]
    if meta.get("core_seconds"):
        parts.append(f"Training and evaluation of every run: {meta['core_seconds'] / 60:.0f} "
                     "core-minutes.\n")
    if meta.get("missing"):
        parts.append(f"**Missing (not finished, not in these figures): {'; '.join(meta['missing'])}.**\n")
    parts += [f"## {metric.upper()} — {spec.get('source', '')}\n",
              _budgets_layout(longs, metas, spec, models, metric, True, baselines),
              "\n## R² (same cells)\n", _budgets_layout(longs, metas, spec, models, "r2", False, baselines),
              "\nPaired differences, interval coverage and the budget each run spent: each budget's own "
              "table (linked above).\n"]
    write_text_atomic(out / "table.md", "\n".join(parts))
    write_text_atomic(out / "meta.json", json.dumps(meta, indent=1, default=str))
    for m in dict.fromkeys((metric, "r2")):
        _budgets_plot(longs, metas, spec, models, m, out / "plots" / f"budgets_{m}.png", baselines)
    return out
