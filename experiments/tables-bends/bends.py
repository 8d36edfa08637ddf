"""Where ``scinum.fill.line.bends_clearly`` fires on the training rows of each table and seed
(``recipes/tables_by_range.py``'s ``splits``), as ``scinum.Regressor.fit`` reads them.

    python experiments/tables-bends/bends.py dev > experiments/tables-bends/dev-bends.txt
    python experiments/tables-bends/bends.py test > experiments/tables-bends/test-bends.txt
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "recipes"))
import tables_by_range as tbr  # noqa: E402

import scinum  # noqa: E402
from scinum.fill.line import bends_clearly  # noqa: E402


def main(which: str) -> None:
    names, seeds = (tbr.DEVELOPMENT, (0, 1)) if which == "dev" else (tuple(tbr.TEST_TABLES), (0, 1, 2))
    print("table seed bends")
    for name in names:
        X, y = tbr.load(name)
        for seed in seeds:
            train = tbr.splits(X, name, seed)["train"]
            reg = scinum.Regressor(seed=seed)
            records, _ = reg._rows(X.iloc[train], reset=True)
            paths = reg._add_y(records, y.iloc[train])
            print(name, seed, bool(bends_clearly(records, paths).all()), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
