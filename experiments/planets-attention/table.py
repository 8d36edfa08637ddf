"""The table of experiments/parity.md's *Why a seed learns e₁*: for each run, e₁'s test R² (from its
published evaluation) beside the largest share of one head's attention that the hidden e₁ gives
planet 0's first three positions (``data[0..2][0][0..1]``), from ``scinum attention`` of that run's
model (the CSVs here). ``python experiments/planets-attention/table.py`` prints it."""

from __future__ import annotations

import csv
from pathlib import Path

HERE = Path(__file__).parent
RESULTS = HERE.parent
FIRST = {f"data[{t}][0][{c}]" for t in range(3) for c in range(2)}
#: model label in compare-b64-30min -> the folder here
MODELS = {"xval": "xval", "fone": "fone", "bittokens-tuned(16bit,binade,mean,mse30)": "bittokens-tuned", "xval+gmm(mse1)": "xval+gmm"}


def largest_share(path: Path, paths: set[str] = FIRST) -> tuple[float, int, int]:
    """(share, layer, head): the head giving ``paths`` the most of its attention."""
    totals: dict[tuple[int, int], float] = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["path"] in paths:
                key = (int(row["layer"]), int(row["head"]))
                totals[key] = totals.get(key, 0.0) + float(row["share"])
    (layer, head), share = max(totals.items(), key=lambda kv: kv[1])
    return share, layer, head


def e1_r2() -> dict[tuple[str, int], float]:
    """e₁ test R² of every run: compare-b64-30min's seeds 0-2, the weight-average runs' seeds 3, 4
    (their last weights, ``raw``)."""
    out = {}
    with open(RESULTS / "planets-compare-b64-30min" / "seeds.csv") as f:
        for r in csv.DictReader(f):
            if r["kind"] == "model" and r["field"] == "description.planet0.e" and r["split"] == "test":
                out[(MODELS[r["model"]], int(r["seed"]))] = float(r["r2"])
    for seed in (3, 4):
        with open(RESULTS / "planets-weight-average" / f"seed{seed}" / "table.csv") as f:
            for r in csv.DictReader(f):
                if (r["model"], r["field"], r["split"], r["subset"]) == ("raw", "description.planet0.e", "test", "all"):
                    out[("xval+gmm", seed)] = float(r["r2"])
    return out


def rows() -> list[tuple[str, int, float, float, int, int]]:
    """(model, seed, e₁ R², share, layer, head), in the order of the table."""
    r2 = e1_r2()
    return [
        (m, s, r2[(m, s)], *largest_share(HERE / m / f"seed{s}.csv"))
        for m, s in sorted(r2, key=lambda k: (list(MODELS.values()).index(k[0]), k[1]))
    ]


def markdown() -> str:
    lines = [
        "| model | seed | e₁ test R² | planet 0's first three positions: largest share of one head | that head |",
        "|---|---|---|---|---|",
    ]
    for m, s, r2, share, layer, head in rows():
        lines.append(f"| {m} | {s} | {r2:.3f} | {share:.2f} | layer {layer}, head {head} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown())
