"""Masked inference: fill chosen numeric fields of JSON records with a trained model.

>>> model = scinum.load("model.ckpt", device="cpu")
>>> model.fill(record, mask=["description.stepsize", "description.planet0.*"])   # -> record
>>> model.fill_many(records, mask=["data[-1][*]"], batch_size=256)              # -> records
>>> result = model.predict(record, mask=["description.stepsize"])   # record + uncertainty
>>> result.record, result.predictions[0].value, result.predictions[0].uncertainty

Fields to fill are named by masks (field paths with ``.*``/``[*]`` wildcards and negative
indices, see :mod:`scinum.paths`); a mask naming an object or list fills every number under it.
A record may also mark fields in place with ``null``: a ``null`` at a numeric field the model
knows is a placeholder and gets filled (``null`` elsewhere is kept as it is).

All masked numbers of a record are predicted jointly, in one forward pass (the xVal paper's
evaluation protocol); ``mode="sequential"`` fills them one at a time in document order, each
conditioned on the ones already filled. Predictions are float64 in the record's units; unmasked
values come back bit-identical.

Uncertainty (``FieldPrediction.uncertainty``, by head; ``kind`` says which):
``"mixture"`` — ``mean``, ``std``, component ``weights``/``means``/``stds`` and central
intervals ``interval_68``/``interval_95`` (record units); ``"digits"`` (FoNE) — ``digit_probs``
(one list of 10 per digit, most significant first), ``negative_prob`` and ``p_number`` (the
probability of the decoded number); ``"bits"`` (BitTokens) — ``bit_probs`` (64, MSB first);
``"tokens"`` (text encodings P10/P1000/B1999/FP15) — ``tokens`` (the predicted token strings),
``p_number`` (the product of their probabilities) and ``unparseable``; ``"none"`` — the scalar
xVal head estimates no uncertainty, and says so.

Text encodings: a number is several tokens; masking it masks all of them, and the prediction is
the argmax token at each, parsed by the encoding. Tokens that do not form a number (e.g.
``['+', 'E-1', '602']``) are an *unparseable* prediction: the filled record gets ``null`` there
(never NaN, which is not JSON, and never a made-up number), ``FieldPrediction.value`` is None
and its uncertainty says ``"unparseable": true``. In ``mode="sequential"`` a parsed number's
tokens are what later predictions are conditioned on; an unparseable one stays masked.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np
import torch
from tqdm.auto import tqdm

from .checkpoint import TrainedModel, load_checkpoint
from .codec import _MAX_SAFE_INT, Encoded
from .errors import MalformedJSON, RecordError, ValueOutOfRange
from .paths import field_of, format_path, get, numbers_named, parse_path, set_value
from .record_shape import NULL, NotJSON, checked_copy, leaf_paths, null_paths
from .records import check_record

__all__ = ["load", "Model", "Filled", "FieldPrediction"]

_INTERVALS = (0.68, 0.95)


@dataclass
class FieldPrediction:
    """One filled number: its JSON ``path``, predicted ``value`` (float64, record units; None
    for an unparseable text-encoding prediction), the head's ``uncertainty`` (JSON-able; empty
    for the scalar head) and ``says_number``: whether the token head, too, predicts a number
    token there (the xVal paper's gate, §2.2; None for text encodings)."""

    path: str
    value: float | None
    uncertainty: dict[str, Any] = field(default_factory=dict)
    says_number: bool | None = None


@dataclass
class Filled:
    """A filled ``record`` and, beside it, one :class:`FieldPrediction` per filled number."""

    record: dict
    predictions: list[FieldPrediction]
    kind: str  # "mixture" | "digits" | "bits" | "tokens" | "none"
    #: set when a prediction of this record is not a finite number (see :meth:`Model.run_jobs`)
    error: RecordError | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"record": ..., "uncertainty_kind": ..., "predictions": {path: {value, ...}}}``."""
        return {"record": self.record, "uncertainty_kind": self.kind,
                "predictions": {p.path: {"value": p.value, **p.uncertainty} for p in self.predictions}}


@dataclass
class _Job:
    """A record prepared for prediction: placeholder-free copy, its encoding, hidden paths."""

    record: dict
    encoded: Encoded
    number_slots: np.ndarray  # int64[K]: (first) token position of each number, document order
    hidden: list[int]  # indices into number_slots, document order
    paths: list[tuple]
    index: int | None = None  # the record's number in its input, for error messages


_SHAPE_LIMIT = 4096  # record shapes (with their masks) a Model remembers


def load(path: str | os.PathLike, device: str = "cpu") -> "Model":
    """Load a checkpoint written by ``scinum fit`` (nothing else is needed; no code runs)."""
    return Model(load_checkpoint(path, device=device))


class Model:
    """A trained model ready to fill records. Wraps :class:`~scinum.checkpoint.TrainedModel`."""

    def __init__(self, trained: TrainedModel):
        self.trained = trained
        self.codec, self.vocab = trained.codec, trained.vocab
        self.kind = "tokens" if trained.text else trained.head.uncertainty_kind
        self.context_length = trained.meta.get("context_length")
        self._known_fields = set(self.vocab.fields)
        self._shapes: dict[tuple, tuple] = {}  # (record shape, mask) -> its structural part

    # -- public API ---------------------------------------------------------------------------
    def fill(self, record: dict, mask: Sequence[str] = (), *, mode: str = "joint") -> dict:
        """``record`` with the numbers named by ``mask`` (and ``null`` placeholders) predicted."""
        return self.predict(record, mask, mode=mode).record

    def fill_many(self, records: Iterable[dict], mask: Sequence[str] = (), *, batch_size: int = 256,
                  mode: str = "joint", progress: bool = False) -> list[dict]:
        """:meth:`fill` for many records, batched by length."""
        return [f.record for f in self.predict_many(records, mask, batch_size=batch_size, mode=mode,
                                                    progress=progress)]

    def predict(self, record: dict, mask: Sequence[str] = (), *, mode: str = "joint",
                intervals: Sequence[float] = _INTERVALS) -> Filled:
        """Like :meth:`fill`, returning the :class:`Filled` record with per-field uncertainty."""
        return self.predict_many([record], mask, mode=mode, intervals=intervals)[0]

    def predict_many(self, records: Iterable[dict], mask: Sequence[str] = (), *, batch_size: int = 256,
                     mode: str = "joint", intervals: Sequence[float] = _INTERVALS,
                     progress: bool = False) -> list[Filled]:
        """:meth:`predict` for many records. An error names the record (0-based) and JSON path."""
        jobs = [self.prepare(r, mask, index=i) for i, r in enumerate(records)]
        filled = self.run_jobs(jobs, batch_size=batch_size, mode=mode, intervals=intervals,
                               progress=progress)
        for f in filled:
            if f.error is not None:
                raise f.error
        return filled

    # -- building blocks (the CLI uses them to report errors per record) --------------------
    def prepare(self, record: Any, mask: Sequence[str], *, index: int | None = None) -> _Job:
        """Validate a record, resolve its masks and placeholders, encode it.

        Raises :class:`~scinum.errors.RecordError` (or a subclass) naming ``index`` and the path.
        """
        if isinstance(mask, str):
            mask = [mask]
        try:
            if not isinstance(record, dict):
                check_record(record)  # raises the located error
            shape: list = []
            leaves: list = []
            try:
                rec = checked_copy(record, 0, shape, leaves)
            except NotJSON:
                check_record(record)  # names the path of the offending value
                raise MalformedJSON("not a JSON object of finite numbers") from None
            key = (tuple(shape), tuple(mask))
            known = self._shapes.get(key)
            if known is not None and not any(type(v) is int and abs(v) > _MAX_SAFE_INT for v in leaves):
                enc, paths, hidden, filled_nulls, leaf_of_number = known
                for p in filled_nulls:
                    set_value(rec, p, 0.0)
                values = enc.values.copy()
                values[enc.fields >= 0] = [0.0 if (v := leaves[i]) is None else v for i in leaf_of_number]
                enc = Encoded(enc.ids, values, enc.fields)
            else:
                enc, paths, hidden, filled_nulls = self._resolve(rec, mask, bool(NULL in shape))
                if not self.trained.text and len(self._shapes) < _SHAPE_LIMIT:
                    leaf_index = {p: i for i, p in enumerate(leaf_paths(rec))}
                    self._shapes[key] = (enc, paths, hidden, filled_nulls,
                                         [leaf_index[p] for p in paths])
        except RecordError as e:
            raise e.located(record=index) from None
        if self.context_length is not None and len(enc) > self.context_length:
            raise RecordError(f"record is {len(enc)} tokens, longer than the model's context "
                              f"({self.context_length} tokens, the longest training record)",
                              record=index)
        slots = self.codec.number_starts(enc.ids)  # one per number (text: its first token)
        if not self.trained.text:  # values the encoding cannot take: an error naming the path
            visible = np.ones(len(paths), bool)
            visible[hidden] = False
            pos = slots[visible]
            norm = self.trained.normalizer.forward(enc.values[pos], enc.fields[pos])
            ok = self.trained.encoding.representable(torch.from_numpy(norm)).numpy()
            if not ok.all():
                k = int(np.flatnonzero(visible)[np.flatnonzero(~ok)[0]])
                raise ValueOutOfRange(f"value {enc.values[slots[k]]!r} is {norm[~ok][0]!r} after "
                                      f"normalization, outside the range of encoding "
                                      f"{self.trained.encoding.config()} "
                                      f"({self.trained.encoding.range_text()})",
                                      record=index, path=format_path(paths[k]))
        return _Job(rec, enc, slots, hidden, paths, index)

    def _resolve(self, rec: dict, mask: Sequence[str], has_nulls: bool):
        """The structural part of :meth:`prepare` (the same for every record of one shape):
        the hidden numbers (``mask`` and null placeholders at known fields, which get 0.0 in
        ``rec``), the encoding and the number paths -> ``(enc, paths, hidden, filled_nulls)``."""
        hidden_paths: dict[tuple, None] = {}
        for pattern in mask:
            for p in numbers_named(rec, pattern):
                hidden_paths.setdefault(p, None)
        for p in null_paths(rec) if has_nulls else ():
            if field_of(p) in self._known_fields:
                hidden_paths.setdefault(p, None)
        if not hidden_paths:
            raise RecordError("nothing to fill: give --mask paths or put null placeholders "
                              "at numeric fields")
        filled_nulls = [p for p in hidden_paths if get(rec, p) is None]
        for p in filled_nulls:
            set_value(rec, p, 0.0)
        enc, paths = self.codec.encode_with_paths(rec)
        slot_of = {p: k for k, p in enumerate(paths)}
        return enc, paths, sorted(slot_of[p] for p in hidden_paths), filled_nulls

    def run_jobs(self, jobs: Sequence[_Job], *, batch_size: int = 256, mode: str = "joint",
                 intervals: Sequence[float] = _INTERVALS, progress: bool = False,
                 keep_nonfinite: bool = False) -> list[Filled]:
        """Predict prepared jobs; returns one :class:`Filled` per job, in order.

        A prediction that is not a finite number (a diverged model, or inputs so far outside the
        training range that the activations overflow) cannot be written into a JSON record:
        its :class:`Filled` gets ``error`` (a :class:`RecordError` naming the record, the path
        and, when one stands out, the input value that caused it) and keeps the record unfilled
        there. ``keep_nonfinite=True`` (evaluation) keeps such values as they are instead.
        Text encodings' unparseable predictions are not errors: they are ``None`` (module
        docstring)."""
        if mode not in ("joint", "sequential"):
            raise ValueError(f"mode must be 'joint' or 'sequential', got {mode!r}")
        for c in intervals:
            if not 0 < c < 1:
                raise ValueError(f"interval coverage must be in (0, 1), got {c}")
        quantiles = [q for c in intervals for q in ((1 - c) / 2, (1 + c) / 2)] if self.kind == "mixture" else []
        done: list[list[FieldPrediction]] = [[] for _ in jobs]
        values = [j.encoded.values.copy() for j in jobs]
        ids = [j.encoded.ids.copy() if self.trained.text else j.encoded.ids for j in jobs]
        k_tok = self.codec.tokens_per_number
        rounds = 1 if mode == "joint" else max((len(j.hidden) for j in jobs), default=0)
        bar = tqdm(total=len(jobs), desc="fill", unit="record", disable=not progress or None,
                   dynamic_ncols=True)
        unknown: list[list[int]] = [[] for _ in jobs]  # text: unparseable slots stay hidden
        for r in range(rounds):
            active = [i for i, j in enumerate(jobs) if r < len(j.hidden)] if mode == "sequential" \
                else list(range(len(jobs)))
            seqs, hides, targets = [], [], []
            for i in active:
                job = jobs[i]
                todo = job.hidden[r:] if mode == "sequential" else job.hidden
                hide = np.zeros(len(job.encoded), bool)
                starts = job.number_slots[todo + unknown[i] if unknown[i] else todo]
                hide[starts if k_tok == 1 else (starts[:, None] + np.arange(k_tok)).ravel()] = True
                seqs.append(Encoded(ids[i], values[i], job.encoded.fields))
                hides.append(hide)
                targets.append(todo[:1] if mode == "sequential" else todo)
            preds = self.trained.predict(seqs, hides, batch_size=batch_size, quantiles=quantiles)
            for i, pred, want in zip(active, preds, targets):
                job = jobs[i]
                at = {int(p): k for k, p in enumerate(pred.positions)}
                for slot in want:
                    pos = job.number_slots[slot]
                    k = at[int(pos)]
                    value = float(pred.values[k])
                    values[i][pos:pos + k_tok] = value
                    unc = {name: arr[k] for name, arr in pred.uncertainty.items()}
                    if self.trained.text:  # later rounds see the parsed number's tokens
                        if value != value:
                            unknown[i].append(slot)
                        else:
                            ids[i][pos:pos + k_tok] = [self.vocab.index[t] for t in unc["tokens"]]
                    says = None if pred.says_number is None else bool(pred.says_number[k])
                    done[i].append(FieldPrediction(format_path(job.paths[slot]),
                                                   None if value != value and self.trained.text else value,
                                                   self._uncertainty(unc, intervals), says))
            bar.update(sum(1 for i in active if len(jobs[i].hidden) == r + 1) if mode == "sequential"
                       else len(active))
        bar.close()
        out = []
        for job, fps in zip(jobs, done):
            rec = job.record
            error = None
            for fp in fps:
                bad = fp.value is not None and not math.isfinite(fp.value)
                if bad and not keep_nonfinite:
                    error = error or self._nonfinite_error(job, fp)
                    continue
                set_value(rec, parse_path(fp.path), fp.value)
            out.append(Filled(rec, fps, self.kind, error))
        return out

    def _nonfinite_error(self, job: _Job, fp: FieldPrediction) -> RecordError:
        """The error for a non-finite prediction, naming the visible input that stands out most
        from the training range (|normalized value| > 1000) when there is one."""
        msg = f"the model's prediction is {fp.value!r}, not a finite number"
        visible = np.ones(len(job.paths), bool)
        visible[job.hidden] = False
        pos = job.number_slots[visible]
        if len(pos):
            norm = np.abs(self.trained.normalizer.forward(job.encoded.values[pos], job.encoded.fields[pos]))
            k = int(np.argmax(norm))
            if norm[k] > 1e3:
                where = format_path(job.paths[int(np.flatnonzero(visible)[k])])
                msg += (f": input {where} = {job.encoded.values[pos[k]]!r} is {norm[k]:.3g} after "
                        f"normalization, far outside the training range (the model's activations "
                        f"overflow)")
        return RecordError(msg, record=job.index, path=fp.path)

    # -- helpers --------------------------------------------------------------------------------
    def _uncertainty(self, unc: dict[str, np.ndarray], intervals: Sequence[float]) -> dict[str, Any]:
        """JSON-able uncertainty of one number (intervals from the mixture's quantiles)."""
        out: dict[str, Any] = {}
        for name, arr in unc.items():
            if name == "quantiles":
                for c, (lo, hi) in zip(intervals, np.asarray(arr).reshape(-1, 2)):
                    out[f"interval_{round(c * 100)}"] = [float(lo), float(hi)]
            else:
                out[name] = np.asarray(arr).tolist()
        return out
