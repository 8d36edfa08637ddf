"""Fit ``scinum.Regressor(seed=seed)`` under each candidate (one thread) on the training rows of
each ``TABLE:SEED`` and save it with its fit time: ``experiments/tables-fit-cheaper/fit_save.py``'s
loop (``run``) with this experiment's candidates (README):

- ``default``: the default when this was declared (one member, two blocks, the curvature penalty
  on every record of a batch);
- ``share-quarter``: the penalty on the first quarter of each batch's records
  (``optim.curvature_share`` 0.25 instead of 1);
- ``one-layer``: one transformer block instead of two (``n_layers=1``);
- ``share-quarter+one-layer``: both.

    python experiments/tables-in-seconds/fit_save.py MODELS_DIR CANDIDATE[,CANDIDATE...] engel:0 macrodata:0 ...
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
    "share-quarter": {"config": {"optim": {"curvature_share": 0.25}}},
    "one-layer": {"n_layers": 1},
    "share-quarter+one-layer": {"n_layers": 1, "config": {"optim": {"curvature_share": 0.25}}},
}


def regressor(candidate: str, seed: int) -> "scinum.Regressor":
    """The candidate's unfitted Regressor."""
    return scinum.Regressor(seed=seed, **CANDIDATES[candidate])


if __name__ == "__main__":
    _loop.run(Path(sys.argv[1]), sys.argv[2].split(","), sys.argv[3:], make=regressor)
