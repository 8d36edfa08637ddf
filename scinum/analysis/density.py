"""The predictive density of one masked number, for heads that declare one
(:attr:`scinum.heads.HeadOutputs.density`: a Gaussian-mixture JSON column of ``predictions.csv``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ResultsError
from .drawing import axis_range, figure, label, save
from .metrics import gmm_nll_per_sample
from .results import Results

__all__ = ["plot_gmm_density", "densities"]


def _mixture_of(row, column: str = "mixture") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(weights, means, stds)``, each ``[K]``, from a row's mixture JSON in ``column``."""
    try:
        m = json.loads(row[column])
        w, mu, sd = (np.asarray(m[k], dtype=np.float64) for k in ("weights", "means", "stds"))
    except (ValueError, KeyError, TypeError) as e:
        where = ", ".join(f"{k} {row[k]}" for k in ("model", "record", "path") if k in row)
        raise ResultsError(f"predictions.csv ({where}): bad mixture column: {e!r}") from None
    if not (w.ndim == 1 and w.shape == mu.shape == sd.shape and w.size):
        raise ResultsError(f"predictions.csv: mixture weights/means/stds must be equal-length non-empty lists, got {row[column]!r}")
    return w, mu, sd


def _representative(rows: pd.DataFrame, column: str = "mixture") -> pd.Series:
    """The row whose NLL of the true value is the median one (lowest ordering keys on ties)."""
    keys = [c for c in ("record", "path") if c in rows.columns]
    rows = rows.sort_values(keys, kind="stable") if keys else rows
    w, mu, sd = zip(*(_mixture_of(r, column) for _, r in rows.iterrows()))
    if len({len(a) for a in w}) == 1:
        nll = gmm_nll_per_sample(rows["true"], np.stack(w), np.stack(mu), np.stack(sd))
    else:  # K differs between rows: score row by row
        nll = np.array([gmm_nll_per_sample([t], [a], [b], [c])[0] for t, a, b, c in zip(rows["true"], w, mu, sd)])
    order = np.argsort(np.nan_to_num(nll, nan=np.inf), kind="stable")
    return rows.iloc[order[(len(order) - 1) // 2]]


def plot_gmm_density(res: Results, model: str, field: str, split: str, out: Path, column: str = "mixture") -> Path:
    """Predictive density of a head that declares one (``column``: its Gaussian-mixture JSON
    column) for one masked number of ``field`` on ``split``: the mixture (and its components),
    the true value, the point prediction and the shaded 68%/95% intervals. The row shown is the
    one with the median NLL (deterministic)."""
    rows = res.rows(field, split)
    if column in rows.columns:
        rows = rows[(rows["model"] == model) & rows[column].notna()]
    if column not in rows.columns or rows.empty:
        raise ResultsError(f"predictions.csv: no {column} rows for model {model!r}, field {field!r}, split {split!r}")
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
        lo, hi = axis_range([y], 0.5)
    lo, hi = lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo)
    # a coarse grid plus a fine one around each component, so narrow peaks are not missed
    x = np.unique(
        np.concatenate(
            [np.linspace(lo, hi, 600)] + [np.linspace(max(lo, m - 4 * s), min(hi, m + 4 * s), 100) for m, s in zip(mu[big], sd[big])]
        )
    )
    comp = w[:, None] * np.exp(-0.5 * ((x - mu[:, None]) / sd[:, None]) ** 2) / (sd[:, None] * np.sqrt(2 * np.pi))
    fig, axes = figure((6.4, 4.4))
    ax = axes[0, 0]
    for level, alpha in ((95, 0.15), (68, 0.3)):
        a, b = row.get(f"lo{level}"), row.get(f"hi{level}")
        if a is not None and b is not None and np.isfinite(a) and np.isfinite(b):
            ax.axvspan(a, b, color="tab:blue", alpha=alpha, lw=0, label=f"{level}% interval")
    for i, c in enumerate(comp):
        ax.plot(x, c, "--", lw=0.8, color="0.5", label="components" if i == 0 else None)
    ax.plot(
        x, comp.sum(axis=0), color="tab:blue", lw=2, label="mixture density" + (f" ({bad} non-finite components left out)" if bad else "")
    )
    ax.axvline(y, color="black", lw=1.5, label=f"true = {y:.6g}")
    if np.isfinite(row["pred"]) and lo <= row["pred"] <= hi:
        ax.axvline(row["pred"], color="tab:red", ls="-.", lw=1.2, label=f"prediction = {row['pred']:.6g}")
    elif not np.isnan(row["pred"]):  # off the plotted range or ±inf: at the edge, named
        ax.axvline(
            hi if row["pred"] > hi else lo,
            color="tab:red",
            ls="-.",
            lw=1.2,
            label=f"prediction = {row['pred']:.6g} (off-scale, drawn at the edge)",
        )
    where = f"record {int(row['record'])}" if "record" in row and pd.notna(row["record"]) else ""
    path = row["path"] if "path" in row and isinstance(row["path"], str) else field
    ax.set(xlabel=label("", path, unit).strip(), ylabel="probability density", title=f"{model}: {path} on {split} {where}".strip())
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save(fig, out)


def densities(res: Results) -> dict[str, str]:
    """``{model: column}`` of the models whose head declares a predictive density column
    (``meta.json`` ``heads``); results written before heads declared theirs: the ``mixture``
    column's models."""
    declared = res.meta.get("heads") if isinstance(res.meta.get("heads"), dict) else None
    if declared is None:
        declared = {m: {"density": "mixture"} for m in res.preds["model"].unique()}
    return {
        str(m): d["density"]
        for m, d in declared.items()
        if isinstance(d, dict) and d.get("density") in res.preds.columns and (res.preds["model"] == m).any()
    }
