"""The tables of this folder's README: the `best` preset with a line under Δt and a₁ beside the
preset as published and the four-field line of planets-record-line, on the development data
(build seed 0, seeds 0-4), and alone on the test data (build seed 3141, seeds 0-1), with ridge and
boosted trees fitted by the same recipe on the same training orbits: the mean over seeds, each
seed in brackets. Reads and formats as planets-record-line/table.py does (loaded from there).

    python experiments/planets-line-dt-a1/table.py
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from statistics import mean

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("record_line_table", HERE.parent / "planets-record-line" / "table.py")
assert _spec is not None and _spec.loader is not None
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)

CANDIDATE = "xval+gmm, values alone, dt and a1 on a line"
#: data -> the folder whose regressors the table shows, and (label, model, folder) of each model row
DATA = {
    "development (build seed 0)": (
        HERE / "cap",
        (
            ("Δt and a₁ on a line", CANDIDATE, HERE / "cap"),
            ("four fields on a line (planets-record-line)", base.ON_A_LINE, HERE.parent / "planets-record-line" / "cap"),
            ("`best`", base.BEST, HERE.parent / "planets-values-alone" / "cap"),
        ),
    ),
    "test (build seed 3141)": (HERE / "test", (("Δt and a₁ on a line", CANDIDATE, HERE / "test"),)),
}


def rows(data: str, data_sets: dict | None = None) -> list[list[str]]:
    """The table's rows for one data set of ``data_sets`` (default :data:`DATA`): each model (mean
    and seeds), then ridge and the trees."""
    regressors, models = (data_sets or DATA)[data]
    out = []
    for label, model, folder in models:
        runs = base.seeds(folder, model)
        cells = [f"{label} ({len(runs)} seeds)"]
        for _, field, split, metric in base.COLUMNS:
            values = [runs[s][(field, split, metric)] for s in sorted(runs)]
            cells.append(f"{base.fmt(mean(values), metric)} ({', '.join(base.fmt(v, metric) for v in values)})")
        out.append(cells)
    for name in ("ridge", "boosted trees"):
        scores = base.regressor(name, regressors)
        out.append([name, *(base.fmt(scores[(f, s, m)], m) for _, f, s, m in base.COLUMNS)])
    return out


def markdown(data: str, data_sets: dict | None = None) -> str:
    """One data set's table of ``data_sets`` (default :data:`DATA`) in markdown."""
    return base.markdown(data, lambda d: rows(d, data_sets))


def main(data_sets: dict | None = None) -> None:
    """Print the table of every data set whose runs are published."""
    for data, (folder, _) in (data_sets or DATA).items():
        if (folder / "seeds.csv").exists():
            print(f"{data}:\n\n{markdown(data, data_sets)}\n")


if __name__ == "__main__":
    main()
