"""Predicted vs true per model with R² (ERA5 temperature style, seed 002 §3.2): the view of a
continuous field, where a line through the mean per true value would say nothing."""

from __future__ import annotations

from pathlib import Path

from .drawing import axis_range, colors, draw_at_edge, figure, label, save
from .metrics import r2
from .results import Results

__all__ = ["plot_scatter"]


def plot_scatter(res: Results, field: str, split: str, out: Path) -> Path:
    """Predicted vs true ``field`` on ``split``, one panel per model, R² in the legend. The axes
    span the true values plus a quarter of their span; predictions beyond (±inf included) are
    drawn at the edge and counted."""
    rows, unit = res.rows(field, split), res.unit(field)
    palette = colors(res.preds["model"].unique())
    groups = sorted(rows.groupby("model"), key=lambda kv: kv[0])
    ncol = min(3, len(groups))
    nrow = -(-len(groups) // ncol)
    fig, axes = figure((4.0 * ncol, 3.9 * nrow), nrow, ncol)
    lo, hi = axis_range(rows["true"], 0.25)  # predictions beyond: at the edge, counted
    size, alpha = (12, 0.6) if len(rows) <= 2000 * len(groups) else (3, 0.25)
    for ax, (model, g) in zip(axes.ravel(), groups):
        bad = int(g["pred"].isna().sum())
        inside = (g["pred"] >= lo) & (g["pred"] <= hi)
        ax.plot([lo, hi], [lo, hi], ":", color="black", lw=1)
        off = draw_at_edge(ax, g["true"], g["pred"], lo, hi, palette[model], 5)
        ax.scatter(
            g["true"][inside],
            g["pred"][inside],
            s=size,
            alpha=alpha,
            color=palette[model],
            lw=0,
            label=f"{model}  R² = {r2(g['true'], g['pred']):.3f}"
            + (f"\n{bad} unparseable" if bad else "")
            + (f"\n{off} off-scale" if off else ""),
        )
        ax.set(xlim=(lo, hi), ylim=(lo, hi), xlabel=label("true", field, unit), ylabel=label("predicted", field, unit))
        ax.legend(fontsize=8, loc="upper left", markerscale=3)
        ax.grid(alpha=0.2)
    for ax in axes.ravel()[len(groups) :]:
        ax.set_visible(False)
    fig.suptitle(f"{field} on {split}: predicted vs true")
    fig.tight_layout()
    return save(fig, out)
