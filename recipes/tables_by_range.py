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
measurements of 20 men from weight, chin-ups, sit-ups and jumps (scikit-learn). These sixteen are
the development tables: every default of the estimator was chosen reading some of them.
:data:`TEST_TABLES`, twelve more declared in ``experiments/tables-protocol`` (README and
``declared.json``) before any model ran on them: the tables reported figures come from. Their
held-out input was picked by one rule, :func:`most_correlated_input`: of the inputs whose top 10 %
is well defined (the rows strictly above its 0.9 quantile are within one row of a tenth of the
table, as on the development tables), the one with the largest absolute Pearson correlation with
the target over all rows, the first in column order on a tie. In each, the 10 %
of rows with the highest value of one input (``HELD_OUT_BY``) are held out (``extrap``: beyond anything trained on); of the rest a seeded
quarter is ``test`` and the remainder trains. Rows: the scinum variants of
:data:`recipes.tabular.SCINUM_ROWS`, ordinary least squares and histogram gradient-boosted trees;
cells: the row's mean MSE over the seeds ÷ the better standard model's on that split.

    python recipes/tables_by_range.py --out experiments/tables-by-range [--seeds 0 1 2]
    python recipes/tables_by_range.py --tables unseen --out experiments/tables-by-range-unseen
    python recipes/tables_by_range.py --tables fresh --out experiments/tables-by-range-fresh
    python recipes/tables_by_range.py --tables blind --out experiments/tables-by-range-blind
    python recipes/tables_by_range.py --tables test --out experiments/tables-by-range-test

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

#: the default row's fit, scored with ``extrapolation="linear"`` (continued from the edge of the
#: input range: :mod:`scinum.fill.past_range`)
PAST_RANGE_ROW = "scinum.Regressor, continued linearly past the range"

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
#: the development tables: every choice of a default read some of them (module docstring)
DEVELOPMENT = (*TUNED, *UNSEEN, *FRESH, *BLIND)
#: the test tables, declared (experiments/tables-protocol) before any model ran on them: table ->
#: the input whose top 10 % is held out, by :func:`most_correlated_input`
TEST_TABLES = {
    "anes96": "logpopul",
    "heart": "age",
    "interest_inflation": "Dp",
    "modechoice": "invt",
    "nile": "year",
    "sunspots": "YEAR",
    "fertility": "2000",
    "iris": "sepal width (cm)",
    "wine": "proline",
    "breast_cancer": "mean concave points",
    "msft": "High",
    "goog": "low",
}
#: the table sets ``--tables`` names
SETS = {"unseen": UNSEEN, "fresh": FRESH, "blind": BLIND, "test": tuple(TEST_TABLES)}
STANDARD = ("linear (OLS)", "boosted trees")
#: every table's held-out input, development and test
_HELD_OUT = {**HELD_OUT_BY, **TEST_TABLES}


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

#: the statsmodels test tables: name -> (inputs, target), all read as floats. anes96: a 1996
#: voter's self-placement from left to right (1-7) from every other column (population of the
#: home town and its log, days a week of TV news, the placement of Clinton and Dole, party
#: identification, age, education, income, the vote); heart: days from a heart transplant to
#: death or the end of follow-up, from whether the death was seen (censors, 1: died) and age;
#: interest_inflation: West Germany's interest rate from inflation, year and quarter, 1972-1998;
#: modechoice: the generalised cost of one travel mode for one traveller between Sydney and
#: Melbourne from terminal waiting time, in-vehicle cost and time, household income and party size
#: (the traveller's id, the mode's code and whether it was chosen left out); nile: the Nile's
#: yearly flow at Aswan from the year, 1871-1970; sunspots: the yearly sunspot number, 1700-2008.
_STATSMODELS_TEST = {
    "anes96": (
        ["popul", "TVnews", "ClinLR", "DoleLR", "PID", "age", "educ", "income", "vote", "logpopul"],
        "selfLR",
    ),
    "heart": (["censors", "age"], "survival"),
    "interest_inflation": (["year", "quarter", "Dp"], "R"),
    "modechoice": (["ttme", "invc", "invt", "hinc", "psize"], "gc"),
    "nile": (["year"], "volume"),
    "sunspots": (["YEAR"], "SUNACTIVITY"),
}
#: fertility (statsmodels, World Bank): a country's or region's births per woman in 2011 (the last
#: year with data) from 1960's, 1970's, 1980's, 1990's and 2000's; rows missing any of them left out
_FERTILITY = (["1960", "1970", "1980", "1990", "2000"], "2011")
#: scikit-learn's test tables: iris, petal width from the other three measurements (the species
#: left out); wine, the alcohol content from the other twelve measurements (the cultivar left
#: out); breast_cancer, the mean radius of the cell nuclei from the other mean features but their
#: perimeter and area (both computed from the same outline; the "error" and "worst" features and
#: the diagnosis left out)
_SKLEARN_TEST = {
    "iris": (["sepal length (cm)", "sepal width (cm)", "petal length (cm)"], "petal width (cm)"),
    "wine": (
        [
            "malic_acid",
            "ash",
            "alcalinity_of_ash",
            "magnesium",
            "total_phenols",
            "flavanoids",
            "nonflavanoid_phenols",
            "proanthocyanins",
            "color_intensity",
            "hue",
            "od280/od315_of_diluted_wines",
            "proline",
        ],
        "alcohol",
    ),
    "breast_cancer": (
        [
            "mean texture",
            "mean smoothness",
            "mean compactness",
            "mean concavity",
            "mean concave points",
            "mean symmetry",
            "mean fractal dimension",
        ],
        "mean radius",
    ),
}
#: matplotlib's sample data, one stock's daily prices: a day's close from its open, high, low and
#: volume (the adjusted close left out): msft.csv (Microsoft, 65 days of 2003), goog.npz (Google,
#: 1047 days from its listing in 2004)
_MATPLOTLIB_TEST = {
    "msft": ("msft.csv", ["Open", "High", "Low", "Volume"], "Close"),
    "goog": ("goog.npz", ["open", "high", "low", "volume"], "close"),
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
    if name in TEST_TABLES:
        return _load_test(name)
    raise ValueError(f"unknown table {name!r}; known: {sorted(HELD_OUT_BY)} and {sorted(TEST_TABLES)}")


def _load_test(name: str):
    """``(X, y)`` of a test table (:data:`TEST_TABLES`), every column read as floats."""
    import pandas as pd

    if name in _STATSMODELS_TEST:
        import statsmodels.datasets as sd

        d = getattr(sd, name).load_pandas().data
        inputs, target = _STATSMODELS_TEST[name]
    elif name == "fertility":
        from statsmodels.datasets import fertility

        inputs, target = _FERTILITY
        d = fertility.load_pandas().data[[*inputs, target]].dropna()
    elif name in _SKLEARN_TEST:
        import sklearn.datasets

        d = getattr(sklearn.datasets, f"load_{name}")(as_frame=True).frame
        inputs, target = _SKLEARN_TEST[name]
    elif name in _MATPLOTLIB_TEST:
        from matplotlib import cbook

        file, inputs, target = _MATPLOTLIB_TEST[name]
        path = cbook.get_sample_data(file, asfileobj=False)
        d = pd.read_csv(path) if file.endswith(".csv") else pd.DataFrame(np.load(path)["price_data"])
    else:
        raise ValueError(f"unknown test table {name!r}; known: {sorted(TEST_TABLES)}")
    return d[inputs].astype(float).reset_index(drop=True), d[target].astype(float).reset_index(drop=True)


def top_tenth_is_defined(col: np.ndarray) -> bool:
    """Whether the rows strictly above ``col``'s 0.9 quantile (:func:`splits`' ``extrap``) are
    within one row of a tenth of them (ties at the top can leave none, or many more)."""
    return bool(abs(int(np.sum(col > np.quantile(col, 0.9))) - 0.1 * len(col)) <= 1)


def most_correlated_input(X, y) -> str:
    """The rule that picked each test table's held-out input: of the columns of ``X`` whose top
    tenth is defined (:func:`top_tenth_is_defined`), the one with the largest absolute Pearson
    correlation with ``y`` over all rows; the first in column order on a tie."""
    target = np.asarray(y, dtype=float)
    r = {c: abs(float(np.corrcoef(X[c].to_numpy(dtype=float), target)[0, 1])) for c in X.columns}
    eligible = [c for c in X.columns if top_tenth_is_defined(X[c].to_numpy(dtype=float)) and np.isfinite(r[c])]
    if not eligible:
        raise ValueError("no input has a defined top tenth")
    return max(eligible, key=lambda c: r[c])  # max keeps the first of equals


def splits(X, name: str, seed: int) -> dict[str, np.ndarray]:
    """Row indices of ``train``, ``test`` and ``extrap`` (module docstring)."""
    col = X[_HELD_OUT[name]].to_numpy()
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
        # the default row's fit also scored continued linearly past the range (PAST_RANGE_ROW)
        read = {label: {}, **({PAST_RANGE_ROW: {"extrapolation": "linear"}} if label == "scinum.Regressor" else {})}
        for as_label, params in read.items():
            if params:
                model.set_params(**params)
            for split in ("test", "extrap"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ExtrapolationWarning)
                    pred = model.predict(X.iloc[idx[split]])
                mse = float(np.mean((np.asarray(pred) - y.iloc[idx[split]].to_numpy()) ** 2))
                out.append({"table": name, "seed": seed, "model": as_label, "split": split, "mse": mse, "n": len(idx[split])})
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
        f"{sorted(set(frame['seed']))}; held out: the top 10 % of " + ", ".join(f"{t}'s {_HELD_OUT[t]}" for t in names) + ".",
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
        choices=[*HELD_OUT_BY, *TEST_TABLES, *SETS],
        help="table names, or unseen / fresh / blind (the four of UNSEEN / FRESH / BLIND), test (TEST_TABLES)",
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
