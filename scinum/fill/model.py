"""Masked inference: fill chosen numeric fields of JSON records with a trained model.

>>> model = scinum.load("model.ckpt", device="cpu")
>>> model.fill(record, mask=["description.stepsize", "description.planet0.*"])   # -> record
>>> model.fill_many(records, mask=["data[-1][*]"], batch_size=256)              # -> records
>>> result = model.predict(record, mask=["description.stepsize"])   # record + uncertainty
>>> result.record, result.predictions[0].value, result.predictions[0].uncertainty

Fields to fill are named by masks (field paths with ``.*``/``[*]`` wildcards and negative
indices, see :mod:`scinum.records.paths`); a mask naming an object or list fills every number under it.
A record may also mark fields in place with ``null``: a ``null`` at a numeric field the model
knows is a placeholder and gets filled (``null`` elsewhere is kept as it is).

All masked numbers of a record are predicted jointly, in one forward pass (the xVal paper's
evaluation protocol); ``mode="sequential"`` fills them one at a time in document order, each
conditioned on the ones already filled. Predictions are float64 in the record's units; unmasked
values come back bit-identical. Inputs and predictions outside their field's training range are
flagged (``Filled.outside``) and counted in an ``ExtrapolationWarning`` (:mod:`scinum.fill.extrapolation`).

Uncertainty (``FieldPrediction.uncertainty``, by head; ``kind`` says which):
``"mixture"`` — ``mean``, ``std``, component ``weights``/``means``/``stds`` and central
intervals ``interval_68``/``interval_95`` (record units); ``"digits"`` (FoNE) — ``digit_probs``
(one list of 10 per digit, most significant first), ``negative_prob`` and ``p_number`` (the
probability of the decoded number); ``"bits"`` (BitTokens) — ``bit_probs`` (64, MSB first);
``"tokens"`` (text encodings P10/P1000/B1999/FP15) — ``tokens`` (the predicted token strings),
``p_number`` (the product of their probabilities) and ``unparseable``; ``"none"`` — the scalar
xVal head estimates no uncertainty, and says so.

Encodings that spell a number in several tokens (the text baselines): masking it masks all of
them, and the prediction is the argmax token at each, parsed by the encoding. Tokens that do not form a number (e.g.
``['+', 'E-1', '602']``) are an *unparseable* prediction: the filled record gets ``null`` there
(never NaN, which is not JSON, and never a made-up number), ``FieldPrediction.value`` is None
and its uncertainty says ``"unparseable": true``. In ``mode="sequential"`` a parsed number's
tokens are what later predictions are conditioned on; an unparseable one stays masked.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import warnings
from typing import Any, Iterable, Sequence, cast

import numpy as np
import torch
from tqdm.auto import tqdm

from ..tokens.batch import Batch, expand_numbers, make_batch
from ..model.checkpoint import CheckpointMeta
from ..model.exported import load_model
from ..tokens.codec import Codec, Encoded
from ..errors import RecordError, ScinumError, shorten
from ..model.recalibration import recalibrated
from .batching import batch_threads, length_batches, no_gc, one_thread
from .extrapolation import ExtrapolationWarning, Tally, TrainingRanges
from .jobs import Job, JobMaker
from .atoms import TrainingAtoms
from .between_values import TrainingValues
from .line_support import widen
from .forked import can_fork, forked_slices
from .results import FieldPrediction, Filled, Prediction
from ..model.mlm import NumberMLM
from ..records.paths import format_path, parse_path, set_value

__all__ = ["load", "Model"]

_INTERVALS = (0.68, 0.95)
#: slices of records each of a fill's threads predicts in a phase (:meth:`Model.predict_many`):
#: fewer phases wait less on their slowest slice, more records are prepared at once
PHASE_SLICES = 4
#: slices from which a fill goes to forked processes by default (:meth:`Model.predict_many`):
#: 1,921 records and more at batch 256 on two threads. At 2,000 records processes filled
#: 1.14–1.30× threads' records in the benchmark's runs; at 512 and 1,024 level, their start and last slice costing what
#: they save (experiments/fill-throughput)
FORK_MIN_SLICES = 16
#: uncertainty entries that are locations / spreads in normalized units (converted to the record's)
_LOCATIONS, _SPREADS = ("means", "mean", "quantiles"), ("stds", "std")


def load(path: str | os.PathLike, device: str = "cpu", *, line_ok: bool = False) -> "Model":
    """Load a checkpoint written by ``scinum fit`` (nothing else is needed; no code runs).

    A member of a :class:`scinum.Regressor` whose network predicts what a least-squares line
    leaves (:mod:`scinum.fill.line`) is refused unless ``line_ok`` (``Regressor.load`` adds the
    line back): alone it would fill residuals, not the targets."""
    meta, net = load_model(path)
    line = (meta.run.get("estimator") or {}).get("line")
    if line and any(line.get("used", ())) and not line_ok:
        targets = ", ".join(t for t, u in zip(line["targets"], line["used"]) if u)
        raise ScinumError(
            f"{path}: a scinum.Regressor's network, trained on what a least-squares line leaves of {targets}; "
            f"alone it predicts that remainder: load it with scinum.Regressor.load({str(path)!r})"
        )
    model = Model(meta, net, device=check_device(device))
    model.source = str(path)
    return model


def check_device(device: str | torch.device) -> torch.device:
    """``device`` as a torch device that exists on this machine, else a one-line
    :class:`~scinum.errors.ScinumError` (``"bogus"``; ``"cuda"`` without a GPU)."""
    try:
        dev = torch.device(device)
        torch.empty(0, device=dev)
    except Exception as e:  # RuntimeError (a bad name), AssertionError (not compiled with CUDA)...
        first = (str(e).splitlines() or [""])[0][:200]
        raise ScinumError(
            f"device {shorten(str(device))!r} is not usable here ({type(e).__name__}: {first}); use cpu, or a device this machine has"
        ) from None
    return dev


class Model:
    """A trained model ready to fill records: the checkpoint's ``meta``, the ``model`` (eval
    mode, on ``device``), its ``encoding``, ``vocab``, ``codec`` and ``normalizer``.

    Records go in through :meth:`prepare` (:class:`~scinum.fill.jobs.JobMaker`), are predicted
    in batches by :meth:`run_jobs` / :meth:`predict_hidden`, and come back in record units."""

    def __init__(self, meta: CheckpointMeta, model: NumberMLM, device: str | torch.device = "cpu"):
        self.meta, self.device = meta, torch.device(device)
        self.source: str | None = None  # the checkpoint file it was loaded from (for messages)
        self.model = model.to(self.device).eval()
        self.encoding = meta.make_encoding()
        self.vocab, self.normalizer = meta.vocab, meta.normalizer
        self.codec = Codec(self.vocab, self.encoding)
        self.kind = model.head.uncertainty_kind
        self.context_length = meta.context_length
        #: field id -> the checkpoint's recalibration of its quantile levels (scinum.fill.calibration)
        self.recalibration = {
            self.vocab.field_index[f]: np.asarray(t, np.float64) for f, t in meta.calibration.items() if f in self.vocab.field_index
        }
        self._jobs = JobMaker(self.codec, self.normalizer, self.encoding, self.context_length)
        self.ranges = TrainingRanges(self.vocab, meta.run)
        #: fields that took a few values in training: a prediction between them widens (between_values)
        self.training_values = TrainingValues(self.vocab, meta.run)
        #: fields that pile up on one value in training: a prediction next to it goes onto it (atoms)
        self.training_atoms = TrainingAtoms(self.vocab, meta.run)

    # -- public API ---------------------------------------------------------------------------
    def fill(self, record: dict, mask: Sequence[str] = (), *, mode: str = "joint") -> dict:
        """``record`` with the numbers named by ``mask`` (and ``null`` placeholders) predicted."""
        return self.predict(record, mask, mode=mode).record

    def fill_many(
        self,
        records: Iterable[dict],
        mask: Sequence[str] = (),
        *,
        batch_size: int = 256,
        mode: str = "joint",
        progress: bool = False,
        processes: bool | None = None,
    ) -> list[dict]:
        """:meth:`fill` for many records, batched by length (``processes``: see :meth:`predict_many`)."""
        filled = self.predict_many(records, mask, batch_size=batch_size, mode=mode, progress=progress, processes=processes)
        return [f.record for f in filled]

    def predict(self, record: dict, mask: Sequence[str] = (), *, mode: str = "joint", intervals: Sequence[float] = _INTERVALS) -> Filled:
        """Like :meth:`fill`, returning the :class:`Filled` record with per-field uncertainty."""
        return self.predict_many([record], mask, mode=mode, intervals=intervals)[0]

    def predict_many(
        self,
        records: Iterable[dict],
        mask: Sequence[str] = (),
        *,
        batch_size: int = 256,
        mode: str = "joint",
        intervals: Sequence[float] = _INTERVALS,
        progress: bool = False,
        processes: bool | None = None,
    ) -> list[Filled]:
        """:meth:`predict` for many records. An error names the record (0-based) and JSON path.

        With several torch threads on the CPU, the records are cut into slices of ``batch_size /
        threads``, each prepared and predicted on one intra-op thread, so every path below gives
        the same floats. Records that make one slice are predicted on the calling thread. Of more:

        * ``processes`` (the default where the fill makes at least :data:`FORK_MIN_SLICES`
          slices, the system can ``fork`` (Linux) and this process may have children: not a
          ``multiprocessing.Pool`` worker, :func:`~scinum.fill.forked.can_fork`): this process
          and ``threads - 1`` forked copies of it take slices in turn
          (:func:`~scinum.fill.forked.forked_slices`); each prepares its own, so the Python of
          preparing runs on every core at once;
        * threads (``processes=False``, or elsewhere): this thread prepares a phase of records
          (:data:`PHASE_SLICES` slices for each thread), then the threads predict them while it
          waits: preparing (Python, which holds the GIL) never runs beside predicting, where it
          slowed both down (experiments/fill-throughput).

        ``processes=True`` forks wherever there are two slices or more (a :class:`ScinumError`
        where this process cannot fork). Python's cyclic garbage collector is paused meanwhile
        (:func:`~scinum.fill.batching.no_gc`)."""
        threads, size, _ = self.slicing(batch_size)
        with no_gc():
            if threads <= 1:
                jobs = [self.prepare(r, mask, index=i) for i, r in enumerate(records)]
                filled = self.run_jobs(jobs, batch_size=batch_size, mode=mode, intervals=intervals, progress=progress)
            else:
                if processes is None or processes:
                    records = records if isinstance(records, list) else list(records)
                    if processes is None:
                        processes = self.slicing(batch_size, len(records))[2]
                if processes:
                    filled = self._forked(cast(list, records), mask, size, threads, mode=mode, intervals=intervals, progress=progress)
                else:
                    filled = self._phased(records, mask, size, mode=mode, intervals=intervals, progress=progress)
        tally = Tally(self.ranges)
        for f in filled:
            if f.error is not None:
                raise f.error
            tally.add(f.outside)
        if tally:
            warnings.warn(tally.summary(), ExtrapolationWarning, stacklevel=2)
        return filled

    def slicing(self, batch_size: int, records: int = 0) -> tuple[int, int, bool]:
        """``(threads, size, fork)`` of a fill of ``records`` records: the torch threads it uses
        (1 off the CPU), the records of each slice (``batch_size / threads``) and whether its
        slices go to forked processes by default (:data:`FORK_MIN_SLICES` of them or more, where
        :func:`~scinum.fill.forked.can_fork`). The CLI cuts its chunks by the same rule."""
        threads = torch.get_num_threads() if self.device.type == "cpu" else 1
        size = max(1, -(-batch_size // threads))
        return threads, size, threads > 1 and -(-records // size) >= FORK_MIN_SLICES and can_fork()

    def _forked(
        self,
        records: list[dict],
        mask: Sequence[str],
        size: int,
        workers: int,
        *,
        mode: str,
        intervals: Sequence[float],
        progress: bool,
    ) -> list[Filled]:
        """:meth:`run_jobs` of slices of ``size`` records, prepared and predicted by this process
        and ``workers - 1`` forked copies (:func:`~scinum.fill.forked.forked_slices`)."""

        def work(k: int) -> list[Filled]:
            chunk = records[k * size : (k + 1) * size]
            jobs = [self.prepare(r, mask, index=i) for i, r in enumerate(chunk, k * size)]
            return self.run_jobs(jobs, batch_size=size, mode=mode, intervals=intervals)

        with tqdm(total=len(records), desc="fill", unit="record", disable=not progress or None, dynamic_ncols=True) as bar:
            return forked_slices(work, -(-len(records) // size), workers, lambda done: bar.update(done - bar.n))

    def _phased(
        self,
        records: Iterable[dict],
        mask: Sequence[str],
        size: int,
        *,
        mode: str,
        intervals: Sequence[float],
        progress: bool,
    ) -> list[Filled]:
        """:meth:`run_jobs` of slices of ``size`` records on the threads of
        :func:`~scinum.fill.batching.batch_threads`, a phase of :data:`PHASE_SLICES` slices a
        thread at a time: this thread prepares the phase, then waits while the threads predict
        it; a single slice on this thread. A record that fails to prepare raises (as when every
        record is prepared first), whatever the phases before it predicted."""
        numbered = enumerate(records)

        def take(n: int) -> list[Job]:
            return [self.prepare(r, mask, index=i) for i, r in itertools.islice(numbered, n)]

        jobs = take(size + 1)
        if len(jobs) <= size:  # one slice
            with one_thread():
                return self.run_jobs(jobs, batch_size=size, mode=mode, intervals=intervals, progress=progress)
        filled: list[Filled] = []
        bar = tqdm(desc="fill", unit="record", disable=not progress or None, dynamic_ncols=True)
        try:
            with batch_threads(self.device) as (pool, threads):
                assert pool is not None  # several threads on the CPU: predict_many's condition for this path
                phase = threads * PHASE_SLICES * size
                jobs += take(phase - len(jobs))
                while jobs:
                    slices = [jobs[k : k + size] for k in range(0, len(jobs), size)]
                    for part in pool.map(lambda s: self.run_jobs(s, batch_size=size, mode=mode, intervals=intervals), slices):
                        filled += part
                        bar.update(len(part))
                    jobs = take(phase)
        finally:
            bar.close()
        return filled

    # -- building blocks (the CLI uses them to report errors per record) --------------------
    def prepare(self, record: Any, mask: Sequence[str], *, index: int | None = None) -> Job:
        """Validate a record, resolve its masks and placeholders, encode it
        (:meth:`scinum.fill.jobs.JobMaker.make`: errors name ``index`` and the path)."""
        return self._jobs.make(record, mask, index=index)

    def run_jobs(
        self,
        jobs: Sequence[Job],
        *,
        batch_size: int = 256,
        mode: str = "joint",
        intervals: Sequence[float] = _INTERVALS,
        progress: bool = False,
        keep_nonfinite: bool = False,
    ) -> list[Filled]:
        """Predict prepared jobs; returns one :class:`Filled` per job, in order.

        A prediction that is not a finite number (a diverged model, or inputs so far outside the
        training range that the activations overflow) cannot be written into a JSON record:
        its :class:`Filled` gets ``error`` (a :class:`RecordError` naming the record, the path
        and, when one stands out, the input value that caused it) and keeps the record unfilled
        there. ``keep_nonfinite=True`` (evaluation) keeps such values as they are instead.
        Unparseable predictions (text encodings) are not errors: they are ``None`` (module
        docstring) and stay hidden in later rounds of ``mode="sequential"``."""
        if mode not in ("joint", "sequential"):
            raise ValueError(f"mode must be 'joint' or 'sequential', got {mode!r}")
        for c in intervals:
            if not 0 < c < 1:
                raise ValueError(f"interval coverage must be in (0, 1), got {c}")
        quantiles = [q for c in intervals for q in ((1 - c) / 2, (1 + c) / 2)]
        done: list[list[FieldPrediction]] = [[] for _ in jobs]
        values = [j.encoded.values.copy() for j in jobs]
        ids = [j.encoded.ids.copy() for j in jobs]
        k_tok = self.codec.tokens_per_number
        rounds = 1 if mode == "joint" else max((len(j.hidden) for j in jobs), default=0)
        bar = tqdm(total=len(jobs), desc="fill", unit="record", disable=not progress or None, dynamic_ncols=True)
        unknown: list[list[int]] = [[] for _ in jobs]  # unparseable slots stay hidden
        for r in range(rounds):
            active = [i for i, j in enumerate(jobs) if r < len(j.hidden)] if mode == "sequential" else list(range(len(jobs)))
            seqs, hides, targets = [], [], []
            for i in active:
                job = jobs[i]
                todo = job.hidden[r:] if mode == "sequential" else job.hidden
                hide = np.zeros(len(job.encoded), bool)
                hide[job.number_slots[todo + unknown[i] if unknown[i] else todo]] = True
                seqs.append(Encoded(ids[i], values[i], job.encoded.fields))
                hides.append(hide)
                targets.append(todo[:1] if mode == "sequential" else todo)
            preds = self.predict_hidden(seqs, hides, batch_size=batch_size, quantiles=quantiles)
            for i, pred, want in zip(active, preds, targets):
                job = jobs[i]
                at = {int(p): k for k, p in enumerate(pred.positions)}
                for slot in want:
                    pos = job.number_slots[slot]
                    k = at[int(pos)]
                    unc = {name: arr[k] for name, arr in pred.uncertainty.items()}
                    value: float | None = float(pred.values[k])
                    if unc.get("unparseable", False):
                        value = None
                        unknown[i].append(slot)
                    else:  # later rounds see the filled number
                        assert value is not None
                        values[i][pos : pos + k_tok] = value
                        self.codec.respell(ids[i], pos, value)
                    done[i].append(
                        FieldPrediction(format_path(job.paths[slot]), value, self._uncertainty(unc, intervals), bool(pred.says_number[k]))
                    )
            bar.update(sum(1 for i in active if len(jobs[i].hidden) == r + 1) if mode == "sequential" else len(active))
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
            out.append(Filled(rec, fps, self.kind, error, self.ranges.outside(job, fps)))
        return out

    @torch.no_grad()
    def predict_hidden(
        self, seqs: Sequence[Encoded], hide: Sequence[np.ndarray], *, batch_size: int = 64, quantiles: Sequence[float] = ()
    ) -> list[Prediction]:
        """Predict the numbers at the hidden positions of encoded sequences, in record units.

        ``seqs``: ``self.codec.encode(record)`` of each record (values at hidden positions are
        ignored — they may be NaN). ``hide``: one bool[L] per sequence, True at the number tokens
        to hide and predict (:func:`scinum.tokens.batch.hidden_positions` turns paths into one); a
        hidden token of a number hides all its tokens; True at a non-number token raises
        ``ValueError``. Sequences are batched by length; the result is in input order.
        ``quantiles`` (in (0, 1)) adds ``uncertainty["quantiles"]`` [M, Q] for heads with a
        distribution (mixture). Values and location/spread uncertainties (``means``, ``mean``,
        ``quantiles``, ``stds``, ``std``) are in the record's units; other entries
        (probabilities, weights, tokens) are unit-free."""
        if len(seqs) != len(hide):
            raise ValueError(f"{len(seqs)} sequences but {len(hide)} hide masks")
        masks = [np.asarray(h, bool) for h in hide]
        for k, (s, h) in enumerate(zip(seqs, masks)):
            if h.shape != s.ids.shape or (h & (s.fields < 0)).any():
                raise ValueError(f"sequence {k}: hide mask must be bool[{len(s)}] and True only at number tokens")
        masks = [expand_numbers(h, s.ids, self.codec) for s, h in zip(seqs, masks)]
        lengths = [len(s) for s in seqs]
        order = np.argsort(lengths, kind="stable").tolist()
        out: list[Prediction | None] = [None] * len(seqs)
        threads = torch.get_num_threads() if self.device.type == "cpu" else 1
        groups = length_batches(order, lengths, max(1, -(-batch_size // threads)))  # a batch is split among the threads

        def run(idx: list[int]) -> list[Prediction]:
            return self._predict_batch([seqs[i] for i in idx], [masks[i] for i in idx], quantiles)

        with contextlib.ExitStack() as stack:
            pool = None
            if len(groups) > 1:
                pool = stack.enter_context(batch_threads(self.device))[0]
            elif threads > 1:  # one batch: on this thread, as on one of the pool's
                stack.enter_context(one_thread())
            for idx, preds in zip(groups, map(run, groups) if pool is None else pool.map(run, groups)):
                for i, pred in zip(idx, preds):
                    out[i] = pred
        return out  # type: ignore[return-value]

    def _predict_batch(self, seqs: list[Encoded], masks: list[np.ndarray], quantiles: Sequence[float]) -> list[Prediction]:
        """:meth:`predict_hidden` of one batch (``masks`` already widened to whole numbers);
        runs in a worker thread of :func:`~scinum.fill.batching.batch_threads`."""
        k_tok = self.codec.tokens_per_number
        seqs = [Encoded(s.ids, np.where(h, 0.0, s.values), s.fields) for s, h in zip(seqs, masks)]
        with torch.inference_mode():
            batch = make_batch(
                seqs,
                masks,
                codec=self.codec,
                normalizer=self.normalizer,
                encoding=self.encoding,
                structure=self.model.trunk.cfg.positions == "structure",
                structure_tokens=self.model.trunk.cfg.structure_tokens,
                line=self.meta.line,
            )
            batch = cast(Batch, {k: cast(torch.Tensor, v).to(self.device) for k, v in batch.items()})
            levels = recalibrated(quantiles, batch["num_field"].cpu().numpy(), self.recalibration)
            res = self.model.predict(batch, torch.from_numpy(levels).to(self.device))
        first = slice(None, None, k_tok)  # the rows of a number's first token
        fids = batch["num_field"].cpu().numpy()[first]
        raw = res.values.cpu().numpy()[first]
        unc = {k: (v.double().cpu().numpy() if torch.is_tensor(v) else np.asarray(v))[first] for k, v in res.uncertainty.items()}
        if "num_offset" in batch:  # the network's part on top of the line (scinum.tokens.record_line)
            off, k_line = (batch[key].cpu().numpy()[first] for key in ("num_offset", "num_scale"))
            raw = off + k_line * raw
            for k in unc:
                shape = (-1,) + (1,) * (unc[k].ndim - 1)
                if k in _LOCATIONS:
                    unc[k] = off.reshape(shape) + k_line.reshape(shape) * unc[k]
                elif k in _SPREADS:
                    unc[k] = k_line.reshape(shape) * unc[k]
            unc = widen(unc, batch["num_held"].cpu().numpy()[first], quantiles)  # where the line was held
        values = self.normalizer.inverse(raw, fids)
        says = np.isin(res.token.cpu().numpy()[first], self.codec.start_token_ids)
        for k in unc:
            shape = (-1,) + (1,) * (unc[k].ndim - 1)
            if k in _LOCATIONS:
                unc[k] = self.normalizer.inverse(unc[k], np.broadcast_to(fids.reshape(shape), unc[k].shape))
            elif k in _SPREADS:
                unc[k] = unc[k] * self.normalizer.scale[fids].reshape(shape)
        unc = widen(unc, self.training_values.away(fids, values, unc.get("std")), quantiles)  # between training values
        shift = self.training_atoms.shift(fids, values, unc.get("std"))  # onto a value the field piles up on
        if shift.any():  # the distribution moves with the value and widens by the move (atoms)
            values = values + shift
            for k in unc:
                if k in _LOCATIONS:
                    unc[k] = unc[k] + shift.reshape((-1,) + (1,) * (unc[k].ndim - 1))
            unc = widen(unc, shift, quantiles)
        starts = np.concatenate([[0], np.cumsum(res.counts.cpu().numpy() // k_tok)]).tolist()
        return [
            Prediction(np.flatnonzero(h)[::k_tok], values[a:b], {k: v[a:b] for k, v in unc.items()}, says[a:b])
            for h, a, b in zip(masks, starts, starts[1:])
        ]

    def _nonfinite_error(self, job: Job, fp: FieldPrediction) -> RecordError:
        """The error for a non-finite prediction, naming the visible input that stands out most
        from the training range (|normalized value| > 1000) when there is one."""
        msg = f"the model's prediction is {fp.value!r}, not a finite number"
        visible = np.ones(len(job.paths), bool)
        visible[job.hidden] = False
        pos = job.number_slots[visible]
        if len(pos):
            norm = np.abs(self.normalizer.forward(job.encoded.values[pos], job.encoded.fields[pos]))
            k = int(np.argmax(norm))
            if norm[k] > 1e3:
                where = format_path(job.paths[int(np.flatnonzero(visible)[k])])
                msg += (
                    f": input {where} = {job.encoded.values[pos[k]]!r} is {norm[k]:.3g} after "
                    f"normalization, far outside the training range (the model's activations "
                    f"overflow)"
                )
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
