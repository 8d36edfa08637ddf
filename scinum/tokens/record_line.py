"""A least-squares line under the network for chosen fields of JSON records.

A network trained on a field that takes a few distinct values (planets' step size: four) learns
to tell them apart and predicts near the nearest one between them, where a straight line of the
record's other numbers carries on (experiments/planets-record-line). With a line, the network
predicts what the line leaves: for a field ``f`` of the run config's ``line`` list,

    value = line_f(the numbers shown) + scale_f · network,

and is trained on ``(value - line_f) / scale_f``.

**The line** of a field is ridge regression, fitted once on the training records before
training, of the field on every other number of the record: each number is an input by its
concrete JSON path (``data[3][1][0]``: the field's path with its list indices), standardized;
a path a record lacks (a layout with fewer planets) reads 0 and is marked by an indicator; the
penalty is chosen by leave-one-out error over :data:`ALPHAS` — the ridge baseline of
:mod:`scinum.baselines.regressors`, in numpy. ``scale_f`` is the root-mean-square of its
leave-one-out residuals, so the network's targets have about unit spread.

**Held where it has no support.** Far from the training records a line of nearly collinear
inputs runs away: on planets data an orbit past the training semi-major axes got a₁'s line at 4.6
(true 1.145; experiments/planets-line-dt-a1). Such a record is told by its leverage
``h = dᵀ(ZᵀZ + αI)⁻¹d`` (``d`` its centred design row): above every training record's (the
line's ``support``), the data the line was fitted on say nothing there, and the line is held
within the values it took on the training records (its ``span``), as boosted trees hold a
prediction at the edge. The move is returned beside the value, and a fill widens its prediction
by it (:mod:`scinum.fill.line_support`). A training record is never held: its leverage is at most
the support, and hiding inputs only lowers it (a Schur complement).

**It reads what the network reads.** A number hidden from the model (masked in training, asked
in fill) is not an input of the line either: for a record with the inputs ``H`` hidden, the line
is the ridge regression refitted on the training records without the inputs ``H`` — exactly, by
the block inverse of the fitted system (with ``M = (ZᵀZ + αI)⁻¹`` and the weights ``w``, the
refit's weights on the others are ``w_S − M_SH M_HH⁻¹ w_H``), at the cost of a ``|H| × |H|``
solve. Trajectory coordinates are nearly collinear, so the full line leans on cancellations
between them; filling a hidden one with its mean instead would move the planets step size's line
by ~100 (its values are 0.2-0.8).

A field must hold at most one number per record. At most :data:`MAX_SLOTS` input paths are read
(the most frequent) and :data:`MAX_ROWS` training records.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable, Sequence

import numpy as np

from ..errors import ConfigError
from .codec import Codec, Encoded
from .structure import DEPTH, list_indices

__all__ = ["ALPHAS", "MAX_ROWS", "MAX_SLOTS", "FieldLine", "RecordLine", "slot_names"]

#: the ridge penalties tried (on the standardized inputs), as scinum.baselines' ridge
ALPHAS = np.logspace(-8, 6, 57)
#: the line is fitted on at most this many training records (the first ones) ...
MAX_ROWS = 20_000
#: ... and reads at most this many input paths (the most frequent; ties: first seen): its
#: system (inputs + indicators)² is stored in the checkpoint
MAX_SLOTS = 256
_STAR = re.compile(r"\[\*\]")
_MEMO_LIMIT = 4096


def slot_names(seq: Encoded, codec: Codec) -> list[str | None]:
    """The concrete JSON path of each number of ``seq`` (at its first token, in token order):
    its field with the list indices filled in (``data[*][*][*]`` -> ``data[3][1][0]``); None for
    a number inside more than :data:`~scinum.tokens.structure.DEPTH` lists."""
    return [name for name, _ in _named(seq, codec)]


def _named(seq: Encoded, codec: Codec) -> list[tuple[str | None, str]]:
    """(:func:`slot_names`' name, its field) of each number of ``seq``."""
    starts = codec.number_starts(seq.ids)
    where = list_indices(seq.ids, codec)
    out: list[tuple[str | None, str]] = []
    for t in starts:
        field = codec.vocab.fields[int(seq.fields[t])]
        depth = field.count("[*]")
        if depth > DEPTH:
            out.append((None, field))
            continue
        idx = iter(int(i) for i in where[t, :depth])
        out.append((_STAR.sub(lambda _: f"[{next(idx)}]", field), field))
    return out


def _ridge(z: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Ridge of ``y`` float64[N] on the design ``z`` float64[N, P] with an intercept, centred:
    (weights [P], ``M = (ZcᵀZc + αI)⁻¹`` [P, P], the penalty α chosen by leave-one-out error over
    :data:`ALPHAS`, the RMS of the leave-one-out residuals at it)."""
    zc, yc = z - z.mean(0), y - y.mean()
    u, s, vt = np.linalg.svd(zc, full_matrices=False)
    uy = u.T @ yc
    best = (np.inf, 0.0)
    for alpha in ALPHAS:
        shrink = s**2 / (s**2 + alpha)
        lever = (u**2) @ shrink + 1.0 / len(y)  # the hat matrix's diagonal, intercept included
        loo = (yc - u @ (shrink * uy)) / np.maximum(1.0 - lever, 1e-12)
        err = float(np.mean(loo**2))
        if err < best[0]:
            best = (err, float(alpha))
    err, alpha = best
    w = vt.T @ ((s / (s**2 + alpha)) * uy)
    # directions the rows never span (P > rank) get 1/alpha: the penalty alone holds them
    m = (vt.T / (s**2 + alpha)) @ vt + (np.eye(z.shape[1]) - vt.T @ vt) / alpha
    return w, m, alpha, float(np.sqrt(err))


class FieldLine:
    """One field's line (module docstring) over the slots of its :class:`RecordLine`: the design
    reads ``inputs`` (slot indices; standardized by ``mean``, ``sd``) then an indicator for each
    of ``marked`` (slot indices absent from some training record); ``centre`` [P] the design's
    training mean, ``w`` [P] the weights, ``m`` [P, P] the system's inverse, ``y_mean`` the
    field's training mean, ``scale`` the network's unit (record units), ``alpha`` the penalty;
    ``span`` (lo, hi) the line's values on the training records (record units) and ``support``
    their largest leverage (module docstring; both None in lines saved before them: never held)."""

    def __init__(
        self,
        inputs: Any,
        mean: Any,
        sd: Any,
        marked: Any,
        centre: Any,
        w: Any,
        m: Any,
        y_mean: float,
        scale: float,
        alpha: float,
        span: Sequence[float] | None = None,
        support: float | None = None,
    ):
        self.inputs, self.marked = np.asarray(inputs, np.int64).reshape(-1), np.asarray(marked, np.int64).reshape(-1)
        self.mean, self.sd = np.asarray(mean, np.float64).reshape(-1), np.asarray(sd, np.float64).reshape(-1)
        self.centre, self.w = np.asarray(centre, np.float64).reshape(-1), np.asarray(w, np.float64).reshape(-1)
        p = len(self.inputs) + len(self.marked)
        self.m = np.asarray(m, np.float64).reshape(p, p)
        self.y_mean, self.scale, self.alpha = float(y_mean), float(scale), float(alpha)
        self.span: tuple[float, float] | None = None
        self.support: float | None = None
        if (span is None) != (support is None):
            raise ValueError("record line: a span without a support, or a support without a span")
        if span is not None and support is not None:
            lo, hi, most = float(span[0]), float(span[1]), float(support)
            if not (np.isfinite([lo, hi, most]).all() and lo <= hi and most >= 0):
                raise ValueError(f"record line: span {list(span)} and support {support} must be finite, ordered and >= 0")
            self.span, self.support = (lo, hi), most
        if not (len(self.mean) == len(self.sd) == len(self.inputs) and len(self.centre) == len(self.w) == p):
            raise ValueError(
                f"record line: a field of {len(self.inputs)} inputs and {len(self.marked)} indicators, but weights of other lengths"
            )
        numbers = (self.mean, self.sd, self.centre, self.w, self.m, [self.y_mean])
        if not (all(np.isfinite(v).all() for v in numbers) and self.scale > 0 and (self.sd > 0).all()):
            raise ValueError("record line: weights must be finite and scales > 0")

    def columns(self, n_slots: int) -> tuple[np.ndarray, np.ndarray]:
        """int64[n_slots] each: every slot's value column and indicator column in the design (-1: none)."""
        value, mark = np.full(n_slots, -1, np.int64), np.full(n_slots, -1, np.int64)
        value[self.inputs] = np.arange(len(self.inputs))
        mark[self.marked] = len(self.inputs) + np.arange(len(self.marked))
        return value, mark

    def to_dict(self) -> dict[str, Any]:
        return {
            "inputs": self.inputs.tolist(),
            "mean": self.mean.tolist(),
            "sd": self.sd.tolist(),
            "marked": self.marked.tolist(),
            "centre": self.centre.tolist(),
            "w": self.w.tolist(),
            "m": self.m.tolist(),
            "y_mean": self.y_mean,
            "scale": self.scale,
            "alpha": self.alpha,
            **({} if self.span is None else {"span": list(self.span), "support": self.support}),
        }


class RecordLine:
    """The lines of ``fields`` (names of the vocabulary's numeric fields, :class:`FieldLine`
    each: ``lines``) on the numbers at ``slots`` (concrete JSON paths). ``scale`` float64[F]:
    each field's unit."""

    def __init__(self, fields: Sequence[str], slots: Sequence[str], lines: Sequence[FieldLine]):
        self.fields, self.slots, self.lines = list(fields), list(slots), list(lines)
        if len(self.lines) != len(self.fields):
            raise ValueError(f"record line: {len(self.fields)} fields but {len(self.lines)} lines")
        for line in self.lines:
            if len(line.inputs) and not (0 <= line.inputs.min() and line.inputs.max() < len(self.slots)):
                raise ValueError(f"record line: an input slot outside the {len(self.slots)} slots")
            if len(line.marked) and not (0 <= line.marked.min() and line.marked.max() < len(self.slots)):
                raise ValueError(f"record line: a marked slot outside the {len(self.slots)} slots")
        self.scale = np.array([line.scale for line in self.lines], np.float64)
        self.index = {s: j for j, s in enumerate(self.slots)}
        self._columns = [line.columns(len(self.slots)) for line in self.lines]
        self._memo: dict[bytes, np.ndarray] = {}

    # -- fitting ----------------------------------------------------------------------------------
    @classmethod
    def fit(cls, seqs: Iterable[Encoded], codec: Codec, fields: Sequence[str]) -> "RecordLine":
        """Fit a line for each of ``fields`` on the first :data:`MAX_ROWS` records ``seqs``
        (module docstring). Raises :class:`~scinum.errors.ConfigError` for a field the
        vocabulary lacks, one with more than one number in a record, or one with fewer than two
        records that hold it."""
        vocab_fields = codec.vocab.fields
        unknown = [f for f in fields if f not in vocab_fields]
        if unknown:
            raise ConfigError(f"line: {unknown} are not numeric fields of the training records (they have: {', '.join(vocab_fields)})")
        rows: list[dict[str, float]] = []
        field_of: dict[str, str] = {}
        for k, seq in enumerate(seqs):
            if k >= MAX_ROWS:
                break
            row: dict[str, float] = {}
            per_field: Counter[str] = Counter()
            for (name, field), t in zip(_named(seq, codec), codec.number_starts(seq.ids)):
                per_field[field] += 1
                if name is not None:
                    row[name] = float(seq.values[t])
                    field_of[name] = field
            several = [f for f in fields if per_field[f] > 1]
            if several:
                raise ConfigError(
                    f"line: field {several[0]!r} holds {per_field[several[0]]} numbers in training record {k}; "
                    f"a line predicts a field of one number a record"
                )
            rows.append(row)
        counts = Counter(name for row in rows for name in row)
        own = [name for name in counts if field_of[name] in fields]  # every line's target is kept
        slots = own + [name for name, _ in counts.most_common() if name not in own][:MAX_SLOTS]
        x = np.full((len(rows), len(slots)), np.nan)
        col = {s: j for j, s in enumerate(slots)}
        for i, row in enumerate(rows):
            for name, v in row.items():
                if name in col:
                    x[i, col[name]] = v
        lines = []
        for f in fields:
            target = np.array([field_of[s] == f for s in slots], bool)
            have = ~np.isnan(x[:, target]).all(1) if target.any() else np.zeros(len(rows), bool)
            if have.sum() < 2:
                raise ConfigError(f"line: field {f!r} is in {int(have.sum())} training record(s); a line needs at least 2")
            y = np.nanmax(x[have][:, target], axis=1)  # its one number in each record
            lines.append(cls._fit_one(x[have], y, ~target))
        return cls(fields, slots, lines)

    @staticmethod
    def _fit_one(x: np.ndarray, y: np.ndarray, allowed: np.ndarray) -> FieldLine:
        """One field's line from ``x`` float64[N, S] (NaN: absent) and its values ``y`` [N],
        reading the slots ``allowed`` bool[S] that some row holds."""
        inputs = np.flatnonzero(allowed & ~np.isnan(x).all(0))
        xs = x[:, inputs]
        mean, sd = np.nanmean(xs, 0), np.nanstd(xs, 0)
        sd = np.where(np.isfinite(sd) & (sd > 0), sd, 1.0)
        absent = np.isnan(xs)
        marked = absent.any(0)
        z = np.hstack([np.where(absent, 0.0, (xs - mean) / sd), absent[:, marked].astype(np.float64)])
        w, m, alpha, rms = _ridge(z, y)
        floor = 1e-9 * max(float(np.std(y)), float(np.abs(y).max()), 1e-300)
        zc = z - z.mean(0)
        fitted = y.mean() + zc @ w  # each training record's line, every other number shown
        lever = np.einsum("ij,jk,ik->i", zc, m, zc)
        span, support = (float(fitted.min()), float(fitted.max())), float(lever.max())
        return FieldLine(inputs, mean, sd, inputs[marked], z.mean(0), w, m, float(y.mean()), max(rms, floor), alpha, span, support)

    # -- applying ---------------------------------------------------------------------------------
    def slot_index(self, seq: Encoded, codec: Codec) -> np.ndarray:
        """int64[number of numbers]: each number's slot (-1: read by no line); records of one
        token sequence share one result."""
        key = seq.ids.tobytes()
        out = self._memo.get(key)
        if out is None:
            out = np.array([self.index.get(name, -1) if name is not None else -1 for name in slot_names(seq, codec)], np.int64)
            if len(self._memo) < _MEMO_LIMIT:
                self._memo[key] = out
        return out

    def value(self, seq: Encoded, shown: np.ndarray, codec: Codec, which: Sequence[int] | None = None) -> np.ndarray:
        """float64[len(which)]: the lines of the fields ``which`` (indices into ``fields``; None:
        all) for the record ``seq`` reading the numbers ``shown`` (bool[number of numbers], in
        token order) and nothing else, in record units; held where it has no support (module
        docstring)."""
        return self.value_and_move(seq, shown, codec, which)[0]

    def value_and_move(
        self, seq: Encoded, shown: np.ndarray, codec: Codec, which: Sequence[int] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(:meth:`value`, how far each line was held: the line's own value minus it; 0 where
        it was not) float64[len(which)] each."""
        slot = self.slot_index(seq, codec)
        values = seq.values[codec.number_starts(seq.ids)]
        on = slot >= 0
        present, seen, x = slot[on], slot[on & shown], values[on & shown]
        hidden = slot[on & ~shown]
        out, moves = [], []
        for i in range(len(self.fields)) if which is None else which:
            line, (vcol, mcol) = self.lines[i], self._columns[i]
            d = np.zeros(len(line.w))
            d[mcol[mcol >= 0]] = 1.0  # every marked slot absent ...
            d[mcol[present][mcol[present] >= 0]] = 0.0  # ... but those the record has
            c = vcol[seen]
            d[c[c >= 0]] = (x[c >= 0] - line.mean[c[c >= 0]]) / line.sd[c[c >= 0]]
            d -= line.centre
            drop = np.concatenate([vcol[hidden], mcol[hidden]])
            drop = drop[drop >= 0]
            keep = np.ones(len(line.w), bool)
            keep[drop] = False
            w_kept, m_kept = line.w, line.m
            if len(drop):  # refitted without the hidden inputs (the block inverse: module docstring)
                m_kd = line.m[np.ix_(keep, drop)]
                w_kept = line.w[keep] - m_kd @ np.linalg.solve(line.m[np.ix_(drop, drop)], line.w[drop])
            value = float(line.y_mean + d[keep] @ w_kept)
            held = value
            if line.span is not None and line.support is not None and not line.span[0] <= value <= line.span[1]:
                if len(drop):
                    m_kept = line.m[np.ix_(keep, keep)] - m_kd @ np.linalg.solve(line.m[np.ix_(drop, drop)], m_kd.T)
                if float(d[keep] @ m_kept @ d[keep]) > line.support:
                    held = min(max(value, line.span[0]), line.span[1])
            out.append(held)
            moves.append(value - held)
        return np.array(out, np.float64), np.array(moves, np.float64)

    def to_dict(self) -> dict[str, Any]:
        return {"fields": self.fields, "slots": self.slots, "lines": [line.to_dict() for line in self.lines]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "RecordLine":
        return cls(d["fields"], d["slots"], [FieldLine(**line) for line in d["lines"]])
