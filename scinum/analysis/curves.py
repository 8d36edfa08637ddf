"""Training curves: is a model still learning? Drawn from the CSV logs of ``scinum fit``.

``<run>/logs/metrics.csv`` (Lightning's CSV logger) holds, per logged step, ``train/loss``,
``train/token_ce``, ``train/number_loss``, ``train/number_abs_err`` (mean |prediction − target|
of the hidden numbers, normalized units) and, at each validation, the same under ``val/``.
Single-token models also log, at each validation, ``val/err/<field>`` for every field the
dataset declares for evaluation (planets: Δt, a₁, e₁, m₁). A recipe copies each model's log to
``results/<recipe>/logs/<model>.csv``; :func:`plot_curves` draws one figure per model: the
losses, the number error and (when logged) the validation error per evaluation field over steps,
training values as a rolling mean over 10 logged steps with the raw values faint behind,
validation as points.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ResultsError
from .drawing import figure, save

__all__ = ["read_log", "plot_curves"]

_PANELS = (
    ("loss", ("loss", "token_ce", "number_loss"), "loss"),
    ("number error", ("number_abs_err",), "mean |prediction − target| (normalized units)"),
)


def read_log(path: str | Path) -> pd.DataFrame:
    """A run's ``metrics.csv`` as a frame with a ``step`` column; an error naming the file if it
    cannot be read or has no ``step``/``train/loss``."""
    path = Path(path)
    try:
        log = pd.read_csv(path)
    except (OSError, ValueError) as e:
        raise ResultsError(f"{path}: cannot read the training log: {e}") from None
    missing = [c for c in ("step", "train/loss") if c not in log.columns]
    if missing:
        raise ResultsError(f"{path}: not a scinum training log (missing {', '.join(missing)})")
    return log


def plot_curves(log_path: str | Path, out: str | Path, title: str | None = None) -> Path:
    """Draw the training curves of one run (module docstring) into ``out`` (PNG)."""
    log = read_log(log_path)
    title = title or Path(log_path).stem
    per_field = [c for c in log.columns if c.startswith("val/err/")]
    fig, axes = figure((15 if per_field else 10, 3.8), 1, 3 if per_field else 2)
    if per_field:
        ax = axes[0][2]
        for k, col in enumerate(per_field):
            val = log[["step", col]].dropna()
            ax.plot(val["step"], val[col], "o-", color=f"C{k}", ms=4, lw=1.2, label=col[len("val/err/") :])
        ax.set(xlabel="step", ylabel="validation mean |prediction − target| (normalized)", title=f"{title}: error per evaluation field")
        if (log[per_field].to_numpy(dtype=np.float64) > 0).any():
            ax.set_yscale("log")
        ax.grid(alpha=0.2)
        ax.legend(fontsize=8)
    for ax, (name, keys, ylabel) in zip(axes[0], _PANELS):
        for k, key in enumerate(keys):
            color = f"C{k}"
            train = log[["step", f"train/{key}"]].dropna() if f"train/{key}" in log else None
            if train is not None and len(train):
                y = train[f"train/{key}"].to_numpy(dtype=np.float64)
                ax.plot(train["step"], y, color=color, alpha=0.2, lw=0.8)
                smooth = pd.Series(y).rolling(10, min_periods=1).mean()
                ax.plot(train["step"], smooth, color=color, lw=1.6, label=f"train {key}")
            val = log[["step", f"val/{key}"]].dropna() if f"val/{key}" in log else None
            if val is not None and len(val):
                ax.plot(val["step"], val[f"val/{key}"], "o--", color=color, ms=5, lw=1, label=f"val {key}")
        values = log[[c for c in log.columns if c.split("/")[-1] in keys]].to_numpy(dtype=np.float64)
        if np.isfinite(values).any() and (values[np.isfinite(values)] > 0).all():
            ax.set_yscale("log")  # losses that can go negative (mixture NLL) stay linear
        ax.set(xlabel="step", ylabel=ylabel, title=f"{title}: {name}")
        ax.grid(alpha=0.2)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.tight_layout()
    return save(fig, out)
