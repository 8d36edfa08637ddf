"""The 12 test tables' figures under the rule: tables-trend-or-edge's published ``held`` scores
(the default before this rule) with the tables where the rule fires (``test-bends.txt``) replaced
by their fits at the rule's commit (``test-sunspots-scores.csv``); per split, each table's mean
MSE over seeds 0-2 over the better of OLS's and the trees', and the share inside the 90 %
interval.

    python experiments/tables-bends/summary.py
"""

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
BEFORE = HERE.parent / "tables-trend-or-edge" / "test" / "held" / "scores.csv"


def ratios(scores: pd.DataFrame) -> pd.DataFrame:
    """Per table and split: scinum's mean MSE over seeds / the better standard model's, and its coverage."""
    mean = scores.groupby(["table", "split", "model"]).mse.mean().unstack("model")
    out = pd.DataFrame({"ratio": mean["scinum.Regressor"] / mean[["linear (OLS)", "boosted trees"]].min(axis=1)})
    out["inside_90"] = scores[scores.model == "scinum.Regressor"].groupby(["table", "split"]).inside_90.mean()
    return out


def main() -> None:
    before = pd.read_csv(BEFORE)
    fired = pd.read_csv(HERE / "test-bends.txt", sep=" ")
    tables = sorted(set(fired[fired.bends].table))
    after = pd.concat([before[~before.table.isin(tables)], pd.read_csv(HERE / "test-sunspots-scores.csv")])
    for label, scores in (("before", before), ("the rule", after)):
        r = ratios(scores)
        for split, name in (("extrap", "above the range"), ("test", "inside the range")):
            s = r.xs(split, level="split")
            worse = ", ".join(f"{t} {v:.2f}x" for t, v in s.ratio.items() if v > 3) or "none"
            print(
                f"{label}, {name}: within 1.5x {int((s.ratio <= 1.5).sum())} of {len(s)}, worse than 3x: {worse}, "
                f"geometric mean {np.exp(np.log(s.ratio).mean()):.3f}, inside 90 % {s.inside_90.mean():.3f}"
            )
        for t in tables:
            cells = []
            for split in ("extrap", "test"):
                cell = r.loc[(t, split)]
                cells.append(f"{split} {cell['ratio']:.3f}x (inside 90 % {cell['inside_90']:.3f})")
            print(f"{label}, {t}: " + ", ".join(cells))


if __name__ == "__main__":
    main()
