"""The candidates against the default on the development tables under the declared rule
(README; tables-fit-cheaper's ``compare.py`` clauses and figures), and, once the test tables are
fitted, the adopted candidate beside the default there.

    python experiments/tables-in-seconds/compare.py    # writes dev/summary.md (and test/summary.md)
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def rules():
    """``experiments/tables-fit-cheaper/compare.py``, loaded under a name of its own."""
    spec = importlib.util.spec_from_file_location("fit_cheaper_compare", ROOT / "experiments" / "tables-fit-cheaper" / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    r = rules()
    print(r.main(HERE / "dev"))
