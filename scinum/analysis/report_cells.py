"""How a comparison report's cells read (:mod:`.report`): a summarized cell as ``mean [lo,
hi]`` or ``median (diverged k/n)`` with its n (records × seeds) and unparsed count, the
baselines' rows, the paired differences' rows, and the markdown table they go into."""

from __future__ import annotations

import math
from typing import Sequence

import pandas as pd

from .comparison_plots import cell

__all__ = ["baseline_rows", "cell_text", "center", "fmt_ci", "g", "md_table", "n_text", "paired_md", "value_text"]


def g(x: float, digits: int = 2) -> str:
    """``x`` in ``digits`` significant digits; ``–`` for NaN or None."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{digits}g}" if x != 0 else "0"


def fmt_ci(mean: float, lo: float, hi: float, digits: int = 2) -> str:
    """``mean [lo, hi]`` in ``digits`` significant digits (``mean`` alone without an interval)."""
    if math.isnan(lo) or math.isnan(hi):
        return g(mean, digits)
    return f"{g(mean, digits)} [{g(lo, digits)}, {g(hi, digits)}]"


def md_table(header: Sequence[str], rows: list[list[str]]) -> str:
    """A markdown table of ``rows`` (cells as text) under ``header``."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def value_text(r: pd.Series, digits: int = 2) -> str:
    """A summarized cell: ``mean [lo, hi]``, or ``median (diverged k/n)`` where a seed diverged."""
    if r.get("n_diverged", 0) > 0:
        return f"median {g(r['median'], digits)} (diverged {int(r['n_diverged'])}/{int(r['n_seeds'])})"
    return fmt_ci(r["mean"], r["ci95_low"], r["ci95_high"], digits)


def n_text(r: pd.Series) -> str:
    """``n R × S`` (records × seeds) of a summarized cell; ``n S seeds`` without a record count."""
    seeds = int(r["n_seeds"])
    return f"n {int(r['n_records'])} × {seeds}" if pd.notna(r.get("n_records")) else f"n {seeds} seed{'' if seeds == 1 else 's'}"


def cell_text(long: pd.DataFrame, model: str, column: dict, metric: str) -> str:
    """A cell's value (:func:`value_text`) and n, with the unparsed predictions per seed where
    there are any (mean count, and their share)."""
    r = cell(long, model, column["field"], column["split"], metric)
    if r is None:
        return "–"
    text = f"{value_text(r)} ({n_text(r)})"
    u, count = (cell(long, model, column["field"], column["split"], k) for k in ("unparseable", "n_unparsed"))
    if u is not None and center(u) > 1e-4:
        many = f"{center(count):.3g} = " if count is not None else ""
        text += f" ({many}{center(u):.1%} unparsed)"
    return text


def center(r: pd.Series) -> float:
    """A summarized cell's mean, or its median where a seed diverged (there is no mean)."""
    return float(r["median"] if r.get("n_diverged", 0) > 0 else r["mean"])


def baseline_rows(baselines: pd.DataFrame | None, cols: Sequence[dict], metric: str) -> list[list[str]]:
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
                else fmt_ci(float(r.iloc[0]["mean"]), float(r.iloc[0]["ci95_low"]), float(r.iloc[0]["ci95_high"]))
                + (f" (n {int(n)})" if n is not None and pd.notna(n) else "")
            )
        kind = g["kind"].iloc[0] if "kind" in g and pd.notna(g["kind"].iloc[0]) else ""
        what = {
            "regressor": "standard regressor, fitted on the train split" + (f", seed {g['seeds'].iloc[0]}" if "seeds" in g else ""),
            "oracle": "ORACLE: reads the truth",
        }.get(kind, "no training")
        rows.append([f"*{name}* ({what}; {g['interval'].iloc[0]})", *cells])
    return rows


def paired_md(paired: pd.DataFrame) -> str:
    rows = []
    for _, r in paired.iterrows():
        ratio = fmt_ci(r["ratio"], r["ratio_low"], r["ratio_high"])
        side = "lower" if r["ratio"] < 1 else "higher"
        verdict = f"**yes**, {side}" if r["significant"] else "no"
        holm = f"**yes**, {side}" if r["survives_holm"] else "no"
        n = f"{int(r['n_records'])} × {int(r['n_seeds'])}"
        rows.append([r["model"], r["column"], ratio, n, g(r["p"]), g(r["p_holm"]), verdict, holm])
    return md_table(
        ["model", "cell", "MSE ratio to reference [95 % CI]", "n records × seeds", "p", "p (Holm)", "significant alone", "survives Holm"],
        rows,
    )
