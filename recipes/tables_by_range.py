"""scinum.Regressor against the standard regressors on real tables, held out by range.

Each table ships inside an installed wheel (nothing is downloaded). :data:`TUNED`, the four the
estimator's defaults were chosen on: Engel's food expenditure (``statsmodels``), US
macroeconomic data 1959–2009 (``statsmodels`` ``macrodata``: real consumption from real GDP,
investment, government spending and unemployment), scikit-learn's ``diabetes`` (disease
progression from BMI, blood pressure, s5 and age) and the stack-loss plant data (``statsmodels``,
21 rows). :data:`UNSEEN`, four first run after those defaults were fixed, to check them on tables
they were not chosen on (all ``statsmodels``): Grunfeld's investment data (gross investment of 11
US firms, 1935–1954, from firm value and capital stock), US state crime rates 2009 (violent crime
from poverty, single-parent households, urbanization, high-school graduation and white share),
credit-card expenditure (72 applicants: average monthly spending from age, income and home
ownership) and Longley's macroeconomic series (16 years: employment from GNP, population,
unemployment and armed forces). :data:`FRESH`, four chosen and first run after the estimator's
ensemble default was fixed on the eight above (``statsmodels`` too): world copper consumption
1951–1975 (from the copper price, an income index, the aluminium price and an inventory index),
Danish money demand 1974–1987 (log real money from log real income, log prices, the bond rate and
the deposit rate), the 1997 Scottish devolution vote by council area (the share voting yes from
council tax, female unemployment, mortality, activity rate, GDP and age) and California schools'
1998 maths results (the share of pupils above the national median from the shares of low-income,
Asian, Black, Hispanic and minority teachers, teachers' experience and salary, spending per pupil,
pupils per teacher and share taking algebra). :data:`BLIND`, four chosen and committed before any model ran
on them, after the trunk's ``linear_mlp`` value path was tried on the twelve above: the bills
referred to US House committees in the 104th Congress (from their size, subcommittees, staff,
prestige and bills in the 103rd; ``statsmodels``), the December sea-surface temperature of the El
Niño region from January–November of the same year (``statsmodels`` ``elnino``, 61 years), cancer
deaths by county from population (``statsmodels`` ``cancer``, 301 counties) and Linnerud's waist
measurements of 20 men from weight, chin-ups, sit-ups and jumps (scikit-learn). In each, the 10 %
of rows with the highest value of one input (``HELD_OUT_BY``) are held out (``extrap``: beyond anything trained on); of the rest a seeded
quarter is ``test`` and the remainder trains. Rows: the scinum variants of
:data:`recipes.tabular.SCINUM_ROWS`, ordinary least squares and histogram gradient-boosted trees;
cells: the row's mean MSE over the seeds ÷ the better standard model's on that split.

    python recipes/tables_by_range.py --out experiments/tables-by-range [--seeds 0 1 2]
    python recipes/tables_by_range.py --tables unseen --out experiments/tables-by-range-unseen
    python recipes/tables_by_range.py --tables fresh --out experiments/tables-by-range-fresh
    python recipes/tables_by_range.py --tables blind --out experiments/tables-by-range-blind

writes ``table.md`` and ``scores.csv`` (every seed's MSE) there. Needs
``pip install -e ".[examples,baselines]"``. About 15 minutes on one core for each set of four;
``--jobs N`` fits N (table, seed) pairs at once, each on one thread.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path
from typing import Sequence

import numpy as np

if __package__ in (None, ""):  # run as a script: the repository root, for ``recipes.``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from recipes.tabular import SCINUM_ROWS  # noqa: E402

#: table -> the input whose top 10 % is held out
HELD_OUT_BY = {
    "engel": "income",
    "macrodata": "realgdp",
    "diabetes": "bmi",
    "stackloss": "AIRFLOW",
    "grunfeld": "value",
    "statecrime": "poverty",
    "ccard": "INCOME",
    "longley": "GNP",
    "copper": "INCOMEINDEX",
    "danish_data": "lry",
    "scotland": "GDP",
    "star98": "LOWINC",
    "committee": "BILLS103",
    "elnino": "NOV",
    "cancer": "population",
    "linnerud": "Weight",
}
#: the tables the estimator's defaults were chosen on, and those run only after (module docstring)
TUNED, UNSEEN = ("engel", "macrodata", "diabetes", "stackloss"), ("grunfeld", "statecrime", "ccard", "longley")
FRESH = ("copper", "danish_data", "scotland", "star98")
BLIND = ("committee", "elnino", "cancer", "linnerud")
#: the table sets ``--tables`` names
SETS = {"unseen": UNSEEN, "fresh": FRESH, "blind": BLIND}
STANDARD = ("linear (OLS)", "boosted trees")


#: the other statsmodels tables: name -> (inputs, target), all read as floats
_STATSMODELS = {
    "grunfeld": (["value", "capital"], "invest"),
    "statecrime": (["poverty", "single", "urban", "hs_grad", "white"], "violent"),
    "ccard": (["AGE", "INCOME", "OWNRENT"], "AVGEXP"),
    "longley": (["GNP", "POP", "UNEMP", "ARMED"], "TOTEMP"),
    "copper": (["COPPERPRICE", "INCOMEINDEX", "ALUMPRICE", "INVENTORYINDEX"], "WORLDCONSUMPTION"),
    "danish_data": (["lry", "lpy", "ibo", "ide"], "lrm"),
    "scotland": (["COUTAX", "UNEMPF", "MOR", "ACT", "GDP", "AGE"], "YES"),
    "star98": (
        ["LOWINC", "PERASIAN", "PERBLACK", "PERHISP", "PERMINTE", "AVYRSEXP", "AVSALK", "PERSPENK", "PTRATIO", "PCTAF"],
        "MATHABOVE",
    ),
    "committee": (["SIZE", "SUBS", "STAFF", "PRESTIGE", "BILLS103"], "BILLS104"),
    "elnino": (["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV"], "DEC"),
    "cancer": (["population"], "cancer"),
}


def load(name: str):
    """``(X, y)`` DataFrame and Series of a table (module docstring)."""
    if name == "engel":
        from statsmodels.datasets import engel

        d = engel.load_pandas().data
        return d[["income"]], d["foodexp"]
    if name == "macrodata":
        from statsmodels.datasets import macrodata

        d = macrodata.load_pandas().data
        return d[["realgdp", "realinv", "realgovt", "unemp"]], d["realcons"]
    if name == "diabetes":
        from sklearn.datasets import load_diabetes

        X, y = load_diabetes(return_X_y=True, as_frame=True)
        return X[["bmi", "bp", "s5", "age"]], y
    if name == "stackloss":
        from statsmodels.datasets import stackloss

        d = stackloss.load_pandas().data
        return d[["AIRFLOW", "WATERTEMP", "ACIDCONC"]], d["STACKLOSS"]
    if name == "linnerud":
        from sklearn.datasets import load_linnerud

        exercise, body = load_linnerud(return_X_y=True, as_frame=True)
        X = exercise.assign(Weight=body["Weight"])[["Weight", "Chins", "Situps", "Jumps"]].astype(float)
        return X, body["Waist"].astype(float)
    if name in _STATSMODELS:
        import statsmodels.datasets as sd

        d = getattr(sd, name).load_pandas().data
        if name == "star98":  # the share of a school's pupils above the national median in maths
            d["MATHABOVE"] = d["NABOVE"].astype(float) / (d["NABOVE"] + d["NBELOW"]).astype(float)
        inputs, target = _STATSMODELS[name]
        return d[inputs].astype(float).reset_index(drop=True), d[target].astype(float).reset_index(drop=True)
    raise ValueError(f"unknown table {name!r}; known: {sorted(HELD_OUT_BY)}")


def splits(X, name: str, seed: int) -> dict[str, np.ndarray]:
    """Row indices of ``train``, ``test`` and ``extrap`` (module docstring)."""
    col = X[HELD_OUT_BY[name]].to_numpy()
    extrap = col > np.quantile(col, 0.9)
    inside = np.flatnonzero(~extrap)
    test = np.random.default_rng(seed).permutation(inside)[: len(inside) // 4]
    return {"train": np.setdiff1d(inside, test), "test": np.sort(test), "extrap": np.flatnonzero(extrap)}


def scores(name: str, seed: int, rows: Sequence[str] = tuple(SCINUM_ROWS)) -> list[dict]:
    """One row per (model, split): the MSE of one seed; ``rows``: the scinum rows to fit."""
    import scinum
    from scinum.fill.extrapolation import ExtrapolationWarning
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.linear_model import LinearRegression

    X, y = load(name)
    idx = splits(X, name, seed)
    tr = idx["train"]
    models = {label: scinum.Regressor(seed=seed, **SCINUM_ROWS[label]) for label in rows}
    models.update({"linear (OLS)": LinearRegression(), "boosted trees": HistGradientBoostingRegressor(random_state=seed)})
    out = []
    for label, model in models.items():
        model.fit(X.iloc[tr], y.iloc[tr])
        for split in ("test", "extrap"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ExtrapolationWarning)
                pred = model.predict(X.iloc[idx[split]])
            mse = float(np.mean((np.asarray(pred) - y.iloc[idx[split]].to_numpy()) ** 2))
            out.append({"table": name, "seed": seed, "model": label, "split": split, "mse": mse, "n": len(idx[split])})
    return out


def _scores_on_one_thread(name: str, seed: int, rows: Sequence[str]) -> list[dict]:
    """:func:`scores` in a worker process, on one thread (two jobs of two threads each on two
    cores were measured 6x slower than one thread each)."""
    import torch

    torch.set_num_threads(1)
    return scores(name, seed, rows)


def table(frame) -> str:
    """Markdown: per model, each table's MSE ÷ the best standard model's, test and extrap."""
    mean = frame.groupby(["table", "model", "split"])["mse"].mean()
    names = list(dict.fromkeys(frame["table"]))
    n = frame.groupby(["table", "split"])["n"].first()
    head = " | ".join(f"{t} {s} ({n[t, s]} rows)" for t in names for s in ("test", "extrap"))
    lines = [
        f"MSE ÷ the better of OLS and boosted trees on the same split, mean over seeds "
        f"{sorted(set(frame['seed']))}; held out: the top 10 % of " + ", ".join(f"{t}'s {HELD_OUT_BY[t]}" for t in names) + ".",
        "",
        f"| model | {head} |",
        "|---|" + "---|" * (2 * len(names)),
    ]
    for model in dict.fromkeys(frame["model"]):
        cells = [f"{mean[t, model, s] / min(mean[t, m, s] for m in STANDARD):.2f}×" for t in names for s in ("test", "extrap")]
        lines.append(f"| {model} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    import pandas as pd

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results/tables-by-range"))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument(
        "--tables",
        nargs="+",
        default=list(TUNED),
        choices=[*HELD_OUT_BY, *SETS],
        help="table names, or unseen / fresh / blind (the four of UNSEEN / FRESH / BLIND)",
    )
    parser.add_argument("--rows", nargs="+", default=list(SCINUM_ROWS), choices=list(SCINUM_ROWS), help="the scinum rows [all]")
    parser.add_argument("--jobs", type=int, default=1, help="(table, seed) pairs fitted at once, one thread each [1: in this process]")
    args = parser.parse_args(argv)
    args.tables = list(dict.fromkeys(t for name in args.tables for t in SETS.get(name, (name,))))
    pairs = [(name, seed) for name in args.tables for seed in args.seeds]
    if args.jobs > 1:
        from scinum.util.processes import worker_pool

        with worker_pool(min(args.jobs, len(pairs))) as pool:
            futures = [pool.submit(_scores_on_one_thread, name, seed, args.rows) for name, seed in pairs]
            for (name, seed), future in zip(pairs, futures):
                future.result()
                print(f"{name} seed {seed} done", file=sys.stderr)
        rows = [r for future in futures for r in future.result()]  # in the order of the pairs
    else:
        rows = []
        for name, seed in pairs:
            rows += scores(name, seed, args.rows)
            print(f"{name} seed {seed} done", file=sys.stderr)
    frame = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out / "scores.csv", index=False)
    text = table(frame)
    (args.out / "table.md").write_text(text)
    from scinum.util.provenance import result_provenance

    (args.out / "meta.json").write_text(
        json.dumps({"seeds": args.seeds, "tables": args.tables, "rows": args.rows, **result_provenance()}, indent=1)
    )
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
