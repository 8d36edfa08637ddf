"""Whether each development fit's rows bend clearly (``scinum.fill.line.bends_clearly`` on the
fit's training rows, as ``Regressor.fit`` tests them), one JSON line per (table, seed) to
``dev-bends.jsonl``; with ``--check``, one ``grow`` fit redone to confirm that a fit repeats bit
for bit (its MSEs equal to dev.jsonl's).

    python experiments/tables-large-budget/bends.py [--check]
"""

from __future__ import annotations

import json
import runpy
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RUN = runpy.run_path(str(HERE / "run.py"))
SHAPES, ROWS, SEEDS = ("line", "sin", "tanh"), (3000, 10000), (0, 1)
CHECK = ("tanh", 3000, 1)  # the shortest grow fit of the development runs


def bends(X, y, train, seed: int) -> list[bool]:
    """``Regressor.bends_`` of a fit on the ``train`` rows: what a fit at the defaults tests, from
    a tiny fit (the test reads the rows, not the model)."""
    import scinum

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reg = scinum.Regressor(seed=seed, samples=32, d_model=8, n_layers=1, n_heads=2).fit(X.iloc[train], y[train])
    return [bool(b) for b in reg.bends_]


def main(check: bool) -> None:
    import torch

    torch.set_num_threads(1)
    with open(HERE / "dev-bends.jsonl", "w") as out:
        for shape in SHAPES:
            for rows in ROWS:
                for seed in SEEDS:
                    X, y, _ = RUN["LARGE"]["table"](shape, rows, seed)
                    train, _, _ = RUN["LARGE"]["split"](X, seed)
                    out.write(json.dumps({"table": f"{shape}{rows}", "seed": seed, "bends": bends(X, y, train, seed)}) + "\n")
    if check:
        shape, rows, seed = CHECK
        X, y, truth = RUN["LARGE"]["table"](shape, rows, seed)
        train, inside, past = RUN["LARGE"]["split"](X, seed)
        reg = RUN["fits"](X, y, train, seed, only="grow")["grow"][0]
        published = {
            r["split"]: r["mse"]
            for r in map(json.loads, (HERE / "dev.jsonl").read_text().splitlines())
            if (r["table"], r["seed"], r["model"]) == (f"{shape}{rows}", seed, "grow")
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pred = {"inside": reg.predict(X.iloc[inside]), "past": reg.predict(X.iloc[past])}
        again = {s: float(np.mean((np.asarray(pred[s]) - truth[rows]) ** 2)) for s, rows in (("inside", inside), ("past", past))}
        same = again == published
        print(f"{shape}{rows} seed {seed}, grow refitted: {again} vs dev.jsonl {published}: {'equal' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main("--check" in sys.argv[1:])
