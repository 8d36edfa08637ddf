"""How many training targets does a plain neural network need to learn one field? (a budget probe)

Before blaming a transformer for not learning a field, ask how many times the *simplest* neural
learner must see that field as a target. This fits scikit-learn's ``MLPRegressor`` (Adam) on the
same flattened records the standard-model rows use (:mod:`scinum.baselines.features`: every
other number at its JSON-path slot, the field's own numbers removed, inputs standardised), the
field the only target of every record, and prints test R² after 1, 2, 4, ... epochs with the
number of targets seen. An MLM transformer sees a field as a target only where it masks it
(``data.mask_prob`` of its records, more with ``data.mask_fields``), so ``targets / mask rate`` is
the number of training samples it would need to see as many.

    python recipes/sample_curve.py DATASET --field description.planet0.e [--epochs 64] [--seed 0]

On the compare preset's planets data (experiments/parity.md) e₁ needs about 32 000 targets to move and
256 000 to reach R² 0.89. Needs scikit-learn (``pip install -e ".[baselines]"``).
"""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np


def curve(dataset: str, field: str, max_epochs: int = 64, seed: int = 0, hidden: tuple[int, ...] = (256, 256)) -> list[dict]:
    """Rows ``{epochs, targets, test_r2}`` at epochs 1, 2, 4, ... ``max_epochs`` (batch 8, lr 1e-3)."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPRegressor
    from sklearn.preprocessing import StandardScaler

    from scinum.analysis import metrics
    from scinum.baselines.features import fit_slots, rows_of
    from scinum.datasets.directory import Dataset

    data = Dataset(dataset)
    train, test = list(data.records("train")), list(data.records("test"))
    slots = fit_slots(train)
    fit_rows, test_rows = rows_of(train, field, slots), rows_of(test, field, slots)
    if not len(fit_rows.y) or not len(test_rows.y):
        raise SystemExit(f"sample_curve: {dataset}: no number at {field!r} in the train or test split")
    scaler = StandardScaler().fit(np.nan_to_num(fit_rows.x))
    x, x_test = scaler.transform(np.nan_to_num(fit_rows.x)), scaler.transform(np.nan_to_num(test_rows.x))
    mean, std = fit_rows.y.mean(), fit_rows.y.std() or 1.0
    y = (fit_rows.y - mean) / std
    mlp = MLPRegressor(hidden_layer_sizes=hidden, learning_rate_init=1e-3, batch_size=8, random_state=seed, warm_start=True, max_iter=1)
    rows, done, epochs = [], 0, 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # one epoch per fit call, on purpose
        while epochs <= max_epochs:
            while done < epochs:
                mlp.fit(x, y)
                done += 1
            r2 = metrics.r2(test_rows.y, mlp.predict(x_test) * std + mean)
            rows.append({"epochs": epochs, "targets": epochs * len(y), "test_r2": r2})
            epochs *= 2
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", help="a scinum dataset directory (scinum build ...)")
    ap.add_argument("--field", required=True, help="the field to predict, a JSON path (e.g. description.planet0.e)")
    ap.add_argument("--epochs", type=int, default=64, help="the last epoch to report (powers of two up to it)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(f"MLP {(256, 256)} (Adam, lr 1e-3, batch 8) on the flattened records of {args.dataset}, target {args.field}")
    print("| epochs | targets seen | test R² |\n|---:|---:|---:|")
    for row in curve(args.dataset, args.field, args.epochs, args.seed):
        print(f"| {row['epochs']} | {row['targets']:,} | {row['test_r2']:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
