"""Which (table, seed) the product's selector gives a line (``scinum.fill.line.Line.fit`` on the
training rows, as ``scinum.Regressor(line="auto").fit`` calls it; no network is trained), with its
summed squared errors on the held-out edges.

    python experiments/tables-linear-baseline/choices.py OUT.csv TABLE ... [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from recipes import tables_by_range as tbr  # noqa: E402
from scinum.fill.line import Line, edge_errors  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("tables", nargs="+")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args()
    rows = []
    for name in args.tables:
        X, y = tbr.load(name)
        for seed in args.seeds:
            tr = tbr.splits(X, name, seed)["train"]
            records = [
                {**{str(c): float(v) for c, v in row.items()}, "y": float(t)} for row, t in zip(X.iloc[tr].to_dict("records"), y.iloc[tr])
            ]
            line = Line.fit(records, ["y"])
            sums = edge_errors(X.iloc[tr].to_numpy(np.float64), y.iloc[tr].to_numpy(np.float64))
            rows.append(dict(table=name, seed=seed, line_sse=sums[0], trees_sse=sums[1], held=sums[2], line=bool(line.used[0])))
            print(name, seed, "line" if rows[-1]["line"] else "network", file=sys.stderr)
    pd.DataFrame(rows).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
