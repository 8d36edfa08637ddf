"""Score every fit ``fit_save.py`` saved under each rule, on its held-out splits, as the product
predicts (``extrapolation="auto"``, intervals included), beside OLS and boosted trees fitted on the
same training rows (``experiments/tables-past-range/evaluate.py``'s scoring):

- ``held``: the fit as saved: its line held at an input's edge where its own edges said so
  (``scinum.fill.line.held_edges``);
- ``trend``: the same fit with no input held (``line_.held`` cleared): the rule before.

    python experiments/tables-trend-or-edge/evaluate.py MODELS_DIR OUT_DIR

Writes ``OUT_DIR/{held,trend}/{scores.csv,table.md,fit-times.json}`` and ``OUT_DIR/holds.csv``
(which inputs each fit's line holds, per side).
"""

import importlib.util
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]


def _scorer():
    spec = importlib.util.spec_from_file_location("past_range_evaluate", ROOT / "experiments" / "tables-past-range" / "evaluate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.MODES = {"scinum.Regressor": "auto"}
    return module


def main(models: Path, out: Path) -> None:
    scorer = _scorer()
    saved = scorer.saved_fits
    holds = []

    def cleared(models_dir):
        for name, seed, X, y, idx, reg in saved(models_dir):
            if reg.line_ is not None:
                reg.line_.held[:] = False
            yield name, seed, X, y, idx, reg

    def listed(models_dir):
        for name, seed, X, y, idx, reg in saved(models_dir):
            line = reg.line_
            for k, key in enumerate(line.inputs if line is not None else []):
                for side, label in enumerate(("top", "bottom")):
                    holds.append(dict(table=name, seed=seed, input=key, side=label, held=bool(line.held[0, k, side])))
            yield name, seed, X, y, idx, reg

    scorer.saved_fits = listed
    scorer.main(models, out / "held")
    scorer.saved_fits = cleared
    scorer.main(models, out / "trend")
    pd.DataFrame(holds, columns=["table", "seed", "input", "side", "held"]).to_csv(out / "holds.csv", index=False)


if __name__ == "__main__":
    main(Path(sys.argv[1]) / "default", Path(sys.argv[2]))
