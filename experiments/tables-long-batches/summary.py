"""The tables of tables-long-batches' README: on the development tables, ``long-batches`` ÷
today's default per table and split with the adoption rule's clauses (the default read from
tables-large-budget's fits); on the test tables, each model's mean MSE ÷ the better of least
squares and boosted trees.

    python experiments/tables-long-batches/summary.py
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
BEFORE = HERE.parent / "tables-large-budget"
#: tables-large-budget's summary: the same table of a candidate against the default
EARLIER = runpy.run_path(str(BEFORE / "summary.py"))
SPLITS = ("inside", "past")
#: the fewest training rows where the candidate applies
MIN_ROWS = 667


def read(path: Path) -> pd.DataFrame | None:
    """JSON lines (None where the file is absent)."""
    if not path.is_file():
        return None
    return pd.DataFrame([json.loads(line) for line in path.read_text().splitlines() if line.strip()])


def applies(row) -> bool:
    """Whether the candidate trains this fit: every target's rows bend, enough training rows."""
    return bool(all(row.bends)) and row.n_train >= MIN_ROWS


def today(before_dev: pd.DataFrame, before_test: pd.DataFrame, bends: pd.DataFrame) -> pd.DataFrame:
    """Today's default on the development tables: tables-large-budget's ``grow`` fit where the
    rows bend, its ``default`` fit elsewhere (its grow-bends)."""
    bent = {(r.table, r.seed): all(r.bends) for r in bends.itertuples()}
    for r in before_test[before_test.model == "default"].itertuples():
        bent[(r.table, r.seed)] = all(r.bends)
    rows = pd.concat([before_dev, before_test], ignore_index=True)
    pick = rows.apply(lambda r: r.model == ("grow" if bent[(r.table, r.seed)] else "default"), axis=1)
    return rows[pick].assign(model="default")


#: the candidates in the order declared, and the fewer-record one each falls back to
CANDIDATES = {"long-batches": None, "long-batches-80k": "long-batches"}
#: the records cap of each candidate (None: none)
CAPS = {"long-batches": None, "long-batches-80k": 80000}


def fits_of(dev: pd.DataFrame, name: str) -> pd.DataFrame:
    """The candidate ``name``'s development fits: its own lines, and where it has none for a
    (table, seed), the fallback candidate's, which it trains alike (fewer records than its cap)."""
    own = dev[dev.model == name]
    back = CANDIDATES[name]
    if back is None:
        return own
    done = set(zip(own.table, own.seed))
    other = dev[(dev.model == back).to_numpy() & np.array([(t, s) not in done for t, s in zip(dev.table, dev.seed)])]
    assert (other.samples <= CAPS[name]).all(), "a fallback fit saw more records than the cap"
    return pd.concat([own, other.assign(model=name)], ignore_index=True)


def development(name: str) -> tuple[str, bool] | None:
    """Markdown of candidate ``name`` ÷ default per table and split, the clauses, whether all hold."""
    dev = read(HERE / "dev.jsonl")
    if dev is None or name not in set(dev.model):
        return None
    base = today(read(BEFORE / "dev.jsonl"), read(BEFORE / "test.jsonl"), read(BEFORE / "dev-bends.jsonl"))
    cand = fits_of(dev, name)
    assert cand.apply(applies, axis=1).all(), "every development fit the candidate ran applies to it"
    done = set(zip(cand.table, cand.seed))
    candidate = pd.concat([cand, base[[(t, s) not in done for t, s in zip(base.table, base.seed)]].assign(model=name)])
    lines, ratio, geo, worst = EARLIER["against_default"](pd.concat([base, candidate], ignore_index=True), name)
    fits = cand.drop_duplicates(["table", "seed"])
    big = fits[fits.n_train >= 5000]  # the 10,000-row tables (topobathy: 10,920)
    slowest = float(big.fit_s.max())
    means = f"past {geo['past']:.3f}, inside {geo['inside']:.3f}"
    clauses = {
        f"1. geometric mean {name} ÷ default over {len(ratio)} tables: {means} (each <= 1.00)": max(geo.values()) <= 1,
        f"2. worst table: past {worst['past']:.2f}x, inside {worst['inside']:.2f}x (each <= 1.5)": max(worst.values()) <= 1.5,
        f"3. slowest fit of a 10,000-row table under {name}: {slowest:.1f} CPU s (<= 60)": slowest <= 60,
    }
    lines += ["", *(f"- {text}: {'holds' if ok else 'fails'}" for text, ok in clauses.items())]
    return "\n".join(lines), all(clauses.values())


def large(name: str) -> str:
    """Markdown: on tables-large-budget's five tables, the candidate ``name``'s and the default's
    mean MSE ÷ the better of least squares and boosted trees (their fits there), and the counts."""
    dev = fits_of(read(HERE / "dev.jsonl"), name)
    before = read(BEFORE / "test.jsonl")
    base = today(read(BEFORE / "dev.jsonl"), before, read(BEFORE / "dev-bends.jsonl"))
    standard = before[before.model.isin(["least squares", "boosted trees"])]
    rows = pd.concat([dev[dev.table.isin(set(before.table))], base[base.table.isin(set(before.table))], standard], ignore_index=True)
    mean = rows.groupby(["table", "model", "split"])["mse"].mean().unstack("model")
    best = mean[["least squares", "boosted trees"]].min(axis=1)
    ratio = {m: (mean[m] / best).unstack("split") for m in ("default", name)}
    lines = [f"| table | default inside | {name} inside | default past | {name} past |", "|---|---|---|---|---|"]
    for table in ratio[name].index:
        r = [f"{ratio[m].loc[table, s]:.2f}" for s in SPLITS for m in ("default", name)]
        lines.append(f"| {table} | {r[0]} | {r[1]} | {r[2]} | {r[3]} |")
    lines.append("")
    for m in ("default", name):
        text = "; ".join(f"{s}: {(ratio[m][s] <= 1.5).sum()} of 5 within 1.5×, {(ratio[m][s] <= 3).sum()} within 3×" for s in SPLITS)
        lines.append(f"- {m}: {text}")
    return "\n".join(lines)


def test(name: str) -> str | None:
    """Markdown of each model's mean MSE ÷ the better standard model per table and split, the
    candidate ``name`` where it applies, the default elsewhere."""
    frame = read(HERE / "test.jsonl")
    if frame is None or frame.empty:
        return None
    fits = frame[frame.model == name].drop_duplicates(["table", "seed"])
    use = {(r.table, r.seed): applies(r) for r in fits.itertuples()}
    pick = frame.apply(lambda r: r.model == (name if use[(r.table, r.seed)] else "default"), axis=1)
    adopted = frame[pick & frame.model.isin(["default", name])].assign(model="candidate")
    frame = pd.concat([frame, adopted], ignore_index=True)
    mean = frame.groupby(["table", "model", "split"])["mse"].mean().unstack("model")
    best = mean[["least squares", "boosted trees"]].min(axis=1)
    lines = [
        f"The candidate applies in {sum(use.values())} of the {len(use)} test fits.",
        "",
        "| table | split | default | candidate | least squares | boosted trees | fit CPU s (median): default → candidate |",
        "|---|---|---|---|---|---|---|",
    ]
    counts = {(m, s): [0, 0, 0] for m in ("default", "candidate") for s in SPLITS}
    for (table, split), row in mean.iterrows():
        r = {m: row[m] / best[(table, split)] for m in ("default", "candidate", "least squares", "boosted trees")}
        sec = {
            m: float(frame[(frame.table == table) & (frame.model == m)].drop_duplicates("seed").fit_s.median())
            for m in ("default", "candidate")
        }
        for m in ("default", "candidate"):
            counts[(m, split)][0] += r[m] <= 1.5
            counts[(m, split)][1] += r[m] <= 3
            counts[(m, split)][2] += 1
        lines.append(
            f"| {table} | {split} | {r['default']:.2f} | {r['candidate']:.2f} | {r['least squares']:.2f} | {r['boosted trees']:.2f} "
            f"| {sec['default']:.1f} → {sec['candidate']:.1f} |"
        )
    lines.append("")
    for m in ("default", "candidate"):
        text = "; ".join(f"{s}: {counts[(m, s)][0]} of {counts[(m, s)][2]} within 1.5×, {counts[(m, s)][1]} within 3×" for s in SPLITS)
        lines.append(f"- {m}: {text}")
    return "\n".join(lines)


def main() -> None:
    adopted = None
    for name in CANDIDATES:
        dev = development(name)
        if dev is not None:
            print(f"## Development tables: {name} ÷ today's default, mean MSE over seeds\n")
            print(dev[0])
            print(f"\nadopt {name}: {'yes' if dev[1] else 'no'}\n")
            adopted = name if dev[1] else adopted
    if adopted:
        print(f"## The five large development tables, {adopted} against the standard models: mean MSE ÷ the better one\n")
        print(large(adopted) + "\n")
    tst = test(adopted) if adopted else None
    if tst is not None:
        print(f"## Test tables (seeds 0–2), the candidate {adopted}: mean MSE ÷ the better of least squares and boosted trees\n")
        print(tst)


if __name__ == "__main__":
    main()
