"""``scinum.Regressor``: a scikit-learn regressor over a DataFrame, an array, JSON records or a
JSONL file, trained and read by the same code as ``scinum build jsonl`` / ``fit`` / ``fill``.

>>> reg = scinum.Regressor(budget={"samples": 20000}, seed=0).fit(df.drop(columns="y"), df.y)
>>> reg.predict(df_new), reg.predict(df_new, return_std=True), reg.predict_quantiles(df_new, [0.1, 0.9])

``fit`` writes the rows as records (:mod:`scinum.datasets.tables`: one key per column, missing
cells left out) into a temporary directory, splits off a validation share (:data:`DEFAULTS`),
builds a dataset with :func:`scinum.datasets.jsonl.build` (``fields``: the targets), trains it with
:func:`scinum.train.fit.fit` under one run config (:attr:`Regressor.config_`, what ``scinum fit
--config`` would read) and keeps the trained :class:`scinum.fill.model.Model`; the directory is
then removed. It trains ``members`` such models (default 3), member ``i`` with seed ``seed +
1000·i`` and its own validation rows, and predicts with their ensemble
(:mod:`scinum.fill.ensemble`: the mean of their points, the mixture of their distributions). Each
member fills the targets with :meth:`scinum.fill.model.Model.predict_many`: each target is a
``null`` placeholder, and so is every missing input at a numeric field the model knows — hidden
from the model and predicted jointly (masked, not imputed). The default head is the Gaussian mixture with its means
sharing one location (a regression output, so predictions follow a trend past the training range: experiments/tabular.md),
so ``return_std``, :meth:`~Regressor.predict_quantiles` and :meth:`~Regressor.sample` read its calibrated distribution.

Targets: ``fit(X, y)`` adds ``y`` as key ``y`` (a 2-D ``y``: ``y0``, ``y1``...; a Series or
DataFrame: its names); ``fit(X, targets=[...])`` names columns of ``X`` (or JSON paths of its
records) to predict from the others. An array's columns are keys ``x0``, ``x1``...
"""

from __future__ import annotations

import copy
import json
import sys
import tempfile
from pathlib import Path
from typing import Any, Sequence

import numpy as np

try:
    from sklearn.base import BaseEstimator, RegressorMixin
    from sklearn.utils.validation import check_array, check_is_fitted, validate_data
except ImportError:
    raise ImportError("scinum.Regressor needs scikit-learn: pip install scinum[baselines]") from None

from .errors import ConfigError, RecordError, ScinumError
from .fill import ensemble
from .records.paths import format_path, get, parse_path
from .datasets.tables import MISSING, cell, check_target, column_path, frame_to_records, read_records, rows_to_records

__all__ = ["DEFAULTS", "Regressor", "split_records"]

#: the estimator's defaults in one place (tuned for small tables: a few hundred to a few thousand
#: rows of a few columns). ``budget``: records seen in training (or ``{"seconds": S}``);
#: ``val_fraction`` of the rows (at least ``min_val_records`` of them, else none) is held out for
#: early stopping and for calibrating the intervals; the sections are ``scinum fit``'s.
#: ``data.mask_fields_alone``: a record asked for its target shows every input (scikit-learn's
#: 10-input check table, training R² at this budget, seeds 0 and 1: 0.79, 0.78 with it; 0.14, 0.15
#: without); the un-normalized value path and the mixture's ``location: shared`` (its means a
#: regression output plus offsets) with ``mse_weight`` 1 let predictions follow a trend past the
#: training range (experiments/tabular.md, measured with all three); ``value_path: linear_mlp`` (the
#: MLPs read the residual stream too, not only the attention values) rather than ``linear``:
#: within 1.5× of the better standard model above the range on 10 of 16 bundled tables, against
#: 8 (experiments/tabular.md, *The MLPs on the residual stream*). ``members``: models trained (each on
#: the whole budget) whose ensemble predicts: 3 (experiments/tabular.md, *An ensemble of three*).
#: ``optim.curvature_weight`` 10 (:mod:`scinum.model.curvature`): within 1.5x above the range on 11 of 16 tables (10 without),
#: inside it on 14 (12 without), for about twice the training time (experiments/tabular.md, *A curvature penalty*).
DEFAULTS: dict[str, Any] = {
    "budget": {"samples": 20000},
    "members": 3,
    "val_fraction": 0.2,
    "min_val_records": 10,
    "encoding": {"name": "xval"},
    "head": {"kind": "mixture", "location": "shared", "mse_weight": 1.0},
    "model": {"d_model": 64, "n_layers": 2, "n_heads": 4, "value_path": "linear_mlp"},
    "optim": {"lr": 1e-3, "warmup_steps": 50, "curvature_weight": 10.0},
    "data": {"batch_size": 32, "mask_prob": 0.2, "mask_fields_prob": 0.5, "mask_fields_alone": True},
    "trainer": {
        "accelerator": "cpu",
        "devices": 1,
        "val_check_interval": 50,
        "limit_val_batches": 1.0,
        "early_stopping_patience": 5,
        "checkpoint_every_n_steps": 1000000,
        "progress_bar": False,
        "log_every_n_steps": 50,
    },
}
_SECTIONS = ("encoding", "head", "model", "optim", "data", "trainer")


def split_records(
    records: Sequence[dict], val_fraction: float, seed: int, min_val: int = DEFAULTS["min_val_records"]
) -> tuple[list[dict], list[dict]]:
    """``(train, val)``: ``round(n · val_fraction)`` records drawn by a generator seeded by
    ``seed`` go to validation (none when that is fewer than ``min_val``); order is kept."""
    n = len(records)
    n_val = int(round(n * val_fraction))
    if n_val < min_val or n - n_val < 1:
        return list(records), []
    val = np.zeros(n, bool)
    val[np.random.default_rng(seed).permutation(n)[:n_val]] = True
    return [r for r, v in zip(records, val) if not v], [r for r, v in zip(records, val) if v]


def _write_jsonl(path: Path, records: Sequence[dict]) -> None:
    path.write_text("".join(json.dumps(r, allow_nan=False) + "\n" for r in records))


class Regressor(RegressorMixin, BaseEstimator):
    """A masked-number transformer as a scikit-learn regressor (module docstring).

    ``budget``: ``{"samples": N}`` | ``{"seconds": S}`` | ``{"tokens": N}`` (None: the default's).
    ``encoding``, ``head``, ``model``, ``optim``, ``data``, ``trainer``: sections of the run
    config (:mod:`scinum.train.config`), merged over :data:`DEFAULTS`' (an encoding ``name`` or head
    ``kind`` other than the default's replaces the section). ``val_fraction``: the rows held
    out for early stopping and calibration. ``members``: how many models to train, each with its
    own seed and validation rows; they predict as an ensemble (None: the default's, 3).
    ``device``: where predictions run.

    Fitted attributes: ``targets_`` (JSON paths), ``models_`` (the members'
    :class:`scinum.fill.model.Model` s), ``config_`` (the first member's run config, paths left
    out; member ``i``'s seed is ``seed + 1000·i``), ``n_features_in_``/``feature_names_in_`` for
    arrays and DataFrames."""

    def __init__(
        self,
        budget: dict | None = None,
        seed: int = 0,
        encoding: dict | None = None,
        head: dict | None = None,
        model: dict | None = None,
        optim: dict | None = None,
        data: dict | None = None,
        trainer: dict | None = None,
        val_fraction: float | None = None,
        members: int | None = None,
        device: str = "cpu",
    ):
        self.budget, self.seed = budget, seed
        self.encoding, self.head, self.model, self.optim = encoding, head, model, optim
        self.data, self.trainer, self.val_fraction, self.device = data, trainer, val_fraction, device
        self.members = members

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.target_tags.multi_output = True
        return tags

    # -- inputs ---------------------------------------------------------------------------------
    def _rows(self, X: Any, reset: bool, targets: Sequence[str] = ()) -> tuple[list[dict], str]:
        """Records of ``X`` and its kind (``"frame"``, ``"array"``, ``"records"``); arrays and
        DataFrames are checked by scikit-learn (feature count and names against the fit; a
        DataFrame's ``targets`` columns are not features: they may be absent at prediction)."""
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
            return frame_to_records(X), "frame"
        A = validate_data(self, X, reset=reset, ensure_all_finite="allow-nan", dtype=np.float64)
        names = [f"x{j}" for j in range(A.shape[1])]
        return rows_to_records(names, [A[:, j].tolist() for j in range(A.shape[1])]), "array"

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
                c = cell(col[i], i, name)
                if c is not MISSING:
                    r[name] = c
        return [column_path(n) for n in names]

    # -- training -------------------------------------------------------------------------------
    def _config(self, data_dir: Path, out_dir: Path, targets: list[str], n_train: int, seed: int) -> dict:
        """The run config: :data:`DEFAULTS` <- the constructor's sections (the fit checks it)."""
        from .train.config import assemble_config

        over: dict[str, Any] = {"seed": seed, "out_dir": str(out_dir), "budget": copy.deepcopy(self.budget or DEFAULTS["budget"])}
        for section in _SECTIONS:
            base, given = copy.deepcopy(DEFAULTS[section]), getattr(self, section) or {}
            if not isinstance(given, dict):
                raise ConfigError(f"Regressor({section}={given!r}): must be a dict of {section}: options")
            swap = {"encoding": "name", "head": "kind"}.get(section)
            if swap and swap in given and given[swap] != base.get(swap):
                base = {}
            over[section] = {**base, **copy.deepcopy(given)}
        over["data"].update(path=str(data_dir), mask_fields=targets)
        over["data"]["batch_size"] = min(over["data"]["batch_size"], n_train)
        return assemble_config(None, over)

    def fit(self, X: Any, y: Any = None, targets: Sequence[str] | None = None) -> "Regressor":
        """Train on ``X`` (and ``y``, or ``targets`` naming columns/paths of ``X``); returns self."""
        members = DEFAULTS["members"] if self.members is None else self.members
        if not isinstance(members, (int, np.integer)) or isinstance(members, bool) or members < 1:
            raise ConfigError(f"Regressor(members={members!r}): must be a whole number of models, at least 1")
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
        if not split_records(records, self._val_share(), self.seed)[1]:  # how many: n's alone
            print(
                f"scinum.Regressor: {n} rows hold out fewer than {DEFAULTS['min_val_records']} "
                "for validation: no early stopping, intervals not recalibrated",
                file=sys.stderr,
            )
        fitted = [self._fit_member(records, paths, self.seed + 1000 * i) for i in range(int(members))]
        self.models_, self.targets_, self.input_kind_ = [m for m, _ in fitted], paths, kind
        self.config_ = fitted[0][1]
        for m in self.models_:
            m.meta.run["estimator"] = {"targets": paths, "input_kind": kind, "features": self._features()}
        return self

    def _val_share(self) -> float:
        return DEFAULTS["val_fraction"] if self.val_fraction is None else self.val_fraction

    def _fit_member(self, records: list[dict], paths: list[str], seed: int) -> tuple[Any, dict]:
        """One member trained with ``seed`` (its validation rows too): its Model and run config."""
        from .train.fit import fit as run_fit
        from .fill.model import load
        from .datasets.jsonl import build

        train, val = split_records(records, self._val_share(), seed)
        with tempfile.TemporaryDirectory(prefix="scinum-regressor-") as tmp:
            root = Path(tmp)
            _write_jsonl(root / "train.jsonl", train)
            if val:
                _write_jsonl(root / "val.jsonl", val)
            build(root / "data", train=[root / "train.jsonl"], val=[root / "val.jsonl"] if val else (), fields=paths, progress=False)
            config = self._config(root / "data", root / "run", paths, len(train), seed)
            if not val:
                config["trainer"]["limit_val_batches"] = 0
            model = load(run_fit(config), device=self.device)
        config["data"]["path"] = config["out_dir"] = None
        return model, config

    def _features(self) -> dict[str, Any]:
        names = getattr(self, "feature_names_in_", None)
        return {
            "n_features_in_": getattr(self, "n_features_in_", None),
            "feature_names_in_": None if names is None else [str(n) for n in names],
        }

    # -- predictions ----------------------------------------------------------------------------
    def _filled(self, model: Any, X: Any) -> list:
        """:class:`scinum.fill.results.Filled` of every row of ``X`` with its targets filled by
        one member ``model``."""
        import pandas as pd

        targets_in_x = [c for c in X.columns if column_path(str(c)) in self.targets_] if isinstance(X, pd.DataFrame) else []
        records, _ = self._rows(X, reset=False, targets=targets_in_x)
        known = set(model.vocab.fields)
        targets = [parse_path(t) for t in self.targets_]
        for i, r in enumerate(records):
            for t in targets:
                _put_null(r, t, i)
            if self.input_kind_ != "records":  # missing cells of known numeric columns: masked
                for name in self.feature_names_in_ if hasattr(self, "feature_names_in_") else [f"x{j}" for j in range(self.n_features_in_)]:
                    if str(name) not in r and column_path(str(name)) in known:
                        r[str(name)] = None
        return model.predict_many(records, batch_size=256)

    def _predictions(self, X: Any, need: str | None = None) -> list[np.ndarray]:
        """Per member, its :class:`~scinum.fill.results.FieldPrediction` s, object array [N, T];
        ``need``: the method that needs a distribution (checked before predicting)."""
        check_is_fitted(self, "models_")
        if need and not self.models_[0].model.head.has_distribution:
            raise ScinumError(
                f"Regressor.{need}: head {self.models_[0].meta.head.get('kind')!r} predicts no distribution; use head={{'kind': 'mixture'}}"
            )
        out = []
        for model in self.models_:
            filled = self._filled(model, X)
            a = np.empty((len(filled), len(self.targets_)), dtype=object)
            for i, f in enumerate(filled):
                by_path = {p.path: p for p in f.predictions}
                for j, t in enumerate(self.targets_):
                    a[i, j] = by_path[_concrete(f.record, parse_path(t))]
            out.append(a)
        return out

    def _shape(self, a: np.ndarray) -> np.ndarray:
        """[N, T, ...] -> [N, ...] for one target."""
        return a[:, 0] if len(self.targets_) == 1 else a

    def predict(self, X: Any, return_std: bool = False):
        """Point predictions float64[N] (one target) or [N, T] (the members' mean); with
        ``return_std``, also the predicted standard deviations of the same shape (a head with a
        distribution; the members' mixture's)."""
        point, std = ensemble.point_and_std(self._predictions(X, "return_std" if return_std else None), return_std)
        return (self._shape(point), self._shape(std)) if return_std else self._shape(point)

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
        preds = self._predictions(X, "sample")
        rng = np.random.default_rng(self.seed if random_state is None else random_state)
        return self._shape(ensemble.draws(self.models_, self.targets_, preds, int(n), rng))

    # -- persistence ----------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Export the fitted members (:mod:`scinum.share.export`: safetensors + config.json + card
        each): the first into ``path``, member ``i`` into ``path/member-i``, so that ``scinum fill
        path`` reads the first. The estimator's targets, inputs, parameters and member count
        travel in each one's ``run`` entry."""
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

        first = load(path, device=device)
        est = first.meta.run.get("estimator")
        if not est or "params" not in est:
            raise ScinumError(f"{path}: not a model saved by scinum.Regressor.save (no estimator entry)")
        reg = cls(**{**est["params"], "device": device})
        reg.models_ = [first, *(load(Path(path) / f"member-{i}", device=device) for i in range(1, est.get("members", 1)))]
        reg.targets_, reg.input_kind_ = list(est["targets"]), est["input_kind"]
        reg.config_ = None
        for k, v in est["features"].items():
            if v is not None:
                setattr(reg, k, np.asarray(v, dtype=object) if k == "feature_names_in_" else v)
        return reg


def _put_null(record: dict, path: tuple, index: int) -> None:
    """Set the target ``path`` of ``record`` to a ``null`` placeholder (its parent must exist)."""
    try:
        parent = get(record, path[:-1])
        if isinstance(path[-1], str) and isinstance(parent, dict) or isinstance(parent, list) and -len(parent) <= path[-1] < len(parent):
            parent[path[-1]] = None
            return
    except KeyError:
        pass
    raise RecordError("no place for the target (its parent object or list is missing)", record=index, path=format_path(path))


def _concrete(record: dict, path: tuple) -> str:
    """``path`` with negative list indices resolved against ``record``."""
    node, segs = record, []
    for s in path:
        if isinstance(s, int) and s < 0:
            s = len(node) + s
        segs.append(s)
        node = node[s]
    return format_path(segs)
