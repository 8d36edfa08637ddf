"""Fit ``scinum.Regressor(seed=seed)`` at its defaults (one thread) on the training rows of each
``TABLE:SEED`` (``recipes/tables_by_range.py``'s ``splits``) and save it under
``MODELS_DIR/default/TABLE-SEED`` with its fit time; a fit already saved is skipped
(``experiments/tables-fit-cheaper/fit_save.py``'s loop). Both rules of this experiment predict
from these fits: the line's holds change no training row.

    python experiments/tables-trend-or-edge/fit_save.py MODELS_DIR engel:0 macrodata:0 ...
"""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _loop():
    spec = importlib.util.spec_from_file_location("fit_cheaper_fit_save", ROOT / "experiments" / "tables-fit-cheaper" / "fit_save.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    loop = _loop()
    loop.run(Path(sys.argv[1]), ["default"], sys.argv[2:], make=lambda candidate, seed: loop.scinum.Regressor(seed=seed))
