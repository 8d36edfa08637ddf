"""``scinum.Regressor``: a scikit-learn regressor over a DataFrame, an array, JSON records or a
JSONL file, trained and read by the same code as ``scinum build jsonl`` / ``fit`` / ``fill``.

>>> reg = scinum.Regressor(seed=0).fit(df.drop(columns="y"), df.y)
>>> reg.predict(df_new), reg.predict(df_new, return_std=True), reg.predict_quantiles(df_new, [0.1, 0.9])

``fit`` writes the rows as records (:mod:`scinum.datasets.tables`: one key per column, missing
cells left out) into a temporary directory, splits off a validation share (:data:`DEFAULTS`; the
parameters' defaults and checks: :mod:`scinum.regressor_params`),
builds a dataset with :func:`scinum.datasets.jsonl.build` (``fields``: the targets) once, trains
it with :func:`scinum.train.fit.fit` under one run config per member (:attr:`Regressor.config_`,
what ``scinum fit --config`` would read) and keeps the trained networks in memory (recalibrated
on the validation rows there) as :class:`scinum.fill.model.Model` s; the directory is then
removed. It trains ``members`` such models (default 1), member ``i`` with seed ``seed +
1000·i`` on the same training and validation rows, and predicts with their ensemble
(:mod:`scinum.fill.ensemble`: the mean of their points, the mixture of their distributions). Each
member fills the targets with :meth:`scinum.fill.model.Model.predict_many`: each target is a
``null`` placeholder, and so is every missing input at a numeric field the model knows — hidden
from the model and predicted jointly (masked, not imputed). Where a table's own edges say a
straight line extrapolates better than boosted trees, each target's network is trained on what a
least-squares line of the inputs leaves and predicts on top of it (``line_``:
:mod:`scinum.fill.line`). The default head is the Gaussian mixture with its means
sharing one location (a regression output, so predictions follow a trend past the training range: experiments/tabular.md),
so ``return_std``, :meth:`~Regressor.predict_quantiles` and :meth:`~Regressor.sample` read its calibrated distribution.

Targets: ``fit(X, y)`` adds ``y`` as key ``y`` (a 2-D ``y``: ``y0``, ``y1``...; a Series or
DataFrame: its names); ``fit(X, targets=[...])`` names columns of ``X`` (or JSON paths of its
records) to predict from the others. An array's columns are keys ``x0``, ``x1``...
"""

from __future__ import annotations

import copy
import sys
import warnings
import tempfile
from pathlib import Path
from typing import Any, Sequence

import numpy as np

try:
    from sklearn.base import BaseEstimator, RegressorMixin
    from sklearn.utils.validation import check_array, check_is_fitted, validate_data
except ImportError:
    raise ImportError("scinum.Regressor needs scikit-learn: pip install scinum[baselines]") from None

from .errors import RecordError, ScinumError
from .fill import ensemble
from .fill.line import Line, bends_clearly
from .fill.past_range import PastRange, moved
from .records.paths import parse_path
from .util.threads import torch_threads
from .datasets.tables import MISSING, cell, check_target, column_path, frame_to_records, read_records, rows_to_records
from .datasets.user_rows import at_user_rows, check_targets_present, concrete_path, count_cells, is_int, put_null, row_error, write_jsonl
from .regressor_params import (
    DEFAULTS,
    FLAT,
    SECTIONS,
    SEED_STRIDE,
    check_extrapolation,
    check_params,
    split_indices,
    split_records,
    schedule,
    training_samples,
)

__all__ = ["DEFAULTS", "Regressor", "split_records", "training_samples"]


class Regressor(RegressorMixin, BaseEstimator):
    """A masked-number transformer as a scikit-learn regressor (module docstring).

    Budget: ``samples``, the records each member sees in training: ``"auto"`` (the table's,
    :func:`training_samples` with ``epochs`` passes and :data:`DEFAULTS`' floor and cap) or a
    whole number; or ``seconds`` of training per member instead (then ``samples`` stays
    ``"auto"``). ``epochs``: ``"auto"``, 40 passes at most 100,000 cells a member, or where every
    target's rows bend clearly (``bends_``) 30 passes at most 600,000 cells and 80,000 records,
    in batches twice ``batch_size`` at twice ``lr`` where those passes exceed the floor of 625
    batches (:data:`DEFAULTS` ``bent``); a number: that many passes, at most 100,000 cells.
    ``lr``, ``d_model``, ``n_layers``, ``n_heads``, ``batch_size``: the run config's
    ``optim.lr``, ``model.*`` and ``data.batch_size``. ``members``: how many models to train,
    member ``i`` with seed ``seed + 1000·i`` on the same training and validation rows; they
    predict as an ensemble. ``val_fraction`` (0 <= v < 1): the rows held out for early stopping
    and calibration (0: none). ``patience``: validations without improvement before a member
    stops (0: no early stopping: the whole budget is trained and the last weights kept). ``line``: ``"auto"`` trains the
    network on what a least-squares line of the top-level numeric inputs leaves, for each target
    whose held-out edges the line predicts better than boosted trees (:mod:`scinum.fill.line`);
    ``True`` for every target, ``False`` for none. ``extrapolation``: how a row with an input
    outside its training range is predicted (:mod:`scinum.fill.past_range`): ``"auto"``, a
    target over a line as ``"edge"``, any other as ``"network"``; ``"network"``, the network's own
    mean; ``"edge"``, the network's prediction at the edge of the range (the line, if any, goes
    on, except in an input its own edges held: ``line_.held``, :func:`scinum.fill.line.held_edges`);
    ``"linear"``, the network's prediction at the edge continued along the edge's slope.
    Intervals widen by how far the mean moves from the prediction at the edge (a held input: by
    how far the line's trend would have moved it). It only changes
    how predictions are read, so ``set_params`` may change it after the fit. ``seed``: a whole
    number >= 0.
    ``device``: where predictions run (training runs where ``config={"trainer": {"accelerator":
    ...}}`` says: the CPU by default). ``n_jobs``: the CPU threads a member trains on, as
    scikit-learn counts jobs: ``None`` (the default) or 1, one thread, which at the default sizes
    costs little more time than every core on an idle machine and much less beside other work
    (threads wait for each other after every small operation), and gives the same numbers on any
    number of cores; ``k`` threads; ``-1``, torch's own setting (every physical core unless the
    process set another). ``config``: the run config's sections ``encoding``,
    ``head``, ``model``, ``optim``, ``data`` and ``trainer`` as nested dicts merged over the
    estimator's, e.g. ``{"model": {"value_path": "linear"}, "optim": {"curvature_weight": 0}}``
    (an encoding ``name`` or head ``kind`` other than the default's replaces the section); other
    top-level keys, the keys the flat parameters set and those the estimator sets from the table
    (``data.path``, ``data.mask_fields``, ``trainer.max_steps``) are refused.

    Fitted attributes: ``targets_`` (JSON paths), ``models_`` (the members'
    :class:`scinum.fill.model.Model` s), ``line_`` (the :class:`~scinum.fill.line.Line` under
    the network, or None), ``bends_`` (bool[T]: whether each target's rows bend clearly away from
    a straight line, :func:`scinum.fill.line.bends_clearly`; where every target's do, the fit
    trains without the curvature penalty unless ``config`` sets ``optim.curvature_weight``),
    ``config_`` (the first member's run config, paths left
    out), ``n_features_in_``/``feature_names_in_`` for arrays and DataFrames."""

    config_: dict[str, Any] | None  # fitted: the first member's run config (None for a loaded model)

    def __init__(
        self,
        samples: int | str = "auto",
        seconds: float | None = None,
        epochs: float | str = "auto",
        lr: float = DEFAULTS["optim"]["lr"],
        d_model: int = DEFAULTS["model"]["d_model"],
        n_layers: int = DEFAULTS["model"]["n_layers"],
        n_heads: int = DEFAULTS["model"]["n_heads"],
        members: int = DEFAULTS["members"],
        val_fraction: float = DEFAULTS["val_fraction"],
        batch_size: int = DEFAULTS["data"]["batch_size"],
        patience: int = DEFAULTS["patience"],
        line: str | bool = DEFAULTS["line"],
        extrapolation: str = DEFAULTS["extrapolation"],
        seed: int = 0,
        device: str = "cpu",
        n_jobs: int | None = DEFAULTS["n_jobs"],
        config: dict | None = None,
    ):
        self.samples, self.seconds, self.epochs, self.lr = samples, seconds, epochs, lr
        self.d_model, self.n_layers, self.n_heads, self.members = d_model, n_layers, n_heads, members
        self.val_fraction, self.batch_size, self.patience = val_fraction, batch_size, patience
        self.line, self.extrapolation = line, extrapolation
        self.seed, self.device, self.n_jobs, self.config = seed, device, n_jobs, config

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.target_tags.multi_output = True
        return tags

    # -- inputs ---------------------------------------------------------------------------------
    def _rows(self, X: Any, reset: bool, targets: Sequence[str] = ()) -> tuple[list[dict], str]:
        """Records of ``X`` and its kind (``"frame"``, ``"array"``, ``"records"``); arrays and
        DataFrames are checked by scikit-learn (feature count and names against the fit; a
        DataFrame's ``targets`` columns are not features: they may be absent at prediction).
        A bad cell's error names its row (from 1) and column."""
        import pandas as pd

        if isinstance(X, (str, Path)):
            return read_records(X), "records"
        if isinstance(X, (list, tuple)) and X and all(isinstance(r, dict) for r in X):
            return copy.deepcopy(list(X)), "records"
        if isinstance(X, pd.DataFrame):
            missing = [t for t in targets if t not in X.columns] if reset else []
            if missing:
                raise RecordError(f"target {missing[0]!r} is not a column of X (columns: {', '.join(map(str, X.columns))})")
            validate_data(self, X.drop(columns=[c for c in X.columns if c in targets]), reset=reset, skip_check_array=True)
            return frame_to_records(X, first_row=1), "frame"  # rows counted from 1, as a user counts them
        A = validate_data(self, X, reset=reset, ensure_all_finite="allow-nan", dtype=np.float64)
        names = [f"x{j}" for j in range(A.shape[1])]
        return rows_to_records(names, [A[:, j].tolist() for j in range(A.shape[1])], first_row=1), "array"

    def _add_y(self, records: list[dict], y: Any) -> list[str]:
        """Write ``y`` into ``records``; returns the target paths."""
        import pandas as pd

        if isinstance(y, pd.DataFrame):
            names = [str(c) for c in y.columns]
            cols = [y.iloc[:, j].astype(np.float64).tolist() for j in range(y.shape[1])]
        else:
            name = str(y.name) if isinstance(y, pd.Series) and y.name is not None else "y"
            Y = check_array(y, ensure_2d=False, ensure_all_finite="allow-nan", dtype=np.float64)
            if Y.ndim == 1:
                names, cols = [name], [Y.tolist()]
            else:
                names = [f"y{j}" for j in range(Y.shape[1])]
                cols = [Y[:, j].tolist() for j in range(Y.shape[1])]
        if len(cols[0]) != len(records):
            raise ValueError(f"X has {len(records)} rows but y has {len(cols[0])}")
        clash = [n for n in names if any(n in r for r in records)]
        if clash:
            raise RecordError(f"target name {clash[0]!r} is also a column of X: rename one of them")
        for i, r in enumerate(records):
            for name, col in zip(names, cols):
                c = cell(col[i], i + 1, name)
                if c is not MISSING:
                    r[name] = c
        return [column_path(n) for n in names]

    # -- training -------------------------------------------------------------------------------
    def _config(self, data_dir: Path, out_dir: Path, targets: list[str], n_train: int, cells: float, seed: int) -> dict:
        """The run config: :data:`DEFAULTS` <- ``config`` <- the flat parameters and the budget
        (the fit checks it)."""
        from .train.config import assemble_config

        batch, lr = self.batch_size, self.lr
        if self.seconds is not None:
            budget: dict[str, Any] = {"seconds": float(self.seconds)}
        elif self.samples == "auto":
            epochs, cap, most, batch, lr = schedule(self.epochs, getattr(self, "bends_", None), n_train, self.batch_size, self.lr)
            caps = (cap,) if most is None else (cap, most)
            budget = {"samples": training_samples(n_train, cells, epochs, DEFAULTS["min_steps"], batch, *caps)}
        else:
            budget = {"samples": int(self.samples)}
        over: dict[str, Any] = {"seed": seed, "out_dir": str(out_dir), "budget": budget}
        for section in SECTIONS:
            base, given = copy.deepcopy(DEFAULTS[section]), (self.config or {}).get(section, {})
            swap = {"encoding": "name", "head": "kind"}.get(section)
            if swap and swap in given and given[swap] != base.get(swap):
                base = {}
            over[section] = {**base, **copy.deepcopy(given)}
        for name, (section, key) in FLAT.items():
            over[section][key] = {"batch_size": batch, "lr": lr}.get(name, getattr(self, name))
        if getattr(self, "bends_", np.zeros(0, bool)).all() and "curvature_weight" not in (self.config or {}).get("optim", {}):
            over["optim"]["curvature_weight"] = 0.0  # the rows bend clearly: no prior towards straight (scinum.fill.line.bends_clearly)
        over["trainer"]["early_stopping_patience"] = self.patience or None
        over["data"].update(path=str(data_dir), mask_fields=targets)
        over["data"]["batch_size"] = min(over["data"]["batch_size"], n_train)
        return assemble_config(None, over)

    def fit(self, X: Any, y: Any = None, targets: Sequence[str] | None = None) -> "Regressor":
        """Train on ``X`` (and ``y``, or ``targets`` naming columns/paths of ``X``); returns self.

        A row whose target is missing (NaN, None, absent) is refused, naming the target and the
        rows (from 1); a bad cell names its row and column."""
        check_params(self)
        if isinstance(targets, str):
            targets = [targets]
        records, kind = self._rows(X, reset=True, targets=targets if y is None and targets else ())
        if y is not None:
            if targets is not None:
                raise ValueError("give either y or targets, not both")
            paths = self._add_y(records, y)
        elif targets:
            paths = [column_path(t) if kind != "records" else check_target(t) for t in targets]
        else:
            raise ValueError(
                "Regressor.fit requires y to be passed, but the target y is None: give y, or targets naming the columns of X to predict"
            )
        n = len(records)
        if n < 2:
            raise ValueError(f"Regressor.fit needs at least 2 samples: got {n} sample(s)")
        check_targets_present(records, paths, kind)
        train, val = split_indices(n, self.val_fraction, self.seed, DEFAULTS["min_val_records"])
        if not len(val):
            print(
                f"scinum.Regressor: {n} rows hold out fewer than {DEFAULTS['min_val_records']} "
                "for validation: no early stopping, intervals not recalibrated",
                file=sys.stderr,
            )
        line = Line.fit(records, paths, choose=isinstance(self.line, str)) if self.line else None
        self.line_ = line if line else None
        self.bends_ = bends_clearly(records, paths)
        trained = self.line_.residuals(records) if self.line_ else records
        self.models_, self.config_ = self._fit_members(trained, paths, train, val, kind)
        self.targets_, self.input_kind_ = paths, kind
        for m in self.models_:
            m.meta.run["estimator"] = {"targets": paths, "input_kind": kind, "features": self._features(), "bends": self.bends_.tolist()}
            if self.line_:
                m.meta.run["estimator"]["line"] = self.line_.to_dict()
                _ranges_of_targets(m, self.line_)
        return self

    def _fit_members(self, records: list[dict], paths: list[str], train: np.ndarray, val: np.ndarray, kind: str) -> tuple[list, dict]:
        """The members' Models (in memory) and the first one's run config: the dataset is built
        and tokenized once, in a temporary directory, and every member trains on it."""
        from .datasets.jsonl import build
        from .fill.calibration import recalibrate
        from .fill.model import Model, check_device
        from .train.fit import KeepNetwork, fit as run_fit

        device = check_device(self.device)
        rows = {"train": train, "val": val}
        with tempfile.TemporaryDirectory(prefix="scinum-regressor-") as tmp:
            root = Path(tmp)
            try:
                for split, idx in rows.items():
                    if len(idx):
                        write_jsonl(root / f"{split}.jsonl", [records[i] for i in idx])
                build(
                    root / "data",
                    train=[root / "train.jsonl"],
                    val=[root / "val.jsonl"] if len(val) else (),
                    fields=paths,
                    progress=False,
                )
                cells = float(np.mean([count_cells(records[i]) for i in train]))
                models, first = [], None
                for i in range(int(self.members)):
                    config = self._config(root / "data", root / f"run-{i}", paths, len(train), cells, self.seed + SEED_STRIDE * i)
                    if not len(val):
                        config["trainer"]["limit_val_batches"] = 0
                    calibrate, config["calibrate"] = config["calibrate"], False  # below, in memory
                    keep = KeepNetwork()
                    with torch_threads(1 if self.n_jobs is None else int(self.n_jobs)):
                        run_fit(config, callbacks=[keep])
                    meta, net = keep.take()
                    if calibrate and net.head.has_distribution and len(val):
                        recalibrate(meta, net, root / "data", "val")
                    models.append(Model(meta, net, device=device))
                    config["calibrate"] = calibrate
                    config["data"]["path"] = config["out_dir"] = None
                    first = first or config
            except ScinumError as e:
                raise at_user_rows(e, root, rows, kind) from None
        return models, first  # type: ignore[return-value]

    def _features(self) -> dict[str, Any]:
        names = getattr(self, "feature_names_in_", None)
        return {
            "n_features_in_": getattr(self, "n_features_in_", None),
            "feature_names_in_": None if names is None else [str(n) for n in names],
        }

    # -- predictions ----------------------------------------------------------------------------
    def _query_records(self, X: Any) -> list[dict]:
        """The rows of ``X`` as records with their targets ``null``: what each member fills."""
        import pandas as pd

        targets_in_x = [c for c in X.columns if column_path(str(c)) in self.targets_] if isinstance(X, pd.DataFrame) else []
        records, _ = self._rows(X, reset=False, targets=targets_in_x)
        known = set(self.models_[0].vocab.fields)
        targets = [parse_path(t) for t in self.targets_]
        names: list[str] = []
        if self.input_kind_ != "records":  # missing cells of known numeric columns: masked
            names = (
                [str(n) for n in self.feature_names_in_]
                if hasattr(self, "feature_names_in_")
                else [f"x{j}" for j in range(self.n_features_in_)]
            )
        for i, r in enumerate(records):
            for t in targets:
                put_null(r, t, i)
            for name in names:
                if name not in r and column_path(name) in known:
                    r[name] = None
        return records

    def _predictions(self, X: Any, need: str | None = None) -> list[np.ndarray]:
        """Per member, its :class:`~scinum.fill.results.FieldPrediction` s, object array [N, T]
        (past the input range as ``extrapolation`` says: :mod:`scinum.fill.past_range`);
        ``need``: the method that needs a distribution (checked before predicting). Inputs or
        predictions outside the training range are one :class:`ExtrapolationWarning` per call,
        whatever the number of members (they share their training rows, hence their ranges)."""
        from .fill.extrapolation import ExtrapolationWarning, Tally

        check_is_fitted(self, "models_")
        if need and not self.models_[0].model.head.has_distribution:
            raise ScinumError(
                f"Regressor.{need}: head {self.models_[0].meta.head.get('kind')!r} predicts no distribution; use head={{'kind': 'mixture'}}"
            )
        check_extrapolation(self.extrapolation)
        try:
            records = self._query_records(X)
        except RecordError as e:
            if e.record is None:
                raise
            raise row_error(e.reason, e.record, e.path, self.input_kind_) from None
        line = getattr(self, "line_", None)
        used = line.used if line is not None else np.zeros(len(self.targets_), bool)
        modes = ["edge" if u else "network" for u in used] if self.extrapolation == "auto" else self.extrapolation
        past = PastRange(records, self.models_[0].ranges, modes)
        if line is not None:  # the line at each row (held at an edge where its own edges held it), carried on, and at the edge
            base, trend, base_edge = line.predict(records, past.clipped), line.predict(records), line.predict(past.clipped)
        out: list[np.ndarray] = []
        outside: list[dict[str, list[str]]] = [{} for _ in records]
        for model in self.models_:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ExtrapolationWarning)
                try:
                    filled = model.predict_many(past.queries, batch_size=256, intervals=())
                except RecordError as e:
                    if e.record is None or e.record >= len(records):
                        raise
                    raise row_error(e.reason, e.record, e.path, self.input_kind_) from None
            a = np.empty((len(filled), len(self.targets_)), dtype=object)
            for i, f in enumerate(filled):
                by_path = {p.path: p for p in f.predictions}
                for j, t in enumerate(self.targets_):
                    a[i, j] = by_path[concrete_path(f.record, parse_path(t))]
            a = past.combine(a)
            for k in map(int, np.flatnonzero(used)):  # the line added back, intervals widened by its trend's move past the edge
                for row in range(len(a)):
                    if a[row, k].value is not None:
                        a[row, k] = moved(a[row, k], float(base[row, k]), float(trend[row, k] - base_edge[row, k]))
            for i, o in enumerate(outside):
                found = {
                    "inputs": list(dict.fromkeys([*filled[i].outside.get("inputs", []), *past.outside_inputs(i)])),
                    "predictions": [p.path for p in a[i] if model.ranges.beyond(p.path, p.value)],
                }
                for kind, paths in found.items():
                    new = [p for p in paths if p not in o.get(kind, [])]
                    if new:
                        o[kind] = [*o.get(kind, []), *new]
            out.append(a)
        tally = Tally(self.models_[0].ranges)
        for o in outside:
            tally.add(o)
        if tally:
            warnings.warn(tally.summary(), ExtrapolationWarning, stacklevel=3)
        return out

    def _shape(self, a: np.ndarray) -> np.ndarray:
        """[N, T, ...] -> [N, ...] for one target."""
        return a[:, 0] if len(self.targets_) == 1 else a

    def predict(self, X: Any, return_std: bool = False):
        """Point predictions float64[N] (one target) or [N, T] (the members' mean); with
        ``return_std``, also the predicted standard deviations of the same shape (a head with a
        distribution; the members' mixture's)."""
        point, std = ensemble.point_and_std(self._predictions(X, "return_std" if return_std else None), return_std)
        if not return_std:
            return self._shape(point)
        assert std is not None  # asked for
        return self._shape(point), self._shape(std)

    def predict_quantiles(self, X: Any, q: Sequence[float] | float):
        """Calibrated quantiles at levels ``q`` (in (0, 1)): float64[N, Q] (one target) or
        [N, T, Q]."""
        qs = np.atleast_1d(np.asarray(q, dtype=np.float64))
        if not np.all((qs > 0) & (qs < 1)):
            raise ValueError(f"quantile levels must be in (0, 1), got {qs.tolist()}")
        preds = self._predictions(X, "predict_quantiles")
        levels = np.broadcast_to(qs, (*preds[0].shape, len(qs)))
        return self._shape(ensemble.quantiles(self.models_, self.targets_, preds, levels))

    def sample(self, X: Any, n: int = 1, random_state: int | None = None):
        """``n`` draws of each target from the calibrated predicted distribution: float64[N, n]
        (one target) or [N, T, n]; ``random_state`` (default: the ``seed``) seeds them."""
        if not (is_int(n) and n >= 1):
            raise ValueError(f"Regressor.sample(n={n!r}): n must be a whole number of draws >= 1")
        if random_state is not None and not (is_int(random_state) and random_state >= 0):
            raise ValueError(f"Regressor.sample(random_state={random_state!r}): must be None or a whole number >= 0")
        preds = self._predictions(X, "sample")
        rng = np.random.default_rng(self.seed if random_state is None else random_state)
        return self._shape(ensemble.draws(self.models_, self.targets_, preds, int(n), rng))

    # -- persistence ----------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Export the fitted members (:mod:`scinum.share.export`: safetensors + config.json + card
        each): the first into ``path``, member ``i`` into ``path/member-i``, so that ``scinum fill
        path`` reads the first, unless its network learnt what a line leaves (``line_``): alone it
        would fill that remainder, so ``scinum fill`` refuses it and names :meth:`load`. The
        estimator's targets, inputs, parameters, member count and line travel in each one's
        ``run`` entry."""
        from .model.checkpoint import save_checkpoint
        from .share.export import export

        check_is_fitted(self, "models_")
        for i, model in enumerate(self.models_):
            model.meta.run["estimator"].update(params=self.get_params(), members=len(self.models_))
            with tempfile.TemporaryDirectory(prefix="scinum-regressor-") as tmp:
                ckpt = Path(tmp) / "model.ckpt"
                save_checkpoint(ckpt, model.model, model.meta)
                export(ckpt, Path(path) / f"member-{i}" if i else path)

    @classmethod
    def load(cls, path: str | Path, device: str = "cpu") -> "Regressor":
        """A fitted regressor from a directory written by :meth:`save`."""
        from .fill.model import load

        first = load(path, device=device, line_ok=True)
        est = first.meta.run.get("estimator")
        if not est or "params" not in est:
            raise ScinumError(f"{path}: not a model saved by scinum.Regressor.save (no estimator entry)")
        reg = cls(**{**est["params"], "device": device})
        reg.models_ = [first, *(load(Path(path) / f"member-{i}", device=device, line_ok=True) for i in range(1, est.get("members", 1)))]
        reg.targets_, reg.input_kind_ = list(est["targets"]), est["input_kind"]
        reg.line_ = Line.from_dict(est["line"]) if est.get("line") else None
        reg.bends_ = np.asarray(est.get("bends") or [False] * len(est["targets"]), bool)
        reg.config_ = None
        for k, v in est["features"].items():
            if v is not None:
                setattr(reg, k, np.asarray(v, dtype=object) if k == "feature_names_in_" else v)
        return reg


def _ranges_of_targets(model: Any, line: Line) -> None:
    """Give ``model`` the training range of each target over a line (its network saw only what
    the line leaves), so that a prediction past the targets' range is flagged as such."""
    from .fill.extrapolation import TrainingRanges
    from .records.paths import field_of

    ranges = model.meta.run.setdefault("train_ranges", {})
    for t, used, lo, hi in zip(line.targets, line.used, line.lo, line.hi):
        if used and field_of(t) in ranges:
            ranges[field_of(t)] = {**ranges[field_of(t)], "min": float(lo), "max": float(hi)}
    model.ranges = TrainingRanges(model.vocab, model.meta.run)
