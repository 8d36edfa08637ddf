"""Fit ``scinum.Regressor(seed=seed)`` under each candidate (one thread) on the training rows of
each ``TABLE:SEED`` and save it with its fit time: ``experiments/tables-fit-cheaper/fit_save.py``'s
loop (``run``) with this experiment's candidates (README):

- ``default``: the default when this was declared (every token of a row: its braces, the keys of
  its numbers and its numbers);
- ``values-alone``: the trunk reads the row's numbers alone, their columns in the numbers'
  structure positions (``model.structure_tokens`` false): 11 tokens for a row of 11 numbers
  instead of 24.

    python experiments/tables-values-alone/fit_save.py MODELS_DIR CANDIDATE[,CANDIDATE...] engel:0 macrodata:0 ...
"""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("fit_cheaper_fit_save", ROOT / "experiments" / "tables-fit-cheaper" / "fit_save.py")
_loop = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_loop)
scinum = _loop.scinum

#: candidate -> the Regressor's constructor arguments
CANDIDATES: dict[str, dict] = {
    "default": {},
    "values-alone": {"config": {"model": {"structure_tokens": False}}},
}


def regressor(candidate: str, seed: int) -> "scinum.Regressor":
    """The candidate's unfitted Regressor."""
    return scinum.Regressor(seed=seed, **CANDIDATES[candidate])


if __name__ == "__main__":
    _loop.run(Path(sys.argv[1]), sys.argv[2].split(","), sys.argv[3:], make=regressor)
