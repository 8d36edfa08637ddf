"""The tables of this folder's README: the line model at the cap beside the `best` preset at the
same samples without the line (planets-half-time step 4, seeds 0-1), the line model at the
preset's 737 280 samples (planets-line-dt-a1) and the preset as published, on the development
data (build seed 0), and alone on the test data (build seed 1729, seeds 0-1); step 2 (1 075 200
samples) beside step 1 and the preset it replaced on the development data, and alone on its test
data (build seed 2718, seeds 0-1); with ridge and boosted trees fitted by the same recipe on the
same training orbits: the mean over seeds, each seed in brackets. Reads and formats as planets-line-dt-a1/table.py does (loaded from there).

    python experiments/planets-line-cap/table.py
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXPERIMENTS = HERE.parent
_spec = importlib.util.spec_from_file_location("line_dt_a1_table", EXPERIMENTS / "planets-line-dt-a1" / "table.py")
assert _spec is not None and _spec.loader is not None
line_dt_a1 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(line_dt_a1)
base = line_dt_a1.base  # planets-record-line/table.py: seeds, regressor, fmt, markdown

CANDIDATE = line_dt_a1.CANDIDATE
DATA = {
    "development (build seed 0)": (
        HERE / "cap",
        (
            ("Δt and a₁ on a line, 1 198 080 samples", CANDIDATE, HERE / "cap"),
            ("`best` at 1 198 080 samples (planets-half-time step 4)", "xval+gmm", EXPERIMENTS / "planets-half-time" / "full-cap"),
            ("Δt and a₁ on a line, 737 280 samples (planets-line-dt-a1)", CANDIDATE, EXPERIMENTS / "planets-line-dt-a1" / "cap"),
            ("`best`, 737 280 samples", base.BEST, EXPERIMENTS / "planets-values-alone" / "cap"),
        ),
    ),
    "test (build seed 1729)": (HERE / "test", (("Δt and a₁ on a line, 1 198 080 samples", CANDIDATE, HERE / "test"),)),
    "step 2, development (build seed 0)": (
        HERE / "cap-1075k",
        (
            ("Δt and a₁ on a line, 1 075 200 samples (step 2)", CANDIDATE, HERE / "cap-1075k"),
            ("Δt and a₁ on a line, 1 198 080 samples (step 1)", CANDIDATE, HERE / "cap"),
            ("`best`, 737 280 samples (until step 2)", base.BEST, EXPERIMENTS / "planets-values-alone" / "cap"),
        ),
    ),
    "step 2, test (build seed 2718)": (
        HERE / "test-1075k",
        (("Δt and a₁ on a line, 1 075 200 samples (step 2)", CANDIDATE, HERE / "test-1075k"),),
    ),
}


def rows(data: str) -> list[list[str]]:
    """The table's rows for one data set: each model (mean and seeds), then ridge and the trees."""
    return line_dt_a1.rows(data, DATA)


def markdown(data: str) -> str:
    return line_dt_a1.markdown(data, DATA)


if __name__ == "__main__":
    line_dt_a1.main(DATA)
