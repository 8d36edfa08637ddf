"""The plots of a comparison report (:mod:`.report`): each model's mean and 95 % interval over
seeds per table column, beside the paper's value and the baselines' lines, and the same against
training seconds across budgets; plus the lookups both the tables and the plots read (a
summarized cell, a model's mean training seconds)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from .drawing import figure, save
from .stats import LOG_METRICS

__all__ = ["OFF_SCALE", "cell", "train_seconds", "comparison_plot", "draw_baselines", "budgets_plot"]

#: plotted values beyond this magnitude (a diverged model's 1e300) are named, not drawn
OFF_SCALE = 1e6


def cell(long: pd.DataFrame, model: str, field: str, split: str, metric: str) -> pd.Series | None:
    r = long[(long["model"] == model) & (long["field"] == field) & (long["split"] == split) & (long["metric"] == metric)]
    return None if r.empty else r.iloc[0]


def train_seconds(meta: dict, model: str) -> float:
    """Mean training seconds (one thread) over a model's finished seeds in a comparison's meta."""
    v = [
        r["train_seconds"]
        for k, r in meta.get("runs", {}).items()
        if k.rsplit("/seed", 1)[0] == model and r.get("train_seconds") is not None
    ]
    return float(np.mean(v)) if v else math.nan


def comparison_plot(
    long: pd.DataFrame, spec: dict, models: Sequence[str], metric: str, out: Path, log: bool, baselines: pd.DataFrame | None = None
) -> Path:
    """One panel per spec column: each model's mean and interval as a horizontal error bar (the
    models' names read across, however long), the paper's value as ×, baselines dashed."""
    from matplotlib.transforms import blended_transform_factory

    cols = spec["columns"]
    names = [] if baselines is None or baselines.empty else list(dict.fromkeys(baselines.loc[baselines["metric"] == metric, "model"]))
    below = 0.22 * -(-len(names) // 3)  # inches of the baselines' legend under the panels
    fig, axes = figure((2.2 * len(cols) + 2.6, 0.32 * len(models) + 1.3 + below), 1, len(cols), sharey=True)
    y = np.arange(len(models))[::-1]  # the first model on top
    for ax, c in zip(axes[0], cols):
        edge = blended_transform_factory(ax.transAxes, ax.transData)
        for i, m in zip(y, models):
            r = cell(long, m, c["field"], c["split"], metric)
            if r is not None and r.get("n_diverged", 0) > 0:  # a diverged seed: its median, no bar
                k = f"diverged {int(r['n_diverged'])}/{int(r['n_seeds'])}"
                if np.isfinite(r["median"]) and abs(r["median"]) <= OFF_SCALE and (r["median"] > 0 or not log):
                    ax.plot([r["median"]], [i], "D", mfc="none", color=f"C{i % 10}", ms=5)
                ax.text(0.98, i, k, transform=edge, ha="right", va="center", fontsize=6)
                continue
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
        draw_baselines(ax, baselines, c, metric, vertical=True, legend=False)
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
    fig.supxlabel(
        f"{metric} (mean, 95 % t interval over seeds; ◇ = median of a cell with a diverged seed; × = paper)",
        fontsize=8,
        y=below / fig.get_figheight(),
        va="bottom",
    )
    drawn = {lb: h for ax in axes[0] for h, lb in zip(*ax.get_legend_handles_labels())}
    if drawn:  # one legend for every panel, under them
        fig.legend(list(drawn.values()), list(drawn), loc="lower center", ncol=3, fontsize=6, frameon=False)
    fig.tight_layout(rect=(0, below / fig.get_figheight(), 1, 1))
    return save(fig, out)


def draw_baselines(ax, baselines: pd.DataFrame | None, column: dict, metric: str, vertical: bool = False, legend: bool = True) -> None:
    """Each baseline's ``metric`` in ``column`` as a labelled line, its style by its kind
    (dashed: regressor, dotted: reference, dash-dotted: oracle), its grey the same in every
    panel (``vertical``: the metric is the x axis; ``legend``: one per panel)."""
    if baselines is None or baselines.empty:
        return
    order = list(dict.fromkeys(baselines["model"]))
    sel = baselines[(baselines["field"] == column["field"]) & (baselines["split"] == column["split"]) & (baselines["metric"] == metric)]
    styles = {"regressor": "--", "oracle": "-.", "reference": ":"}
    for r in sel.itertuples():
        k = order.index(r.model)
        if not np.isfinite(r.mean) or (metric in LOG_METRICS and r.mean <= 0):
            continue  # an oracle's MSE 0 has no place on a log axis
        kind = getattr(r, "kind", None)
        kind = kind if isinstance(kind, str) else "reference"
        (ax.axvline if vertical else ax.axhline)(
            r.mean,
            ls=styles.get(kind, "--"),
            lw=1.2,
            color=("0.1", "0.35", "0.55", "0.7")[k % 4],
            label=r.model if r.model.startswith("oracle") else f"{r.model} ({kind})",
        )
    if legend and not sel.empty:
        ax.legend(fontsize=6, loc="best")


def budgets_plot(
    longs: dict[str, pd.DataFrame],
    metas: dict[str, dict],
    spec: dict,
    models: Sequence[str],
    metric: str,
    out: Path,
    baselines: pd.DataFrame | None,
) -> Path:
    """Per spec column: ``metric`` (mean, 95 % t interval) against mean training seconds, one
    line per model through its budgets; baselines dashed."""
    from matplotlib.ticker import NullFormatter

    cols = spec["columns"]
    fig, axes = figure((4.2 * len(cols), 3.6), 1, len(cols))
    for ax, c in zip(axes[0], cols):
        for i, m in enumerate(models):
            pts = []
            for b, long in longs.items():
                r = cell(long, m, c["field"], c["split"], metric)
                t = train_seconds(metas[b], m)
                if r is not None and r.get("n_diverged", 0) > 0:  # a diverged seed: the median, no bar
                    r = r.copy()
                    r["mean"], r["ci95_low"], r["ci95_high"] = r["median"], math.nan, math.nan
                if r is not None and np.isfinite(r["mean"]) and abs(r["mean"]) <= OFF_SCALE and np.isfinite(t):
                    lo = r["mean"] - r["ci95_low"] if np.isfinite(r["ci95_low"]) else 0.0
                    hi = r["ci95_high"] - r["mean"] if np.isfinite(r["ci95_high"]) else 0.0
                    pts.append((t, r["mean"], lo, hi))
            if pts:
                ts, ys, los, his = map(np.array, zip(*sorted(pts)))
                if metric in LOG_METRICS:
                    los = np.minimum(los, ys * (1 - 1e-3))  # a t interval below 0: to the axis bottom
                ax.errorbar(ts, ys, yerr=[los, his], fmt="o-", color=f"C{i % 10}", capsize=3, label=m, ms=4)
        draw_baselines(ax, baselines, c, metric)
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
