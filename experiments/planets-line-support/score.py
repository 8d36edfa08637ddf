"""Scores planets-line-dt-a1's checkpoints with and without their lines' bound (README), each
with ``scinum evaluate --limit 200 --no-baselines`` on test, ood_a1 and ood_stepsize, and prints
the table: per build and variant, the mean over seeds of a₁'s and Δt's MSE and 95 % coverage on
each split, and how many of their numbers the bound moved (the two variants' predictions differ).

    python experiments/planets-line-support/score.py [--runs runs] [--out experiments/planets-line-support]

Reads ``RUNS/dta1-cap`` and ``RUNS/dta1-test`` (the original runs) and ``RUNS/line-support/{dev,test}``
(``with_support.py``'s copies); evaluations go to ``RUNS/line-support/eval``. Writes ``OUT/scores.csv``
(every seed) and ``OUT/table.md``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pandas as pd

BUILDS = {"dev": ("dta1-cap", "build seed 0 (development)"), "test": ("dta1-test", "build seed 3141 (test)")}
LABEL = "xval+gmm, values alone, dt and a1 on a line"
FIELDS = {"description.planet0.a": "a₁", "description.stepsize": "Δt"}
SPLITS = ("test", "ood_a1", "ood_stepsize")


def evaluate(ckpt: Path, data: Path, out: Path) -> None:
    if (out / "table.csv").exists():
        return
    words = ["evaluate", "--ckpt", str(ckpt), "--data", str(data), "--out", str(out), "--labels", LABEL, "--limit", "200"]
    code = "import sys; from scinum.cli.main import main; sys.argv = ['scinum', *sys.argv[1:]]; sys.exit(main())"
    done = subprocess.run([sys.executable, "-c", code, *words, "--no-baselines"], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"scinum evaluate {ckpt}: exit {done.returncode}\n{done.stderr[-2000:]}")


def scores(runs: Path) -> pd.DataFrame:
    rows = []
    for build, (work, _) in BUILDS.items():
        data = runs / work / "data"
        for ckpt in sorted((runs / work / "models" / LABEL).glob("seed*/model.ckpt")):
            seed = ckpt.parent.name
            variants = {"without the bound": ckpt, "with the bound": runs / "line-support" / build / LABEL / seed / "model.ckpt"}
            preds = {}
            for variant, path in variants.items():
                out = runs / "line-support" / "eval" / build / variant.replace(" ", "-") / seed
                evaluate(path, data, out)
                ev = pd.read_csv(out / "table.csv")
                preds[variant] = pd.read_csv(out / "predictions.csv").set_index(["field", "split", "record"])["pred"]
                for (field, split), g in ev[(ev.subset == "all") & ev.field.isin(list(FIELDS)) & ev.split.isin(SPLITS)].groupby(
                    ["field", "split"]
                ):
                    rows.append(
                        dict(
                            build=build,
                            variant=variant,
                            seed=int(seed[4:]),
                            field=field,
                            split=split,
                            mse=float(g.mse.iloc[0]),
                            coverage95=float(g.coverage95.iloc[0]),
                        )
                    )
            moved = preds["with the bound"] != preds["without the bound"]
            for row in rows:
                if row["build"] == build and row["seed"] == int(seed[4:]):
                    row["held"] = int(moved.loc[(row["field"], row["split"])].sum())
    return pd.DataFrame(rows)


def table(frame: pd.DataFrame) -> str:
    lines = []
    for build, (_, title) in BUILDS.items():
        part = frame[frame.build == build]
        seeds = sorted(part.seed.unique())
        lines += [
            f"**{title}**, seeds {', '.join(map(str, seeds))} "
            "(mean; MSE, then the 95 % interval's coverage; held: numbers the bound moved, all seeds)",
            "",
        ]
        head = "| variant | " + " | ".join(f"{FIELDS[f]} {s}" for f in FIELDS for s in SPLITS) + " |"
        lines += [head, "|---" * (1 + len(FIELDS) * len(SPLITS)) + "|"]
        for variant in ("without the bound", "with the bound"):
            cells = []
            for f in FIELDS:
                for s in SPLITS:
                    g = part[(part.variant == variant) & (part.field == f) & (part.split == s)]
                    held = f", held {int(g.held.sum())}" if variant == "with the bound" else ""
                    cells.append(f"{g.mse.mean():.3g} ({g.coverage95.mean():.3f}{held})")
            lines.append(f"| {variant} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=Path, default=Path("runs"))
    p.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    a = p.parse_args()
    frame = scores(a.runs)
    frame.to_csv(a.out / "scores.csv", index=False)
    text = table(frame)
    (a.out / "table.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
