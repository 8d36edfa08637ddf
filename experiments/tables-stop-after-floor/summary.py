"""The tables of tables-stop-after-floor's README from ``dev.jsonl``, ``test.jsonl`` and
``fresh.jsonl`` (run.py's lines): per table and split, ``default``'s and ``candidate``'s mean MSE
over the seeds ÷ the better of least squares and boosted trees; the rule's clauses on the
development tables; the fits early stopping ended before step 625.

    python experiments/tables-stop-after-floor/summary.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
SPLITS = ("inside", "past")
STANDARD = ("least squares", "boosted trees")
MODELS = ("default", "candidate")
FLOOR = 625


def lines(path: Path) -> pd.DataFrame:
    return pd.DataFrame([json.loads(line) for line in path.read_text().splitlines() if line.strip()])


def read(kind: str) -> pd.DataFrame | None:
    """``<kind>.jsonl``'s lines (None where it is absent). The fresh tables' ``default`` rows are
    tables-fresh-r's ``scinum.Regressor`` fits (run.py ``candidate`` ran the candidate alone there)."""
    path = HERE / f"{kind}.jsonl"
    if not path.is_file():
        return None
    frame = lines(path)
    if kind == "fresh" and "default" not in set(frame.model):
        blind = lines(HERE.parent / "tables-fresh-r" / "scores.jsonl")
        blind = blind[blind.model == "scinum.Regressor"].assign(model="default", kind="fresh")
        frame = pd.concat([frame, blind], ignore_index=True)
    return frame


def ratios(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Model -> [table × split]: its mean MSE over the seeds ÷ the better standard model's."""
    mean = frame.groupby(["table", "split", "model"])["mse"].mean().unstack("model")
    better = mean[list(STANDARD)].min(axis=1)
    order = list(dict.fromkeys(frame["table"]))
    return {m: (mean[m] / better).unstack("split").reindex(order)[list(SPLITS)] for m in MODELS}


def clauses(r: dict[str, pd.DataFrame], fits: pd.DataFrame) -> dict[str, float]:
    """The rule's figures: geometric means and counts within 1.5x per model and split, median fit
    seconds per model."""
    out: dict[str, float] = {}
    for m in MODELS:
        for s in SPLITS:
            out[f"{m} {s} geomean"] = float(np.exp(np.log(r[m][s]).mean()))
            out[f"{m} {s} within 1.5"] = int((r[m][s] <= 1.5).sum())
        out[f"{m} median fit s"] = float(fits[fits.model == m]["fit_s"].median())
    return out


def report(kind: str, frame: pd.DataFrame) -> bool:
    r = ratios(frame)
    fits = frame[frame.model.isin(MODELS)].drop_duplicates(["table", "seed", "model"])
    seeds = sorted(set(frame.seed))
    print(f"## {kind}: mean MSE over seeds {seeds} ÷ the better of least squares and boosted trees\n")
    print("| table | default inside | candidate inside | default past | candidate past |")
    print("|---|---|---|---|---|")
    for t in r["default"].index:
        cells = [f"{r[m].loc[t, s]:.2f}×" for s in SPLITS for m in MODELS]
        print(f"| {t} | {cells[0]} | {cells[1]} | {cells[2]} | {cells[3]} |")
    c = clauses(r, fits)
    n = len(r["default"])
    print()
    for s in SPLITS:
        worse = {m: ", ".join(f"{t} {v:.2f}×" for t, v in r[m][s].items() if v > 3) or "none" for m in MODELS}
        print(
            f"{s}: geometric mean {c[f'default {s} geomean']:.3f} → {c[f'candidate {s} geomean']:.3f}; within 1.5×: "
            f"{c[f'default {s} within 1.5']} → {c[f'candidate {s} within 1.5']} of {n}; "
            f"worse than 3×: {worse['default']} → {worse['candidate']}"
        )
    print(f"median fit: {c['default median fit s']:.1f} → {c['candidate median fit s']:.1f} CPU s")
    if "stopped_early" in fits and fits[fits.model == "default"]["stopped_early"].notna().any():
        early = fits[(fits.model == "default") & (fits.stopped_early == True) & (fits.last_step < FLOOR)]  # noqa: E712
        listed = ", ".join(
            f"{r.table} seed {r.seed} (kept step {r.best_step:.0f}, stopped at {r.last_step:.0f})" for r in early.itertuples()
        )
        print(f"default fits early stopping ended before step {FLOOR}: {len(early)} of {len(fits) // 2}: {listed or 'none'}")
    holds = (
        all(c[f"candidate {s} geomean"] <= 1.02 * c[f"default {s} geomean"] for s in SPLITS)
        and all(c[f"candidate {s} within 1.5"] >= c[f"default {s} within 1.5"] for s in SPLITS)
        and c["candidate median fit s"] <= 1.3 * c["default median fit s"]
    )
    if kind == "dev":
        print(f"the rule's clauses: {'all hold' if holds else 'not all hold'}")
    print()
    return holds


def main() -> None:
    for kind in ("dev", "test", "fresh"):
        frame = read(kind)
        if frame is not None:
            report(kind, frame)


if __name__ == "__main__":
    main()
