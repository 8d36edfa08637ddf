"""Score each candidate's saved fits (``fit_save.py``) on their held-out splits as the product
predicts them (the saved ``extrapolation="auto"``, intervals included), beside OLS and boosted
trees fitted on the same training rows: ``experiments/tables-past-range/evaluate.py``'s scoring
with the product's own past-range rule instead of the modes it compared.

    python experiments/tables-fit-cheaper/evaluate.py MODELS_DIR OUT_DIR [CANDIDATE ...]

Writes ``OUT_DIR/CANDIDATE/{scores.csv,table.md,fit-times.json}`` for each candidate folder of
``MODELS_DIR`` (all of them by default).
"""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _scorer():
    """``experiments/tables-past-range/evaluate.py``, loaded under a name of its own, reading
    the product's default past-range rule."""
    spec = importlib.util.spec_from_file_location("past_range_evaluate", ROOT / "experiments" / "tables-past-range" / "evaluate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.MODES = {"scinum.Regressor": "auto"}
    return module


if __name__ == "__main__":
    models, out = Path(sys.argv[1]), Path(sys.argv[2])
    names = sys.argv[3:] or sorted(p.name for p in models.iterdir() if p.is_dir())
    scorer = _scorer()
    for name in names:
        scorer.main(models / name, out / name)
