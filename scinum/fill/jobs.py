"""Records prepared for filling: validated, masks and ``null`` placeholders resolved, encoded.

:class:`JobMaker` turns ``(record, mask)`` into a :class:`Job` — what :class:`scinum.fill.model.Model`
predicts. Records of one *shape* (the same keys, strings, list lengths and int/float/null kinds)
with the same mask share everything but their values: the structural work is done for the first
one and remembered (up to 4096 shapes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import torch

from ..tokens.codec import Codec, Encoded
from ..errors import MalformedJSON, RecordError, ValueOutOfRange
from ..tokens.normalize import Normalizer
from ..records.paths import field_of, format_path, get, numbers_named, set_value
from ..records.shape import NULL, NotJSON, checked_copy, leaf_paths, null_paths
from ..records.strict import check_record

__all__ = ["Job", "JobMaker"]

_SHAPE_LIMIT = 4096  # record shapes (with their masks) a JobMaker remembers


@dataclass
class Job:
    """A record prepared for prediction: placeholder-free copy, its encoding, hidden paths."""

    record: dict
    encoded: Encoded
    number_slots: np.ndarray  # int64[K]: (first) token position of each number, document order
    hidden: list[int]  # indices into number_slots, document order
    paths: list[tuple]
    index: int | None = None  # the record's number in its input, for error messages


class JobMaker:
    """Prepares records for a model with this ``codec``, ``normalizer`` and ``encoding``;
    ``context_length``: the longest record (tokens) the model takes (None: any)."""

    def __init__(self, codec: Codec, normalizer: Normalizer, encoding: Any, context_length: int | None = None):
        self.codec, self.normalizer, self.encoding = codec, normalizer, encoding
        self.context_length = context_length
        self._known_fields = set(codec.vocab.fields)
        self._shapes: dict[tuple, "_Shape"] = {}  # (record shape, mask) -> its structural part

    def make(self, record: Any, mask: Sequence[str], *, index: int | None = None) -> Job:
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
            known: _Shape | None = self._shapes.get(key)  # an integer beyond 2^53 has a shape of its own: never known
            if known is None:
                enc, paths, hidden, filled_nulls = self._resolve(rec, mask, NULL in shape)
                if self.context_length is not None and len(enc) > self.context_length:
                    raise RecordError(
                        f"record is {len(enc)} tokens, longer than the model's "
                        f"context ({self.context_length} tokens, the longest "
                        "training record)",
                        record=index,
                    )
                remember = not self.codec.spelling.value_in_tokens and len(self._shapes) < _SHAPE_LIMIT
                known = _Shape(self, rec if remember else None, enc, paths, hidden, filled_nulls)
                if remember:
                    self._shapes[key] = known
                else:  # this record's own encoding (its values may be spelled in its tokens)
                    known.check(self, enc.values, index)
                    return Job(rec, enc, known.slots, hidden, paths, index)
            for p in known.filled_nulls:
                set_value(rec, p, 0.0)
            values = known.values.copy()
            values[known.number_pos] = np.array(
                [0.0 if v is None else v for v in leaves] if known.filled_nulls or NULL in shape else leaves, np.float64
            )[known.leaf_of_number]
            enc = Encoded(known.ids, values, known.fields)
        except RecordError as e:
            raise e.located(record=index) from None
        known.check(self, values, index)
        return Job(rec, enc, known.slots, known.hidden, known.paths, index)

    def _check_representable(self, enc: Encoded, slots: np.ndarray, hidden: list[int], paths: list[tuple], index: int | None) -> None:
        """Values the encoding cannot take (after normalization): an error naming the path."""
        visible = np.ones(len(paths), bool)
        visible[hidden] = False
        pos = slots[visible]
        norm = self.normalizer.forward(enc.values[pos], enc.fields[pos])
        ok = self.encoding.representable(torch.from_numpy(norm)).numpy()
        if not ok.all():
            k = int(np.flatnonzero(visible)[np.flatnonzero(~ok)[0]])
            raise ValueOutOfRange(
                f"value {enc.values[slots[k]]!r} is {norm[~ok][0]!r} after "
                f"normalization, outside the range of encoding "
                f"{self.encoding.config()} ({self.encoding.range_text()})",
                record=index,
                path=format_path(paths[k]),
            )

    def _resolve(self, rec: dict, mask: Sequence[str], has_nulls: bool):
        """The structural part of :meth:`make` (the same for every record of one shape):
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
            raise RecordError("nothing to fill: give --mask paths or put null placeholders at numeric fields")
        filled_nulls = [p for p in hidden_paths if get(rec, p) is None]
        for p in filled_nulls:
            set_value(rec, p, 0.0)
        enc, paths = self.codec.encode_with_paths(rec)
        slot_of = {p: k for k, p in enumerate(paths)}
        return enc, paths, sorted(slot_of[p] for p in hidden_paths), filled_nulls


class _Shape:
    """What every record of one shape (with one mask) shares: its tokens and fields, a template
    of its values, the paths and slots of its numbers, the hidden ones, the placeholders filled
    with 0.0, where each number sits among the record's leaves and the normalization of its
    visible numbers (to check that the encoding can take them)."""

    __slots__ = (
        "ids",
        "fields",
        "values",
        "paths",
        "hidden",
        "filled_nulls",
        "slots",
        "number_pos",
        "leaf_of_number",
        "visible_pos",
        "shift",
        "scale",
    )

    def __init__(self, maker: JobMaker, rec: dict | None, enc: Encoded, paths: list[tuple], hidden: list[int], filled_nulls: list[tuple]):
        """``rec``: the record (placeholders filled) whose leaves give ``leaf_of_number``;
        None for a shape that is not remembered (its records are encoded one by one)."""
        self.ids, self.fields, self.values = enc.ids, enc.fields, enc.values
        self.paths, self.hidden, self.filled_nulls = paths, hidden, filled_nulls
        self.slots = maker.codec.number_starts(enc.ids)  # one per number (its first token)
        self.number_pos = np.flatnonzero(enc.fields >= 0)
        self.leaf_of_number = None
        if rec is not None:
            leaf_index = {p: i for i, p in enumerate(leaf_paths(rec))}
            self.leaf_of_number = np.array([leaf_index[p] for p in paths], np.intp)
        visible = np.ones(len(paths), bool)
        visible[hidden] = False
        self.visible_pos = self.slots[visible]
        f = enc.fields[self.visible_pos]
        self.shift, self.scale = maker.normalizer.shift[f], maker.normalizer.scale[f]

    def check(self, maker: JobMaker, values: np.ndarray, index: int | None) -> None:
        """Raise :class:`~scinum.errors.ValueOutOfRange` (naming the path) if the encoding
        cannot take a visible number of ``values`` after normalization (the same arithmetic as
        :meth:`~scinum.tokens.normalize.Normalizer.forward`)."""
        norm = (values[self.visible_pos] - self.shift) / self.scale
        if not maker.encoding.representable(torch.from_numpy(norm)).numpy().all():
            maker._check_representable(Encoded(self.ids, values, self.fields), self.slots, self.hidden, self.paths, index)
