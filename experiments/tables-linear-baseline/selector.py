"""The selector of the README's second question, and its reading on the development fits.

``edge_errors(X, y)``: on a table's training rows, how well a least-squares line and boosted
trees predict the table's own edges, the line taken where its sum is the lower (README: each
numeric input's rows above its 0.9 quantile, then below its 0.1 quantile, held out in turn; the
squared errors summed).

    python experiments/tables-linear-baseline/selector.py OUT_DIR DEFAULT_SCORES.csv ...

reads this folder's ``dev/scores.csv`` (the line's fits) and the default's scores (a later file's
tables replacing an earlier's), and writes ``OUT_DIR/choices.csv`` (per table and seed: the
selector's sums and choice), ``OUT_DIR/scores.csv`` (the selected rows) and ``OUT_DIR/summary.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: the selected rows' labels: the line's fit read past the range as ``evaluate.py``'s two readings
READINGS = {"selected, network": "line + network", "selected, held at the edge": "line + network held at the edge"}
DEFAULT = "scinum.Regressor"


def edge_errors(X: pd.DataFrame, y: pd.Series) -> tuple[float, float, int]:
    """``(line, trees, rows)``: the squared errors of OLS and of boosted trees summed over every
    held-out edge row (README), and how many rows were held out in all: the rule as the product
    runs it (``scinum.fill.line.edge_errors``, the same computation this script first ran)."""
    from scinum.fill.line import edge_errors as product_edge_errors

    return product_edge_errors(X.to_numpy(np.float64), y.to_numpy(np.float64))


def main(out: Path, defaults: list[Path]) -> None:
    from recipes import tables_by_range as tbr

    evaluate = _evaluate()
    own = pd.read_csv(HERE / "dev" / "scores.csv")
    default = evaluate.default_scores(defaults)
    choices = []
    for (name, seed), _ in own.groupby(["table", "seed"]):
        X, y = tbr.load(name)
        idx = tbr.splits(X, name, int(seed))
        line, trees, held = edge_errors(X.iloc[idx["train"]], y.iloc[idx["train"]])
        choices.append(dict(table=name, seed=seed, line_sse=line, trees_sse=trees, held=held, line=held > 0 and line < trees))
        print(name, seed, "line" if choices[-1]["line"] else "network", file=sys.stderr)
    chosen = pd.DataFrame(choices)
    rows = [default, own[own.model.isin(["linear (OLS)", "boosted trees"])]]
    for label, reading in READINGS.items():
        for c in chosen.itertuples():
            source = own[own.model == reading] if c.line else default
            pick = source[(source.table == c.table) & (source.seed == c.seed)].copy()
            pick["model"] = label
            rows.append(pick)
    frame = pd.concat(rows)
    frame = frame[[k in set(zip(chosen.table, chosen.seed)) for k in zip(frame.table, frame.seed)]]
    out.mkdir(parents=True, exist_ok=True)
    chosen.to_csv(out / "choices.csv", index=False)
    frame.to_csv(out / "scores.csv", index=False)
    columns = [DEFAULT, *READINGS]
    stats = {c: evaluate.counts(frame, c) for c in columns}
    lines = [f"| {len(set(frame.table))} tables, seeds {sorted(set(frame.seed))} | " + " | ".join(columns) + " |"]
    lines.append("|---|" + "---|" * len(columns))
    for key in stats[DEFAULT]:
        lines.append(f"| {key} | " + " | ".join(stats[c][key] for c in columns) + " |")
    picked = chosen[chosen.line]
    lines.append("")
    lines.append(
        f"The line taken on {len(picked)} of {len(chosen)} (table, seed): "
        + ", ".join(f"{t} {s}" for t, s in zip(picked.table, picked.seed))
    )
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def _evaluate():
    import importlib.util

    spec = importlib.util.spec_from_file_location("tables_linear_baseline_evaluate", HERE / "evaluate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    main(Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]])
