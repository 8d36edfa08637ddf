"""The table of tables-fresh-r's README from ``scores.jsonl`` (run.py's lines): per table and
split, ``scinum.Regressor``'s mean MSE over the seeds ÷ the better of least squares' and boosted
trees' means, the issue's counts, and the fit times.

    python experiments/tables-fresh-r/summary.py
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
SPLITS = ("inside", "past")
STANDARD = ("least squares", "boosted trees")
#: the issue's bounds: within 1.5x counts, worse than 3x is named
WITHIN, WORSE = 1.5, 3.0


def ratios(frame: pd.DataFrame) -> pd.DataFrame:
    """[table × split]: scinum's mean MSE over the seeds ÷ the better standard model's."""
    mean = frame.groupby(["table", "split", "model"])["mse"].mean().unstack("model")
    return (mean["scinum.Regressor"] / mean[list(STANDARD)].min(axis=1)).unstack("split")[list(SPLITS)]


def main() -> None:
    frame = pd.DataFrame([json.loads(line) for line in (HERE / "scores.jsonl").read_text().splitlines() if line.strip()])
    order = list(runpy.run_path(str(HERE / "run.py"), run_name="summary")["TABLES"])
    r = ratios(frame).reindex([t for t in order if t in set(frame.table)])
    fits = frame[frame.model == "scinum.Regressor"].drop_duplicates(["table", "seed"]).set_index("table")
    seeds = sorted(set(frame.seed))
    print(f"scinum.Regressor's mean MSE over seeds {seeds} ÷ the better of least squares and boosted trees (named)\n")
    print("| table | rows | held out | inside | past the range | fit, CPU s |")
    print("|---|---|---|---|---|---|")
    mean = frame.groupby(["table", "split", "model"])["mse"].mean()
    for table in r.index:
        cells = []
        for split in SPLITS:
            better = min(STANDARD, key=lambda m: mean[table, split, m])
            cells.append(f"{r.loc[table, split]:.2f}× ({'trees' if better == 'boosted trees' else 'OLS'})")
        s = fits.loc[[table], "fit_s"]
        head = frame[frame.table == table].iloc[0]
        print(f"| {table} | {head['rows']} | {head['held_out']} | {cells[0]} | {cells[1]} | {s.min():.1f}–{s.max():.1f} |")
    n = len(r)
    print()
    for split in SPLITS:
        within = int((r[split] <= WITHIN).sum())
        worse = ", ".join(f"{t} {v:.2f}×" for t, v in r[split].items() if v > WORSE) or "none"
        geo = float(np.exp(np.log(r[split]).mean()))
        print(f"{split}: within {WITHIN}× on {within} of {n} ({within / n:.0%}); worse than {WORSE}×: {worse}; geometric mean {geo:.3f}")
    s = fits["fit_s"]
    print(f"fit: median {s.median():.1f} CPU s, {s.min():.1f}–{s.max():.1f} ({len(s)} fits, one thread)")


if __name__ == "__main__":
    main()
