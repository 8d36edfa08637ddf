"""Plots of an evaluation results directory (``scinum plot RESULTS_DIR``), xVal paper style.

A results directory (written by :mod:`scinum.analysis.evaluate`) holds:

* ``predictions.csv`` (required): one row per predicted number; columns ``model``, ``field``,
  ``split``, ``true``, ``pred`` (NaN = unparseable), and optionally ``encoding``, ``head``,
  ``record``, ``path`` and the columns each head declares (:class:`scinum.heads.HeadOutputs`;
  the mixture head: ``mean``, ``std``, ``lo68``, ``hi68``, ``lo95``, ``hi95`` and ``mixture``,
  JSON ``{"weights": [...], "means": [...], "stds": [...]}`` in record units).
* ``train_values.json`` (optional): ``{field: sorted distinct training values}``.
* ``meta.json`` (optional): ``{"dataset", "builder", "units": {field: unit},
  "ood_fields": {split: field}, "heads": {model: head declaration}}``; any key may be missing;
* ``logs/<model>.csv`` (optional): training logs, drawn by :mod:`.curves`.

Plots (PNG, Agg backend, deterministic, one colour per model across all plots):

* :func:`plot_ood` — predicted vs true on an OOD split with the training values (Fig. 5 of seed
  002); :func:`plot_histograms` — prediction histograms per model vs the true values (Fig. 7;
  its 2-d form, predicted vs true per model: :mod:`.histograms`);
  :func:`plot_gmm_density` — one mixture-head predictive density; :func:`plot_scatter` —
  predicted vs true per model with R² (ERA5, §3.2); training curves (:mod:`.curves`).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field as dc_field
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..errors import ResultsError
from .curves import plot_curves
from .histograms import plot_joint_histograms
from .metrics import gmm_nll_per_sample, r2

__all__ = ["ResultsError", "Results", "load_results", "plot_ood", "plot_histograms",
           "plot_gmm_density", "plot_scatter", "make_all", "add_arguments", "run"]

REQUIRED_COLUMNS = ("model", "field", "split", "true", "pred")
#: A (field, split) with at least this many distinct true values gets a scatter plot.
MANY_VALUES = 20
_DPI = 120
_PNG_METADATA = {"Software": None}


@dataclass
class Results:
    """A loaded results directory: ``preds`` is predictions.csv, the rest may be empty."""

    preds: pd.DataFrame
    train_values: dict[str, list[float]] = dc_field(default_factory=dict)
    meta: dict = dc_field(default_factory=dict)

    def unit(self, field: str) -> str | None:
        return (self.meta.get("units") or {}).get(field)


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise ResultsError(f"{path}: cannot read JSON: {e}") from None
    if not isinstance(data, dict):
        raise ResultsError(f"{path}: expected a JSON object, got {type(data).__name__}")
    return data


def load_results(results_dir: str | Path) -> Results:
    """Read ``predictions.csv`` (required) and ``train_values.json``/``meta.json`` (optional)."""
    d = Path(results_dir)
    if not d.is_dir():
        raise ResultsError(f"{d}: results directory does not exist")
    pred_path = d / "predictions.csv"
    if not pred_path.is_file():
        raise ResultsError(f"{pred_path}: missing predictions.csv (written by scinum evaluate)")
    try:
        preds = pd.read_csv(pred_path, dtype={"model": str, "field": str, "split": str})
    except (OSError, ValueError) as e:
        raise ResultsError(f"{pred_path}: cannot read CSV: {e}") from None
    missing = [c for c in REQUIRED_COLUMNS if c not in preds.columns]
    if missing:
        raise ResultsError(f"{pred_path}: missing column(s) {', '.join(missing)}")
    for c in ("true", "pred", "lo68", "hi68", "lo95", "hi95"):
        if c in preds.columns:
            preds[c] = pd.to_numeric(preds[c], errors="coerce").astype(np.float64)
    tv_path, meta_path = d / "train_values.json", d / "meta.json"
    train_values = _read_json(tv_path) if tv_path.is_file() else {}
    meta = _read_json(meta_path) if meta_path.is_file() else {}
    return Results(preds, train_values, meta)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.-]+", "_", text.replace("*", "all")).strip("_")


def _colors(models) -> dict[str, tuple]:
    """A fixed tab10 colour per model (sorted by name), the same in every plot."""
    cycle = matplotlib.colormaps["tab10"].colors
    return {m: cycle[i % len(cycle)] for i, m in enumerate(sorted(models))}


def _figure(figsize: tuple[float, float], nrows: int = 1, ncols: int = 1,
            **subplots_kw) -> tuple[Figure, np.ndarray]:
    """A pyplot-free Agg figure (no global state, nothing to close) and its axes ``[r, c]``."""
    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig, fig.subplots(nrows, ncols, squeeze=False, **subplots_kw)


def _label(what: str, field: str, unit: str | None) -> str:
    return f"{what} {field}" + (f" [{unit}]" if unit else "")


def _save(fig, out: Path) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=_DPI, metadata=_PNG_METADATA)
    return out


def _rows(res: Results, field: str, split: str) -> pd.DataFrame:
    """The prediction rows of one (field, split); an error naming both if there are none."""
    p = res.preds
    rows = p[(p["field"] == field) & (p["split"] == split)]
    if rows.empty:
        raise ResultsError(f"predictions.csv: no rows for field {field!r} on split {split!r}")
    return rows


def _axis_range(true, pad: float) -> tuple[float, float]:
    """The plotted range of a field: its true values' span plus ``pad`` of it on each side.
    Predictions never set it, so one wild (or infinite) prediction cannot squash a plot."""
    tlo, thi = float(np.min(true)), float(np.max(true))
    span = (thi - tlo) or abs(tlo) or 1.0
    return tlo - pad * span, thi + pad * span


def _draw_at_edge(ax, x, pred, lo: float, hi: float, color, ms: float) -> int:
    """Draw the predictions outside ``[lo, hi]`` (±inf included) as triangles at the nearer
    edge; returns how many there were, for the legend."""
    pred = np.asarray(pred, dtype=np.float64)
    off = ~np.isnan(pred) & ((pred < lo) | (pred > hi))
    if off.any():
        ax.plot(np.asarray(x)[off], np.where(pred[off] > hi, hi, lo), "^", ms=ms, alpha=0.6,
                color=color, clip_on=False)
    return int(off.sum())


def plot_ood(res: Results, field: str, split: str, out: Path, bins: int = 30) -> Path:
    """Fig. 5: predicted vs true ``field`` on ``split``, one colour per model.

    Points are all parseable predictions; the line joins the mean (true, prediction) per
    distinct true value, or per one of ``bins`` equal-width bins of the true value when there
    are more than :data:`MANY_VALUES` distinct ones. Dashed grey lines mark the field's training
    values that fall in the plotted range (vertical: as true values, horizontal: as
    predictions) — a model that only reproduces trained values sits on the horizontal lines;
    more than :data:`MANY_VALUES` of them are drawn as a rug along the x axis instead.
    """
    rows, unit = _rows(res, field, split), res.unit(field)
    colors = _colors(res.preds["model"].unique())
    fig, axes = _figure((6.4, 5.2))
    ax = axes[0, 0]
    ms, alpha = (3, 0.35) if len(rows) <= 2000 * rows["model"].nunique() else (1.5, 0.15)
    edges = np.linspace(rows["true"].min(), rows["true"].max(), bins + 1)
    # predictions beyond half the true span on either side are drawn at the edge and counted
    lo, hi = _axis_range(rows["true"], 0.5)
    for model, g in sorted(rows.groupby("model"), key=lambda kv: kv[0]):
        g = g[g["pred"].notna()]
        key = (g["true"] if rows["true"].nunique() <= MANY_VALUES
               else np.digitize(g["true"], edges[1:-1]))
        line = g.groupby(key, sort=True)[["true", "pred"]].mean()
        inside = (g["pred"] >= lo) & (g["pred"] <= hi)
        ax.plot(g["true"][inside], g["pred"][inside], "o", ms=ms, alpha=alpha, color=colors[model])
        off = _draw_at_edge(ax, g["true"], g["pred"], lo, hi, colors[model], ms + 2)
        label = model + (f" ({off} off-scale)" if off else "")
        ax.plot(line["true"], line["pred"].clip(lo, hi), "-", lw=1.6, color=colors[model],
                label=label, zorder=3)  # above every model's points
    ax.plot([lo, hi], [lo, hi], ":", color="black", lw=1, label="y = x")
    seen = [v for v in res.train_values.get(field, []) if lo <= v <= hi]
    if len(seen) > MANY_VALUES:  # a continuum: a rug along the x axis, not a grid of lines
        ax.plot(seen, np.full(len(seen), 0.01), "|", ms=8, color="0.45",
                transform=ax.get_xaxis_transform(), label=f"training values ({len(seen)})")
    for i, v in enumerate(seen if len(seen) <= MANY_VALUES else []):
        ax.axvline(v, ls="--", lw=0.8, color="0.55", label="training values" if i == 0 else None)
        ax.axhline(v, ls="--", lw=0.8, color="0.55")
    ax.set(xlim=(lo, hi), ylim=(lo, hi), xlabel=_label("true", field, unit),
           ylabel=_label("predicted", field, unit),
           title=f"{field} on {split}: predicted vs true")
    ax.legend(fontsize=8, loc="upper left")  # not "best": slow with many points
    ax.grid(alpha=0.2)
    fig.tight_layout()
    return _save(fig, out)


def plot_histograms(res: Results, field: str, split: str, out: Path, bins: int = 40) -> Path:
    """Fig. 7: histogram of each model's predictions of ``field`` on ``split`` (one panel per
    model, shared bins) over the true values' histogram. The range spans the true values plus
    at most 25% of their span on each side; predictions outside it (±inf included) are counted
    in the legend."""
    rows, unit = _rows(res, field, split), res.unit(field)
    colors = _colors(res.preds["model"].unique())
    groups = sorted(rows.groupby("model"), key=lambda kv: kv[0])
    true, pred = rows["true"].to_numpy(), rows["pred"].dropna().to_numpy()
    pred = pred[np.isfinite(pred)]
    tlo, thi = true.min(), true.max()
    wlo, whi = _axis_range(true, 0.25)
    lo = max(wlo, min(tlo, pred.min(initial=tlo)))
    hi = min(whi, max(thi, pred.max(initial=thi)))
    edges = np.linspace(lo, hi, bins + 1)
    fig, axes = _figure((6.4, 1.9 * len(groups) + 0.8), len(groups), 1, sharex=True)
    for ax, (model, g) in zip(axes[:, 0], groups):
        pred = g["pred"].dropna().to_numpy()
        outside = int(((pred < lo) | (pred > hi)).sum())  # ±inf included
        ax.hist(g["true"], bins=edges, histtype="step", color="black", lw=1.2, label="true")
        ax.hist(pred[(pred >= lo) & (pred <= hi)], bins=edges, alpha=0.6, color=colors[model],
                label=model + (f" ({outside} outside range)" if outside else ""))
        ax.set_ylabel("count")
        ax.legend(fontsize=8, loc="upper right")
    axes[-1, 0].set_xlabel(_label("", field, unit).strip())
    axes[0, 0].set_title(f"{field} on {split}: distribution of predictions")
    fig.tight_layout()
    return _save(fig, out)


def _mixture_of(row, column: str = "mixture") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(weights, means, stds)``, each ``[K]``, from a row's mixture JSON in ``column``."""
    try:
        m = json.loads(row[column])
        w, mu, sd = (np.asarray(m[k], dtype=np.float64) for k in ("weights", "means", "stds"))
    except (ValueError, KeyError, TypeError) as e:
        where = ", ".join(f"{k} {row[k]}" for k in ("model", "record", "path") if k in row)
        raise ResultsError(f"predictions.csv ({where}): bad mixture column: {e!r}") from None
    if not (w.ndim == 1 and w.shape == mu.shape == sd.shape and w.size):
        raise ResultsError(f"predictions.csv: mixture weights/means/stds must be equal-length "
                           f"non-empty lists, got {row[column]!r}")
    return w, mu, sd


def _representative(rows: pd.DataFrame, column: str = "mixture") -> pd.Series:
    """The row whose NLL of the true value is the median one (lowest ordering keys on ties)."""
    keys = [c for c in ("record", "path") if c in rows.columns]
    rows = rows.sort_values(keys, kind="stable") if keys else rows
    w, mu, sd = zip(*(_mixture_of(r, column) for _, r in rows.iterrows()))
    if len({len(a) for a in w}) == 1:
        nll = gmm_nll_per_sample(rows["true"], np.stack(w), np.stack(mu), np.stack(sd))
    else:  # K differs between rows: score row by row
        nll = np.array([gmm_nll_per_sample([t], [a], [b], [c])[0]
                        for t, a, b, c in zip(rows["true"], w, mu, sd)])
    order = np.argsort(np.nan_to_num(nll, nan=np.inf), kind="stable")
    return rows.iloc[order[(len(order) - 1) // 2]]


def plot_gmm_density(res: Results, model: str, field: str, split: str, out: Path,
                     column: str = "mixture") -> Path:
    """Predictive density of a head that declares one (``column``: its Gaussian-mixture JSON
    column, :attr:`scinum.heads.HeadOutputs.density`) for one masked number of ``field`` on
    ``split``: the mixture (and its components), the true value, the point prediction and the
    shaded 68%/95% intervals. The row shown is the one with the median NLL (deterministic)."""
    rows = _rows(res, field, split)
    if column in rows.columns:
        rows = rows[(rows["model"] == model) & rows[column].notna()]
    if column not in rows.columns or rows.empty:
        raise ResultsError(f"predictions.csv: no {column} rows for model {model!r}, field "
                           f"{field!r}, split {split!r}")
    row, unit = _representative(rows, column), res.unit(field)
    w, mu, sd = _mixture_of(row, column)
    y = float(row["true"])
    ok = np.isfinite(w) & np.isfinite(mu) & np.isfinite(sd) & (sd > 0) & (w > 0)
    bad = int((~ok).sum())  # components a diverged model made non-finite: left out, counted
    w, mu, sd = w[ok], mu[ok], sd[ok]
    w = w / w.sum() if w.size else w
    big = w >= 1e-3 * w.max(initial=0.0)  # the range ignores negligible components
    lo = min((mu - 4 * sd)[big].min(initial=y), y)
    hi = max((mu + 4 * sd)[big].max(initial=y), y)
    if hi == lo:
        lo, hi = _axis_range([y], 0.5)
    lo, hi = lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo)
    # a coarse grid plus a fine one around each component, so narrow peaks are not missed
    x = np.unique(np.concatenate([np.linspace(lo, hi, 600)] + [
        np.linspace(max(lo, m - 4 * s), min(hi, m + 4 * s), 100)
        for m, s in zip(mu[big], sd[big])]))
    comp = w[:, None] * np.exp(-0.5 * ((x - mu[:, None]) / sd[:, None]) ** 2) / (
        sd[:, None] * np.sqrt(2 * np.pi))
    fig, axes = _figure((6.4, 4.4))
    ax = axes[0, 0]
    for level, alpha in ((95, 0.15), (68, 0.3)):
        a, b = row.get(f"lo{level}"), row.get(f"hi{level}")
        if a is not None and b is not None and np.isfinite(a) and np.isfinite(b):
            ax.axvspan(a, b, color="tab:blue", alpha=alpha, lw=0, label=f"{level}% interval")
    for i, c in enumerate(comp):
        ax.plot(x, c, "--", lw=0.8, color="0.5", label="components" if i == 0 else None)
    ax.plot(x, comp.sum(axis=0), color="tab:blue", lw=2,
            label="mixture density" + (f" ({bad} non-finite components left out)" if bad else ""))
    ax.axvline(y, color="black", lw=1.5, label=f"true = {y:.6g}")
    if np.isfinite(row["pred"]) and lo <= row["pred"] <= hi:
        ax.axvline(row["pred"], color="tab:red", ls="-.", lw=1.2,
                   label=f"prediction = {row['pred']:.6g}")
    elif not np.isnan(row["pred"]):  # off the plotted range or ±inf: at the edge, named
        ax.axvline(hi if row["pred"] > hi else lo, color="tab:red", ls="-.", lw=1.2,
                   label=f"prediction = {row['pred']:.6g} (off-scale, drawn at the edge)")
    where = f"record {int(row['record'])}" if "record" in row and pd.notna(row["record"]) else ""
    path = row["path"] if "path" in row and isinstance(row["path"], str) else field
    ax.set(xlabel=_label("", path, unit).strip(), ylabel="probability density",
           title=f"{model}: {path} on {split} {where}".strip())
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _save(fig, out)


def plot_scatter(res: Results, field: str, split: str, out: Path) -> Path:
    """Predicted vs true ``field`` on ``split``, one panel per model, R² in the legend
    (ERA5 temperature style, seed 002 §3.2). The axes span the true values plus a quarter of
    their span; predictions beyond (±inf included) are drawn at the edge and counted."""
    rows, unit = _rows(res, field, split), res.unit(field)
    colors = _colors(res.preds["model"].unique())
    groups = sorted(rows.groupby("model"), key=lambda kv: kv[0])
    ncol = min(3, len(groups))
    nrow = -(-len(groups) // ncol)
    fig, axes = _figure((4.0 * ncol, 3.9 * nrow), nrow, ncol)
    lo, hi = _axis_range(rows["true"], 0.25)  # predictions beyond: at the edge, counted
    size, alpha = (12, 0.6) if len(rows) <= 2000 * len(groups) else (3, 0.25)
    for ax, (model, g) in zip(axes.ravel(), groups):
        bad = int(g["pred"].isna().sum())
        inside = (g["pred"] >= lo) & (g["pred"] <= hi)
        ax.plot([lo, hi], [lo, hi], ":", color="black", lw=1)
        off = _draw_at_edge(ax, g["true"], g["pred"], lo, hi, colors[model], 5)
        ax.scatter(g["true"][inside], g["pred"][inside], s=size, alpha=alpha, color=colors[model],
                   lw=0, label=f"{model}  R² = {r2(g['true'], g['pred']):.3f}"
                   + (f"\n{bad} unparseable" if bad else "") + (f"\n{off} off-scale" if off else ""))
        ax.set(xlim=(lo, hi), ylim=(lo, hi), xlabel=_label("true", field, unit),
               ylabel=_label("predicted", field, unit))
        ax.legend(fontsize=8, loc="upper left", markerscale=3)
        ax.grid(alpha=0.2)
    for ax in axes.ravel()[len(groups):]:
        ax.set_visible(False)
    fig.suptitle(f"{field} on {split}: predicted vs true")
    fig.tight_layout()
    return _save(fig, out)


def _ood_pairs(res: Results) -> list[tuple[str, str]]:
    """(split, field) pairs for Fig. 5: meta's ``ood_fields``, else every ood_* split × field."""
    p = res.preds
    present = set(zip(p["split"], p["field"]))
    ood = res.meta.get("ood_fields")
    if ood:
        return sorted((s, f) for s, f in ood.items() if (s, f) in present)
    return sorted(pair for pair in present if pair[0].startswith("ood_"))


def _densities(res: Results) -> dict[str, str]:
    """``{model: column}`` of the models whose head declares a predictive density column
    (``meta.json`` ``heads``); results written before heads declared theirs: the ``mixture``
    column's models."""
    declared = res.meta.get("heads") if isinstance(res.meta.get("heads"), dict) else None
    if declared is None:
        declared = {m: {"density": "mixture"} for m in res.preds["model"].unique()}
    return {str(m): d["density"] for m, d in declared.items() if isinstance(d, dict)
            and d.get("density") in res.preds.columns and (res.preds["model"] == m).any()}


def make_all(results_dir: str | Path) -> list[Path]:
    """Write every applicable plot into ``results_dir/plots/``; returns the paths written.

    * ``ood_<split>__<field>.png`` per (split, field) of :func:`_ood_pairs`;
    * ``hist_<split>__<field>.png`` per field, on ``test`` (else the first split by name), and
      ``fig7_<split>__<field>.png`` (:mod:`.histograms`) where it has ≥ MANY_VALUES true values;
    * ``gmm_<model>_<split>__<field>.png`` per model whose head declares a density (the mixture
      head) and field, on that split;
    * ``scatter_<split>__<field>.png`` per (split, field) with ≥ :data:`MANY_VALUES` distinct
      true values (continuous fields: a line per true value would say nothing);
    * ``curves_<model>.png`` per training log in ``results_dir/logs/`` (:mod:`.curves`).
    """
    res = load_results(results_dir)
    outdir = Path(results_dir) / "plots"
    p = res.preds[res.preds["true"].notna()]
    res = Results(p, res.train_values, res.meta)
    written = [plot_ood(res, f, s, outdir / f"ood_{_slug(s)}__{_slug(f)}.png")
               for s, f in _ood_pairs(res)]
    splits = sorted(p["split"].unique())
    if splits:
        ref = "test" if "test" in splits else splits[0]
        rows = p[p["split"] == ref]
        for f in sorted(rows["field"].unique()):
            name = f"{_slug(ref)}__{_slug(f)}.png"
            written.append(plot_histograms(res, f, ref, outdir / f"hist_{name}"))
            if rows.loc[rows["field"] == f, "true"].nunique() >= MANY_VALUES:  # Fig. 7 view
                written.append(plot_joint_histograms(res, f, ref, outdir / f"fig7_{name}"))
        for m, column in sorted(_densities(res).items()):
            mix = rows[(rows["model"] == m) & rows[column].notna()]
            for f in sorted(mix["field"].unique()):
                name = f"gmm_{_slug(m)}_{_slug(ref)}__{_slug(f)}.png"
                written.append(plot_gmm_density(res, m, f, ref, outdir / name, column))
    for log in sorted((Path(results_dir) / "logs").glob("*.csv")):  # copied by the recipes
        written.append(plot_curves(log, outdir / f"curves_{_slug(log.stem)}.png", title=log.stem))
    for (s, f), g in sorted(p.groupby(["split", "field"]), key=lambda kv: kv[0]):
        if g["true"].nunique() >= MANY_VALUES:
            written.append(plot_scatter(res, f, s, outdir / f"scatter_{_slug(s)}__{_slug(f)}.png"))
    return written


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results_dir", type=Path,
                        help="directory written by `scinum evaluate` (predictions.csv, ...)")


def run(args: argparse.Namespace) -> int:
    written = make_all(args.results_dir)
    if not written:
        print(f"scinum plot: nothing to plot in {args.results_dir}", file=sys.stderr)
    for path in written:
        print(path)
    return 0
