"""What every plot of a results directory shares: pyplot-free Agg figures, one colour per model,
axis ranges set by the true values, off-scale predictions drawn at the edge, deterministic PNGs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence, cast

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

__all__ = ["MANY_VALUES", "slug", "colors", "figure", "label", "save", "axis_range", "draw_at_edge"]

#: A (field, split) with at least this many distinct true values is drawn as continuous.
MANY_VALUES = 20
_DPI = 120
_PNG_METADATA = {"Software": None}  # no version stamp: the same bytes on every run


def slug(text: str) -> str:
    """``text`` as a file-name part (``*`` -> ``all``, other odd characters -> ``_``)."""
    return re.sub(r"[^A-Za-z0-9.-]+", "_", text.replace("*", "all")).strip("_")


def colors(models) -> dict[str, tuple]:
    """A fixed tab10 colour per model (sorted by name), the same in every plot."""
    cmap = matplotlib.colormaps["tab10"]
    assert isinstance(cmap, ListedColormap)  # a qualitative map: a list of colours
    cycle = cast(Sequence[tuple], cmap.colors)  # typed ArrayLike; tab10's: 10 RGB tuples
    return {m: cycle[i % len(cycle)] for i, m in enumerate(sorted(models))}


def figure(figsize: tuple[float, float], nrows: int = 1, ncols: int = 1, **subplots_kw) -> tuple[Figure, np.ndarray]:
    """A pyplot-free Agg figure (no global state, nothing to close) and its axes ``[r, c]``."""
    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig, fig.subplots(nrows, ncols, squeeze=False, **subplots_kw)


def label(what: str, field: str, unit: str | None) -> str:
    """An axis label: ``"<what> <field> [<unit>]"``."""
    return f"{what} {field}" + (f" [{unit}]" if unit else "")


def save(fig: Figure, out: str | Path) -> Path:
    """Write ``fig`` as a PNG to ``out`` (its folder made); returns ``out``."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=_DPI, metadata=_PNG_METADATA)
    return out


def axis_range(true, pad: float) -> tuple[float, float]:
    """The plotted range of a field: its true values' span plus ``pad`` of it on each side.
    Predictions never set it, so one wild (or infinite) prediction cannot squash a plot."""
    tlo, thi = float(np.min(true)), float(np.max(true))
    span = (thi - tlo) or abs(tlo) or 1.0
    return tlo - pad * span, thi + pad * span


def draw_at_edge(ax, x, pred, lo: float, hi: float, color, ms: float) -> int:
    """Draw the predictions outside ``[lo, hi]`` (±inf included) as triangles at the nearer
    edge; returns how many there were, for the legend."""
    pred = np.asarray(pred, dtype=np.float64)
    off = ~np.isnan(pred) & ((pred < lo) | (pred > hi))
    if off.any():
        ax.plot(np.asarray(x)[off], np.where(pred[off] > hi, hi, lo), "^", ms=ms, alpha=0.6, color=color, clip_on=False)
    return int(off.sum())
