"""Fits of the tables-long-batches experiment (README.md): ``long-batches`` (``scinum.Regressor``
at this commit's defaults with batches of 64, learning rate 2e-3 and at most 600,000 cells a
member where the rows bend: what the candidate trains where it applies), and, on the test tables,
``default`` beside it and least squares and boosted trees. One JSON line per (table, seed, model,
split) on stdout, as tables-large-budget's run.py writes them.

    python experiments/tables-long-batches/run.py synthetic SHAPE ROWS SEED   # the development tables that bend
    python experiments/tables-long-batches/run.py large TABLE SEED            # tables-large-budget's five
    python experiments/tables-long-batches/run.py test TABLE SEED             # membrane, swiss_roll, s_curve

It runs against the product as it was before the candidate was adopted (113cca3: its
``DEFAULTS["bent_max_cells"]``); the adopted schedule is ``scinum.regressor_params.schedule``.

``--max-records N`` (last): the candidate also sees at most N records a member (the third
candidate, ``long-batches-80k`` at 80000; its lines carry that label).
"""

from __future__ import annotations

import runpy
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
LARGE = runpy.run_path(str(HERE.parent / "tables-large-budget" / "run.py"))

#: the candidate where it applies (every target's rows bend, at least 667 training rows)
CANDIDATE = {"batch_size": 64, "lr": 2e-3, "bent_max_cells": 600_000}
TEST = ("membrane", "swiss_roll", "s_curve")


def load_test(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """``(X, y)`` of a test table (README): ``membrane`` matplotlib's sample membrane-potential
    trace (12,000 float32 values; input ``t``, the sample's index), ``swiss_roll`` and ``s_curve``
    scikit-learn's generators (10,000 points, noise 0.1, ``random_state=0``; inputs the point's
    coordinates ``x0, x1, x2`` (x, y, z), target its position ``t`` along the manifold)."""
    if name == "membrane":
        import matplotlib.cbook as cbook

        values = np.fromfile(cbook.get_sample_data("membrane.dat", asfileobj=False), dtype=np.float32).astype(float)
        return pd.DataFrame({"t": np.arange(len(values), dtype=float)}), values
    if name in ("swiss_roll", "s_curve"):
        import sklearn.datasets

        X, t = getattr(sklearn.datasets, f"make_{name}")(n_samples=10000, noise=0.1, random_state=0)
        return pd.DataFrame(X, columns=["x0", "x1", "x2"]), t  # not "y": the estimator's name for the target
    raise ValueError(f"unknown test table {name!r}; known: {', '.join(TEST)}")


def fit(X: pd.DataFrame, y: np.ndarray, train: np.ndarray, seed: int, candidate: bool, max_records: int | None = None):
    """``(fitted model, extra)``: ``scinum.Regressor(seed=seed)`` at this commit's defaults, or
    with the candidate's training (``candidate``); ``extra``: records a member saw, CPU seconds,
    whether each target's rows bend, and the rows it trained on (the validation rows apart).
    ``max_records``: the candidate's budget also capped at that many records."""
    import scinum
    import scinum.estimator as est
    import scinum.regressor_params as params

    saved, budget = params.DEFAULTS["bent_max_cells"], est.training_samples
    if candidate:
        params.DEFAULTS["bent_max_cells"] = CANDIDATE["bent_max_cells"]
        if max_records:
            est.training_samples = lambda *a: min(budget(*a), max_records)  # type: ignore[assignment]
    try:
        options = {"batch_size": CANDIDATE["batch_size"], "lr": CANDIDATE["lr"]} if candidate else {}
        reg = scinum.Regressor(seed=seed, **options)
        cpu = time.process_time()
        reg.fit(X.iloc[train], y[train])
        seconds = time.process_time() - cpu
    finally:
        params.DEFAULTS["bent_max_cells"], est.training_samples = saved, budget
    n_train = len(params.split_indices(len(train), reg.val_fraction, seed, params.DEFAULTS["min_val_records"])[0])
    bends = [bool(b) for b in reg.bends_]
    return reg, {"samples": reg.config_["budget"]["samples"], "fit_s": round(seconds, 2), "bends": bends, "n_train": n_train}


def held_out_split(X: pd.DataFrame, y: np.ndarray, seed: int) -> tuple[np.ndarray, dict]:
    """The tables protocol's split (tables-large-budget's): ``(train, {"inside", "past"})``."""
    col = X[LARGE["PROTOCOL"]["most_correlated_input"](X, pd.Series(y))].to_numpy()
    past = col > np.quantile(col, 0.9)
    rest = np.flatnonzero(~past)
    inside = np.sort(np.random.default_rng(seed).permutation(rest)[: len(rest) // 4])
    return np.setdiff1d(rest, inside), {"inside": inside, "past": np.flatnonzero(past)}


def main(argv: list[str]) -> None:
    import torch

    torch.set_num_threads(1)
    max_records = int(argv[-1]) if len(argv) > 2 and argv[-2] == "--max-records" else None
    argv = argv[:-2] if max_records else argv
    label = "long-batches-80k" if max_records == 80000 else f"long-batches-{max_records}" if max_records else "long-batches"
    if argv[0] == "synthetic":
        shape, rows, seed = argv[1], int(argv[2]), int(argv[3])
        X, y, truth = LARGE["LARGE"]["table"](shape, rows, seed)
        train, inside, past = LARGE["LARGE"]["split"](X, seed)
        models = {label: fit(X, y, train, seed, candidate=True, max_records=max_records)}
        LARGE["score"](models, X, truth, {"inside": inside, "past": past}, {"table": f"{shape}{rows}", "seed": seed})
    elif argv[0] in ("large", "test"):
        name, seed = argv[1], int(argv[2])
        X, y = LARGE["load_test"](name) if argv[0] == "large" else load_test(name)
        train, where = held_out_split(X, y, seed)
        models = {label: fit(X, y, train, seed, candidate=True, max_records=max_records)}
        if argv[0] == "test":
            models["default"] = fit(X, y, train, seed, candidate=False)
            from sklearn.ensemble import HistGradientBoostingRegressor
            from sklearn.linear_model import LinearRegression

            standard = {"least squares": LinearRegression(), "boosted trees": HistGradientBoostingRegressor(random_state=seed)}
            for label, model in standard.items():
                models[label] = (model.fit(X.iloc[train], y[train]), {})
        LARGE["score"](models, X, y, where, {"table": name, "seed": seed})
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
