"""Predicted vs true on an out-of-distribution split, with the training values (Fig. 5 of seed
002): does a model interpolate between the values it trained on, or snap to them?"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .drawing import MANY_VALUES, axis_range, colors, draw_at_edge, figure, label, save
from .results import Results

__all__ = ["plot_ood", "ood_pairs"]


def plot_ood(res: Results, field: str, split: str, out: Path, bins: int = 30) -> Path:
    """Fig. 5: predicted vs true ``field`` on ``split``, one colour per model.

    Points are all parseable predictions; the line joins the mean (true, prediction) per
    distinct true value, or per one of ``bins`` equal-width bins of the true value when there
    are more than :data:`MANY_VALUES` distinct ones. Dashed grey lines mark the field's training
    values that fall in the plotted range (vertical: as true values, horizontal: as
    predictions) — a model that only reproduces trained values sits on the horizontal lines;
    more than :data:`MANY_VALUES` of them are drawn as a rug along the x axis instead.
    """
    rows, unit = res.rows(field, split), res.unit(field)
    palette = colors(res.preds["model"].unique())
    fig, axes = figure((6.4, 5.2))
    ax = axes[0, 0]
    ms, alpha = (3, 0.35) if len(rows) <= 2000 * rows["model"].nunique() else (1.5, 0.15)
    edges = np.linspace(rows["true"].min(), rows["true"].max(), bins + 1)
    # predictions beyond half the true span on either side are drawn at the edge and counted
    lo, hi = axis_range(rows["true"], 0.5)
    for model, g in sorted(rows.groupby("model"), key=lambda kv: kv[0]):
        g = g[g["pred"].notna()]
        key = g["true"] if rows["true"].nunique() <= MANY_VALUES else np.digitize(g["true"], edges[1:-1])
        line = g.groupby(key, sort=True)[["true", "pred"]].mean()
        inside = (g["pred"] >= lo) & (g["pred"] <= hi)
        ax.plot(g["true"][inside], g["pred"][inside], "o", ms=ms, alpha=alpha, color=palette[model])
        off = draw_at_edge(ax, g["true"], g["pred"], lo, hi, palette[model], ms + 2)
        ax.plot(
            line["true"],
            line["pred"].clip(lo, hi),
            "-",
            lw=1.6,
            color=palette[model],
            label=model + (f" ({off} off-scale)" if off else ""),
            zorder=3,
        )  # above every model's points
    ax.plot([lo, hi], [lo, hi], ":", color="black", lw=1, label="y = x")
    seen = [v for v in res.train_values.get(field, []) if lo <= v <= hi]
    if len(seen) > MANY_VALUES:  # a continuum: a rug along the x axis, not a grid of lines
        ax.plot(
            seen,
            np.full(len(seen), 0.01),
            "|",
            ms=8,
            color="0.45",
            transform=ax.get_xaxis_transform(),
            label=f"training values ({len(seen)})",
        )
    for i, v in enumerate(seen if len(seen) <= MANY_VALUES else []):
        ax.axvline(v, ls="--", lw=0.8, color="0.55", label="training values" if i == 0 else None)
        ax.axhline(v, ls="--", lw=0.8, color="0.55")
    ax.set(
        xlim=(lo, hi),
        ylim=(lo, hi),
        xlabel=label("true", field, unit),
        ylabel=label("predicted", field, unit),
        title=f"{field} on {split}: predicted vs true",
    )
    ax.legend(fontsize=8, loc="upper left")  # not "best": slow with many points
    ax.grid(alpha=0.2)
    fig.tight_layout()
    return save(fig, out)


def ood_pairs(res: Results) -> list[tuple[str, str]]:
    """(split, field) pairs for Fig. 5: meta's ``ood_fields``, else every ood_* split × field."""
    p = res.preds
    present = set(zip(p["split"], p["field"]))
    ood = res.meta.get("ood_fields")
    if ood:
        return sorted((s, f) for s, f in ood.items() if (s, f) in present)
    return sorted(pair for pair in present if pair[0].startswith("ood_"))
