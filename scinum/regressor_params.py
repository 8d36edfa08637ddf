"""The parameters of :class:`scinum.Regressor`: their defaults (:data:`DEFAULTS`, the one place
they are set), how they are checked (:func:`check_params`: a :class:`~scinum.errors.ConfigError`
naming the parameter), and the budget and the validation rows they give a table
(:func:`training_samples`, :func:`split_records`)."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .errors import ConfigError
from .fill.past_range import MODES
from .datasets.user_rows import is_int, is_real

__all__ = [
    "DEFAULTS",
    "FLAT",
    "OWN",
    "SECTIONS",
    "SEED_STRIDE",
    "check_extrapolation",
    "check_params",
    "schedule",
    "split_indices",
    "split_records",
    "training_samples",
]

#: the estimator's defaults, the one place they are set (the constructor's defaults read them).
#: The run-config sections (``encoding``, ``head``, ``model``, ``optim``, ``data``, ``trainer``:
#: what ``scinum fit --config`` reads) start from :mod:`scinum.train.config`'s defaults and change
#: what follows; each choice was made in the experiments on tables held out by range
#: (``recipes/tables_by_range.py``; the notebook: experiments/README.md and experiments/tabular.md).
#: ``data.mask_fields_alone`` (as the run config's default): a record asked for its target shows
#: every input; ``data.batch_size`` 32 and ``optim.lr`` 1e-3 (the run config: 64 and 1.4e-3); the
#: un-normalized value path and the mixture's ``location: shared`` (its means a regression output
#: plus offsets) with ``mse_weight`` 1 let predictions follow a trend past the training range;
#: ``value_path: linear_mlp``: the MLPs read the residual stream too, not only the attention
#: values; ``optim.curvature_weight`` (:mod:`scinum.model.curvature`): predictions kept straight
#: unless the data bend them (it roughly doubles the cost of a step), 0 where every target's rows
#: bend clearly away from a line (:func:`scinum.fill.line.bends_clearly`,
#: experiments/tables-bends) unless ``config`` sets it. ``members``: models
#: trained whose ensemble predicts (:mod:`scinum.fill.ensemble`): one since the line under the
#: network, which held the development tables' quality at a third of the fit time
#: (experiments/tables-fit-cheaper; three before). ``line`` ``"auto"``: a least-squares line under
#: the network for each target whose held-out edges it predicts better than boosted trees
#: (:mod:`scinum.fill.line`); ``extrapolation`` ``"auto"``: past the input range such a target
#: keeps its line (held at an input's edge where the line's own edges clearly say so:
#: experiments/tables-trend-or-edge) and holds the network's part at the edge, any other takes the network's own
#: mean, intervals widening by how far the mean moves from its value at the edge
#: (:mod:`scinum.fill.past_range`; experiments/tables-past-range, tables-linear-baseline).
#:
#: The budget follows the table (:func:`training_samples`): ``epochs`` passes over the training
#: rows, at least ``min_steps`` optimizer steps (of ``min(batch_size, rows)`` records: a table of
#: fewer rows than a batch takes the whole table a step, as many steps as any other, not 20,000
#: records; experiments/tables-fit-budget), and past that floor at most ``max_cells`` numbers and
#: strings (cells) seen per member, so that a long table costs no more than a bounded number of
#: cells (the cost of a record grows with its cells). The floor stands above the cap: a wide table
#: capped below 625 steps fitted a constant (experiments/tables-fit-budget). ``bent`` (the
#: constructor's ``epochs`` "auto", where every target's rows bend clearly:
#: :func:`scinum.fill.line.bends_clearly`): 30 passes, at most 600,000 cells and 80,000 records,
#: and where those passes exceed the floor, batches and learning rate ``batch_scale`` times the
#: given ones: a long table whose rows bend learns more from them; one whose rows do not stays
#: near its line, where more steps taught its network only noise (experiments/tables-large-budget,
#: experiments/tables-long-batches). ``val_fraction`` of the rows (at least
#: ``min_val_records`` of them, else none) is held out, once for every member, for early
#: stopping (validation every ``trainer.val_check_interval`` steps, stopping after ``patience``
#: validations without a lower loss; the lowest one's weights are kept) and for calibrating the
#: intervals. ``n_jobs`` None: a member trains on one CPU thread (at these sizes little slower than
#: every core on an idle machine, much faster beside other work, and the same numbers on any
#: number of cores: experiments/cpu-threads-under-load). Fit times:
#: experiments/regressor-fit-time/README.md.
DEFAULTS: dict[str, Any] = {
    "epochs": 40,
    "min_steps": 625,
    "max_cells": 100000,
    # a table whose every target's rows bend clearly (epochs "auto"): its passes, caps, and, where
    # its passes exceed the floor, batches and learning rate times batch_scale
    "bent": {"epochs": 30, "max_cells": 600000, "max_records": 80000, "batch_scale": 2},
    "members": 1,
    "val_fraction": 0.2,
    "min_val_records": 10,
    "patience": 5,
    "line": "auto",
    "extrapolation": "auto",
    "n_jobs": None,
    "encoding": {"name": "xval"},
    "head": {"kind": "mixture", "location": "shared", "mse_weight": 1.0},
    "model": {"d_model": 64, "n_layers": 2, "n_heads": 4, "value_path": "linear_mlp"},
    # no weight averaging (the run config averages at 0.99): not adopted for tables
    # (experiments/tables-weight-average-sweep)
    "optim": {"lr": 1e-3, "warmup_steps": 50, "curvature_weight": 10.0, "weight_average": 0.0},
    "data": {"batch_size": 32, "mask_prob": 0.2, "mask_fields_prob": 0.5, "mask_fields_alone": True},
    "trainer": {
        "accelerator": "cpu",
        "devices": 1,
        "val_check_interval": 50,
        "limit_val_batches": 1.0,
        "checkpoint_every_n_steps": 1000000,
        "progress_bar": False,
        "log_every_n_steps": 50,
    },
}
SECTIONS = ("encoding", "head", "model", "optim", "data", "trainer")
#: the constructor's flat parameters that set a key of a run-config section
FLAT = {
    "lr": ("optim", "lr"),
    "d_model": ("model", "d_model"),
    "n_layers": ("model", "n_layers"),
    "n_heads": ("model", "n_heads"),
    "batch_size": ("data", "batch_size"),
    "patience": ("trainer", "early_stopping_patience"),
}
#: run-config keys the estimator sets itself (``config=`` may not)
OWN = {("data", "path"), ("data", "mask_fields"), ("trainer", "max_steps")}
#: member ``i`` trains with seed ``seed + SEED_STRIDE · i``
SEED_STRIDE = 1000


def training_samples(
    n_train: int, cells: float, epochs: float, min_steps: int, batch_size: int, max_cells: int, max_records: int | None = None
) -> int:
    """Records each member sees (``budget.samples``) for ``n_train`` training rows of ``cells``
    numbers and strings per row on average, in batches of ``min(batch_size, n_train)``:
    ``epochs · n_train``, at most ``max_cells / cells`` (and ``max_records``), but never fewer
    than ``min_steps`` batches' worth (the floor stands above the caps) nor fewer than ``n_train``."""
    floor = min_steps * min(batch_size, n_train)
    capped = min(epochs * n_train, max_cells / max(cells, 1.0), max_records or math.inf)
    return int(max(capped, floor, n_train, 1))


def schedule(epochs: float | str, bends: Any, n_train: int, batch_size: int, lr: float) -> tuple[float, int, int | None, int, float]:
    """``(epochs, max_cells, max_records, batch_size, lr)`` of a fit with ``samples`` "auto" on
    ``n_train`` rows (``max_records`` None: no such cap). ``epochs`` "auto" takes :data:`DEFAULTS`'
    ``bent`` schedule where every target's rows bend clearly (``bends``: bool[T], None before
    they are tested), the plain passes and cap elsewhere; a number of ``epochs`` keeps the plain
    cap and the given batches."""
    if epochs != "auto" or bends is None or not len(bends) or not bool(np.all(bends)):
        return DEFAULTS["epochs"] if epochs == "auto" else float(epochs), DEFAULTS["max_cells"], None, batch_size, lr
    bent = DEFAULTS["bent"]
    scale = bent["batch_scale"] if n_train * bent["epochs"] > DEFAULTS["min_steps"] * batch_size else 1
    return bent["epochs"], bent["max_cells"], bent["max_records"], batch_size * scale, lr * scale


def split_indices(n: int, val_fraction: float, seed: int, min_val: int) -> tuple[np.ndarray, np.ndarray]:
    """Row indices ``(train, val)`` of :func:`split_records` (both ascending)."""
    n_val = int(round(n * val_fraction))
    if n_val < min_val or n - n_val < 1:
        return np.arange(n), np.arange(0)
    val = np.zeros(n, bool)
    val[np.random.default_rng(seed).permutation(n)[:n_val]] = True
    return np.flatnonzero(~val), np.flatnonzero(val)


def split_records(
    records: Sequence[dict], val_fraction: float, seed: int, min_val: int = DEFAULTS["min_val_records"]
) -> tuple[list[dict], list[dict]]:
    """``(train, val)``: ``round(n · val_fraction)`` records drawn by a generator seeded by
    ``seed`` go to validation (none when that is fewer than ``min_val``); order is kept."""
    train, val = split_indices(len(records), val_fraction, seed, min_val)
    return [records[i] for i in train], [records[i] for i in val]


def check_params(est: Any) -> None:
    """Every parameter of the :class:`scinum.Regressor` ``est`` checked before anything is read
    or trained: a :class:`ConfigError` naming the parameter and what it must be."""

    def bad(name: str, must: str) -> ConfigError:
        return ConfigError(f"Regressor({name}={getattr(est, name)!r}): must be {must}")

    s = est.samples
    if not (s == "auto" if isinstance(s, str) else is_int(s) and s > 0):
        raise bad("samples", '"auto" or a whole number of records > 0')
    if est.seconds is not None:
        if not (is_real(est.seconds) and math.isfinite(est.seconds) and est.seconds > 0):
            raise bad("seconds", "None or a number of seconds > 0")
        if s != "auto":
            raise ConfigError(f"Regressor(samples={s!r}, seconds={est.seconds!r}): give one budget, samples or seconds")
    e = est.epochs
    if not (e == "auto" if isinstance(e, str) else is_real(e) and math.isfinite(e) and e > 0):
        raise bad("epochs", '"auto" or a number of passes over the training rows > 0')
    if not (is_real(est.lr) and math.isfinite(est.lr) and est.lr > 0):
        raise bad("lr", "a learning rate > 0")
    for name in ("d_model", "n_layers", "n_heads", "members", "batch_size"):
        if not (is_int(getattr(est, name)) and getattr(est, name) >= 1):
            raise bad(name, "a whole number >= 1")
    check_extrapolation(est.extrapolation)
    if not (est.line == "auto" if isinstance(est.line, str) else isinstance(est.line, (bool, np.bool_))):
        raise bad("line", '"auto" (where the table\'s edges say a line extrapolates), True or False')
    if not (is_int(est.patience) and est.patience >= 0):
        raise bad("patience", "a whole number of validations >= 0 (0: no early stopping)")
    v = est.val_fraction
    if not (is_real(v) and math.isfinite(v) and 0 <= v < 1):
        raise bad("val_fraction", "a number with 0 <= val_fraction < 1 (the share of rows held out)")
    if not (is_int(est.seed) and 0 <= est.seed and est.seed + SEED_STRIDE * (est.members - 1) < 2**32):
        raise bad("seed", f"a whole number >= 0 (with {est.members} members, below 2**32 - {SEED_STRIDE * (est.members - 1)})")
    if not isinstance(est.device, str):
        raise bad("device", 'a device name such as "cpu" or "cuda"')
    if not (est.n_jobs is None or (is_int(est.n_jobs) and (est.n_jobs >= 1 or est.n_jobs == -1))):
        raise bad("n_jobs", "None or 1 (one CPU thread a member trains on), a whole number of threads >= 1, or -1 (torch's own setting)")
    if est.config is not None:
        if not isinstance(est.config, dict):
            raise bad("config", f"None or a dict of run-config sections ({', '.join(SECTIONS)})")
        for section, given in est.config.items():
            if section not in SECTIONS:
                raise ConfigError(
                    f"Regressor(config=...): unknown section {section!r} (sections: {', '.join(SECTIONS)}; "
                    "the budget is samples= or seconds=, the seed seed=)"
                )
            if not isinstance(given, dict):
                raise ConfigError(f"Regressor(config={{{section!r}: {given!r}}}): must be a dict of {section}: options")
            for key in given:
                flat = next((k for k, where in FLAT.items() if where == (section, key)), None)
                if flat:
                    raise ConfigError(f"Regressor(config=...): {section}.{key} is the parameter {flat}=; set it there")
                if (section, key) in OWN:
                    raise ConfigError(f"Regressor(config=...): {section}.{key} is set by the estimator from the table")


def check_extrapolation(extrapolation: Any) -> None:
    """``extrapolation`` checked at fit and at every prediction (``set_params`` may change it
    after the fit)."""
    if extrapolation != "auto" and extrapolation not in MODES:
        raise ConfigError(
            f"Regressor(extrapolation={extrapolation!r}): must be \"auto\" (\"edge\" over a line, else \"network\"), "
            "\"network\" (the network's own mean past the input range), \"edge\" (the network's part held at the edge) "
            "or \"linear\" (continued from the edge of the range)"
        )
