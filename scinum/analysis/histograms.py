"""Histograms of the predictions: per model against the true values' histogram (the xVal paper's
Fig. 7 as :func:`plot_histograms`), and joint histograms of predicted vs true (its 2-d view,
:func:`plot_joint_histograms`).

Seed 002 (§3.3, *Failure modes*, Fig. 7) shows the predictions of P10 and xVal for the planet
mass, the hardest planets field: both do equally poorly by MSE, but xVal's predictions collapse
towards the mean while P10's are spread over several values (multi-modal), which the paper reads
as the better start for an uncertain distribution. The paper's text gives the figure's caption
and this reading only, not its axes; here each model gets a 2-d histogram of (true, predicted),
so that both failure modes show: a horizontal band (the model predicts about the same value for
every record), a few horizontal stripes (a text encoding that picks among a few values), or the
diagonal (a model that learned the field).

``make_all`` (:mod:`scinum.analysis.plots`) draws the 2-d view for each continuous field (at
least ``MANY_VALUES`` distinct true values) on the reference split:
``fig7_<split>__<field>.png``; on planets that includes m₁ (``description.planet0.m``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.ticker import MaxNLocator

from .drawing import axis_range, colors, figure, label, save
from .metrics import r2
from .results import Results

__all__ = ["plot_histograms", "plot_joint_histograms"]


def plot_histograms(res: Results, field: str, split: str, out: Path, bins: int = 40) -> Path:
    """Fig. 7: histogram of each model's predictions of ``field`` on ``split`` (one panel per
    model, shared bins) over the true values' histogram. The range spans the true values plus
    at most 25% of their span on each side; predictions outside it (±inf included) are counted
    in the legend."""
    rows, unit = res.rows(field, split), res.unit(field)
    palette = colors(res.preds["model"].unique())
    groups = sorted(rows.groupby("model"), key=lambda kv: kv[0])
    true, pred = rows["true"].to_numpy(), rows["pred"].dropna().to_numpy()
    pred = pred[np.isfinite(pred)]
    tlo, thi = true.min(), true.max()
    wlo, whi = axis_range(true, 0.25)
    lo = max(wlo, min(tlo, pred.min(initial=tlo)))
    hi = min(whi, max(thi, pred.max(initial=thi)))
    edges = np.linspace(lo, hi, bins + 1)
    fig, axes = figure((6.4, 1.9 * len(groups) + 0.8), len(groups), 1, sharex=True)
    for ax, (model, g) in zip(axes[:, 0], groups):
        pred = g["pred"].dropna().to_numpy()
        outside = int(((pred < lo) | (pred > hi)).sum())  # ±inf included
        ax.hist(g["true"], bins=edges, histtype="step", color="black", lw=1.2, label="true")
        ax.hist(
            pred[(pred >= lo) & (pred <= hi)],
            bins=edges,
            alpha=0.6,
            color=palette[model],
            label=model + (f" ({outside} outside range)" if outside else ""),
        )
        ax.set_ylabel("count")
        ax.legend(fontsize=8, loc="upper right")
    axes[-1, 0].set_xlabel(label("", field, unit).strip())
    axes[0, 0].set_title(f"{field} on {split}: distribution of predictions")
    fig.tight_layout()
    return save(fig, out)


def plot_joint_histograms(res: Results, field: str, split: str, out: Path, bins: int = 30) -> Path:
    """Fig. 7 view: per model, a 2-d histogram of (true, predicted) ``field`` on ``split``.

    Both axes span the true values plus 10 % of their span on each side (in the field's units,
    shared by every panel); predictions outside that range (±inf included) and unparseable ones
    (NaN) are counted in the panel's title, never drawn at a wrong place. The colour is the
    count per cell (white: none), on each panel's own scale; the dotted line is y = x. Panel
    titles carry R² over the parseable predictions (:func:`scinum.analysis.metrics.r2`).
    Returns ``out``.
    """
    rows, unit = res.rows(field, split), res.unit(field)
    groups = sorted(rows.groupby("model"), key=lambda kv: kv[0])
    lo, hi = axis_range(rows["true"], 0.10)
    edges = np.linspace(lo, hi, bins + 1)
    ncol = min(3, len(groups))
    nrow = -(-len(groups) // ncol)
    fig, axes = figure((3.9 * ncol, 3.6 * nrow + 0.4), nrow, ncol)
    for ax, (model, g) in zip(axes.ravel(), groups):
        true = g["true"].to_numpy(dtype=np.float64)
        pred = g["pred"].to_numpy(dtype=np.float64)
        nan = np.isnan(pred)
        inside = ~nan & (pred >= lo) & (pred <= hi)
        counts, _, _ = np.histogram2d(true[inside], pred[inside], bins=[edges, edges])
        if counts.any():
            shown = np.ma.masked_equal(counts.T, 0)  # rows: predicted, columns: true
            mesh = ax.pcolormesh(edges, edges, shown, cmap="viridis", shading="flat")
            bar = fig.colorbar(mesh, ax=ax, fraction=0.046, pad=0.03, label="records")
            bar.locator = MaxNLocator(integer=True)
            bar.update_ticks()
        else:
            ax.text(0.5, 0.5, "no prediction in range", ha="center", va="center", transform=ax.transAxes, color="0.4")
        ax.plot([lo, hi], [lo, hi], ":", color="black", lw=1)
        notes = [f"R² = {r2(true, pred):.4g}"]
        if (~inside & ~nan).any():
            notes.append(f"{int((~inside & ~nan).sum())} outside")
        if nan.any():
            notes.append(f"{int(nan.sum())} unparseable")
        ax.set(
            xlim=(lo, hi),
            ylim=(lo, hi),
            title=f"{model}: " + ", ".join(notes),
            xlabel=label("true", field, unit),
            ylabel=label("predicted", field, unit),
        )
        ax.title.set_fontsize(9)
        ax.ticklabel_format(style="sci", scilimits=(-3, 4))  # 6-digit values: 1e6 on the axis
        ax.xaxis.set_major_locator(MaxNLocator(5))
    for ax in axes.ravel()[len(groups) :]:
        ax.set_visible(False)
    fig.suptitle(f"{field} on {split}: predicted vs true, counts per cell (Fig. 7 view)")
    fig.tight_layout()
    return save(fig, out)
