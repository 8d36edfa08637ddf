"""The tables of tables-large-budget's README from ``dev.jsonl`` and ``test.jsonl`` (run.py's
lines): on the development tables, ``grow`` ÷ ``default`` per table and split with the adoption
rule's clauses; on the test tables (where run), each candidate's mean MSE ÷ the better of least
squares and boosted trees, and the fit times.

    python experiments/tables-large-budget/summary.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
SPLITS = ("inside", "past")
CANDIDATES = ("default", "grow", "grow-bends")


def read(name: str) -> pd.DataFrame | None:
    """The JSON lines of ``name`` (None where the file is absent)."""
    path = HERE / name
    if not path.is_file():
        return None
    return pd.DataFrame([json.loads(line) for line in path.read_text().splitlines() if line.strip()])


def with_grow_bends(frame: pd.DataFrame, bends: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the rows of ``grow-bends``: per (table, seed), ``grow``'s where every
    target's rows bend clearly (``bends``: one row per table and seed), ``default``'s elsewhere."""
    bent = {(r.table, r.seed): all(r.bends) for r in bends.itertuples()}
    pick = frame.apply(lambda r: r.model == ("grow" if bent[(r.table, r.seed)] else "default"), axis=1)
    return pd.concat([frame, frame[pick].assign(model="grow-bends")], ignore_index=True)


def against_default(frame: pd.DataFrame, candidate: str) -> tuple[list[str], pd.DataFrame, dict, dict]:
    """``(lines, ratio, geo, worst)``: the Markdown rows of ``candidate`` ÷ ``default`` per table
    and split (mean MSE over seeds), the ratios [table × split], and per split their geometric
    mean and their largest."""
    mean = frame.groupby(["table", "model", "split"])["mse"].mean().unstack("model")
    ratio = (mean[candidate] / mean["default"]).unstack("split")
    head = f"| table | default inside | {candidate} inside | ratio | default past | {candidate} past | ratio |"
    lines = [head, "|---|---|---|---|---|---|---|"]
    for table in ratio.index:
        cells = []
        for split in SPLITS:
            m = mean.loc[(table, split)]
            cells += [f"{m['default']:.4g}", f"{m[candidate]:.4g}", f"{ratio.loc[table, split]:.2f}"]
        lines.append(f"| {table} | " + " | ".join(cells) + " |")
    geo = {s: float(np.exp(np.log(ratio[s]).mean())) for s in SPLITS}
    worst = {s: float(ratio[s].max()) for s in SPLITS}
    return lines, ratio, geo, worst


def development(frame: pd.DataFrame, candidate: str) -> tuple[str, bool]:
    """Markdown of ``candidate`` ÷ default per table and split, the clauses, and whether all hold."""
    lines, ratio, geo, worst = against_default(frame, candidate)
    big = frame[(frame.model == candidate) & frame.table.str.endswith("10000")].drop_duplicates(["table", "seed"])
    slowest = float(big["fit_s"].max()) if len(big) else float("nan")
    means = f"past {geo['past']:.3f}, inside {geo['inside']:.3f}"
    clauses = {
        f"1. geometric mean {candidate} ÷ default: {means} (each <= 1.00)": geo["past"] <= 1 and geo["inside"] <= 1,
        f"2. worst table: past {worst['past']:.2f}x, inside {worst['inside']:.2f}x (each <= 1.5)": max(worst.values()) <= 1.5,
        f"3. slowest 10,000-row fit under {candidate}: {slowest:.1f} CPU s (<= 60)": slowest <= 60,
    }
    lines.append("")
    lines += [f"- {text}: {'holds' if ok else 'fails'}" for text, ok in clauses.items()]
    return "\n".join(lines), all(clauses.values())


def test(frame: pd.DataFrame) -> str:
    """Markdown of each candidate's mean MSE ÷ the better standard model per table and split,
    the counts within 1.5× and 3×, and the fit seconds."""
    mean = frame.groupby(["table", "model", "split"])["mse"].mean().unstack("model")
    best = mean[["least squares", "boosted trees"]].min(axis=1)
    lines = [
        "| table | split | default | grow | grow-bends | least squares | boosted trees | records: default → grow-bends "
        "| fit CPU s (median): default → grow-bends |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    counts = {(c, s): [0, 0, 0] for c in CANDIDATES for s in SPLITS}
    for (table, split), row in mean.iterrows():
        scin = frame[(frame.table == table) & frame.model.isin(CANDIDATES)].drop_duplicates(["model", "seed"])
        rec = {c: int(scin[scin.model == c]["samples"].median()) for c in CANDIDATES}
        sec = {c: float(scin[scin.model == c]["fit_s"].median()) for c in CANDIDATES}
        r = {c: row[c] / best[(table, split)] for c in CANDIDATES}
        for c in CANDIDATES:
            counts[(c, split)][0] += r[c] <= 1.5
            counts[(c, split)][1] += r[c] <= 3
            counts[(c, split)][2] += 1
        lines.append(
            f"| {table} | {split} | {r['default']:.2f} | {r['grow']:.2f} | {r['grow-bends']:.2f} | "
            f"{row['least squares'] / best[(table, split)]:.2f} | {row['boosted trees'] / best[(table, split)]:.2f} | "
            f"{rec['default']:,} → {rec['grow-bends']:,} | {sec['default']:.1f} → {sec['grow-bends']:.1f} |"
        )
    lines.append("")
    for c in CANDIDATES:
        text = "; ".join(f"{s}: {counts[(c, s)][0]} of {counts[(c, s)][2]} within 1.5×, {counts[(c, s)][1]} within 3×" for s in SPLITS)
        lines.append(f"- {c}: {text}")
    return "\n".join(lines)


def main() -> None:
    dev, bends = read("dev.jsonl"), read("dev-bends.jsonl")
    if dev is not None:
        seeds = sorted(dev.seed.unique())
        if bends is not None:
            dev = with_grow_bends(dev, bends)
        for candidate in ("grow", "grow-bends") if bends is not None else ("grow",):
            text, adopted = development(dev, candidate)
            print(f"## {candidate} on the development tables (seeds {', '.join(map(str, seeds))}): MSE against the noise-free truth\n")
            print(text)
            print(f"\nadopt {candidate}: {'yes' if adopted else 'no'}\n")
    tst = read("test.jsonl")
    if tst is not None:
        fitted = tst[tst.model == "default"].drop_duplicates(["table", "seed"])[["table", "seed", "bends"]]
        tst = with_grow_bends(tst, fitted)
        bent = sum(all(b) for b in fitted.bends)
        print(f"\nThe rows bend clearly in {bent} of the {len(fitted)} test fits (grow-bends = grow there, default elsewhere).")
        seeds = sorted(tst.seed.unique())
        print(f"\n## Test tables (seeds {', '.join(map(str, seeds))}): mean MSE ÷ the better of least squares and boosted trees\n")
        print(test(tst))


if __name__ == "__main__":
    main()
