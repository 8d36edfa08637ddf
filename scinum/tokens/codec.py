"""Records <-> token sequences: JSON structure and keys are tokens, each number one token.

``Codec(vocab).encode(record) -> Encoded(ids int64[L], values float64[L], fields int32[L])``:

* ``{ } [ ]`` runs between two keys/values form one token when the vocabulary knows the run
  (``][``, ``]][[`` …, learned from training data like a BPE merge; unknown runs fall back to
  single brackets), commas are dropped (the structure makes them redundant);
* an object key is one token ``"key":``; a string value one token ``"text"``;
  ``true``/``false``/``null`` one token each;
* a number is one ``[NUM]`` (float) or ``[INT]`` (integer) token; its float64 value sits in
  ``values`` at that position (NaN elsewhere) and its field id (see :func:`paths.field_of`) in
  ``fields`` (-1 elsewhere).

``decode(encode(r)) == r`` exactly, types included (``1`` vs ``1.0``, ``-0.0``, 17-digit
floats). For the planets sample format this gives ``8 + 9·n_planets + 3·n_planets·n_steps``
tokens (xVal reference: ``10 + 12·n_planets + 3·n_planets·n_steps``).
A key, string or numeric field the vocabulary lacks raises :class:`VocabularyError` naming the
JSON path — nothing is dropped or replaced silently.

How a number is spelled is the encoding's (:class:`Spelling`, which every
:class:`~scinum.encodings.NumberEncoding` is): ``Codec(vocab, encoding)``. The default is one
``[NUM]``/``[INT]`` token; the text baselines (``scinum.encodings.get("p1000")``, the xVal
paper's) write each number as ``tokens_per_number`` tokens, its exact value and field id on
every one of them, and decoding parses the tokens (so numbers come back rounded to the scheme's
precision, as floats).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Iterable

import numpy as np

from ..errors import MalformedJSON, ValueOutOfRange, VocabularyError, shorten
from ..records.paths import flatten, format_path
from ..util.atomic import write_text_atomic
from .pieces import KEY, NUMBER, RUN, STR, checked_pieces
from .pieces import pieces as record_pieces
from ..records.strict import MAX_SAFE_INT as _MAX_SAFE_INT, loads

__all__ = ["Vocabulary", "Codec", "Encoded", "Spelling", "SPECIALS", "PAD", "MASK", "NUM", "INT", "check_exact"]

PAD, MASK, NUM, INT = "[PAD]", "[MASK]", "[NUM]", "[INT]"
SPECIALS = (PAD, MASK, NUM, INT)
_FIXED = ("{", "}", "[", "]", "true", "false", "null")
_BRACKETS = set("{}[]")
#: longest run of brackets that becomes one token (longer runs are split)
MAX_RUN = 8


def check_exact(record: Any) -> None:
    """Raise :class:`ValueOutOfRange` naming the path of the first integer of ``record`` that
    float64 cannot hold exactly (|n| > 2^53): what the codec refuses, checked where records
    enter a dataset so that a built dataset never holds a record fill would refuse."""
    kinds, items, _, paths = record_pieces(record, with_paths=True)
    for kind, item, path in zip(kinds, items, paths or ()):
        if kind == NUMBER and type(item) is int and abs(item) > _MAX_SAFE_INT:
            raise ValueOutOfRange(
                f"integer {shorten(str(item))} is not exactly representable as float64 (|n| > 2^53)", path=format_path(path)
            )


class Spelling:
    """How a number is written in tokens: by default one ``[INT]`` (JSON integer) or ``[NUM]``
    token whose value sits beside it. Number encodings that write numbers otherwise (the text
    baselines) override these."""

    name: ClassVar[str] = "one-token"
    #: vocabulary tokens per number
    tokens_per_number: int = 1
    #: whether a number's tokens depend on its value beyond int/float (then records of one
    #: shape do not share their token ids)
    value_in_tokens = False

    def config(self) -> dict[str, Any]:
        """What identifies the spelling: ``{"name": ...}`` (a number encoding adds its options)."""
        return {"name": self.name}

    def vocabulary(self) -> list[str]:
        """Number tokens the vocabulary must hold besides ``[NUM]``/``[INT]``, in a fixed order."""
        return []

    def tokens(self, value: int | float) -> list[str]:
        """The ``tokens_per_number`` tokens of one number. Raises
        :class:`~scinum.errors.ValueOutOfRange` for a number this spelling cannot write."""
        return [INT if type(value) is int else NUM]

    def starts(self) -> set[str]:
        """Tokens that can begin a number."""
        return {NUM, INT}

    def parse(self, tokens: list[str], value: float = math.nan) -> int | float | None:
        """The number written by ``tokens`` whose value slot holds ``value``, or None if the
        tokens do not form one."""
        if tokens == [INT]:
            return int(value)
        return float(value) if tokens == [NUM] else None


ONE_TOKEN = Spelling()


@dataclass
class Encoded:
    """One tokenized record. ``ids`` int64[L]; ``values`` float64[L] (NaN off numbers);
    ``fields`` int32[L] (field id of each number token, -1 elsewhere)."""

    ids: np.ndarray
    values: np.ndarray
    fields: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)


class Vocabulary:
    """Token strings <-> ids, plus the numeric fields seen in training (field name <-> id)."""

    def __init__(self, tokens: Iterable[str], fields: Iterable[str] = ()):
        self.tokens = list(tokens)
        if tuple(self.tokens[: len(SPECIALS)]) != SPECIALS:
            raise ValueError(f"vocabulary must start with {SPECIALS}")
        self.index = {t: i for i, t in enumerate(self.tokens)}
        if len(self.index) != len(self.tokens):
            raise ValueError("vocabulary has duplicate tokens")
        self.fields = list(fields)
        self.field_index = {f: i for i, f in enumerate(self.fields)}
        self.runs = {t for t in self.tokens if len(t) > 1 and set(t) <= _BRACKETS}
        self.max_run = max((len(t) for t in self.runs), default=1)
        self.pad_id, self.mask_id = self.index[PAD], self.index[MASK]
        self.num_id, self.int_id = self.index[NUM], self.index[INT]

    def __len__(self) -> int:
        return len(self.tokens)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocabulary) and (self.tokens, self.fields) == (other.tokens, other.fields)

    @classmethod
    def build(
        cls, records: Iterable[dict], *, max_run: int = MAX_RUN, min_run_count: int = 1, number_tokens: Iterable[str] = ()
    ) -> "Vocabulary":
        """Collect keys, strings, bracket runs (length 2..``max_run``) and numeric fields.

        ``records`` is typically ``Dataset(path).records("train")``; order of first appearance
        decides ids, so the same data gives the same vocabulary. ``number_tokens``: the
        encoding's :meth:`Spelling.vocabulary` (the number tokens it spells with, if any).
        """
        seen: dict[str, None] = {}
        runs: Counter = Counter()
        fields: dict[str, None] = {}
        for record in records:
            kinds, items, flds, _ = checked_pieces(record)
            for kind, text, fld in zip(kinds, items, flds):
                if kind == RUN:
                    for k in range(0, len(text), max_run):
                        chunk = text[k : k + max_run]
                        if len(chunk) > 1:
                            runs[chunk] += 1
                elif kind == NUMBER:
                    fields.setdefault(fld, None)
                elif text not in _FIXED:
                    seen.setdefault(text, None)
        run_tokens = [r for r, c in runs.items() if c >= min_run_count]
        return cls([*SPECIALS, *_FIXED, *number_tokens, *run_tokens, *seen], fields)

    def to_dict(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "fields": self.fields}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Vocabulary":
        return cls(d["tokens"], d.get("fields", ()))

    def save(self, path: str | Path) -> None:
        write_text_atomic(path, json.dumps(self.to_dict(), ensure_ascii=False, indent=0))

    @classmethod
    def load(cls, path: str | Path) -> "Vocabulary":
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))


_MEMO_LIMIT = 100_000
_SHAPE_LIMIT = 4096  # record shapes remembered by a codec (records of many shapes: no reuse)


class Codec:
    """Encode records into :class:`Encoded` sequences with a :class:`Vocabulary`, and back.

    ``encoding``: the number encoding, whose :class:`Spelling` writes each number (None: one
    ``[NUM]``/``[INT]`` token, the spelling of every single-token encoding).
    """

    def __init__(self, vocab: Vocabulary, encoding: Spelling | None = None):
        self.vocab = vocab
        self.spelling = encoding if encoding is not None else ONE_TOKEN
        self._number_memo: dict[float, list[int]] = {}
        self._runs: dict[str, list[int]] = {}
        self._shapes: dict[tuple, tuple] = {}  # record shape -> ids, fields, number slots, paths
        missing = [t for t in self.spelling.vocabulary() if t not in vocab.index]
        if missing:
            raise ValueError(
                f"vocabulary lacks {len(missing)} {self.spelling.name} number tokens (build it with number_tokens=encoding.vocabulary())"
            )
        self.start_token_ids = np.array(sorted(vocab.index[t] for t in self.spelling.starts()))
        self.tokens_per_number = self.spelling.tokens_per_number

    def number_starts(self, ids: np.ndarray) -> np.ndarray:
        """Positions (int64[K]) where the numbers of a token sequence begin; each number spans
        :attr:`tokens_per_number` tokens from there."""
        if len(self.start_token_ids) == 2:  # cheaper than np.isin
            a, b = self.start_token_ids
            return np.flatnonzero((ids == a) | (ids == b))
        return np.flatnonzero(np.isin(ids, self.start_token_ids))

    def number_ids(self, value: int | float) -> list[int]:
        """The token ids that spell ``value`` (raises :class:`ValueOutOfRange`)."""
        if not self.spelling.value_in_tokens:
            return [self.vocab.index[t] for t in self.spelling.tokens(value)]
        key = float(value)
        ids = self._number_memo.get(key)
        if ids is None:
            ids = [self.vocab.index[t] for t in self.spelling.tokens(key)]
            if len(self._number_memo) < _MEMO_LIMIT:
                self._number_memo[key] = ids
        return ids

    def respell(self, ids: np.ndarray, pos: int, value: float) -> None:
        """Write the tokens of ``value`` into ``ids`` at the number that starts at ``pos``, for
        spellings whose tokens carry the value (one-token spellings keep their token)."""
        if self.spelling.value_in_tokens:
            ids[pos : pos + self.tokens_per_number] = self.number_ids(value)

    def _number_ids(self, value: int | float, piece: int, record: dict) -> list[int]:
        try:
            return self.number_ids(value)
        except ValueOutOfRange as e:
            raise e.located(path=self._path_at(record, piece)) from None

    def _split_run(self, text: str) -> list[int]:
        """Greedy longest-match of a bracket run onto known run tokens (single brackets always)."""
        ids, i, index = [], 0, self.vocab.index
        while i < len(text):
            for n in range(min(self.vocab.max_run, len(text) - i), 0, -1):
                tid = index.get(text[i : i + n])
                if tid is not None:
                    ids.append(tid)
                    i += n
                    break
        return ids

    def _run_ids(self, text: str) -> list[int]:
        ids = self._runs.get(text)
        if ids is None:
            ids = self._split_run(text)
            if len(self._runs) < _MEMO_LIMIT:
                self._runs[text] = ids
        return ids

    def encode(self, record: dict) -> Encoded:
        """Tokenize one record (see module docstring). Errors name the JSON path."""
        return self.encode_with_paths(record)[0]

    def encode_with_paths(self, record: dict) -> tuple[Encoded, list[tuple]]:
        """:meth:`encode` and :meth:`number_paths` in one pass over the record.

        Records of one *shape* (the same keys, strings, list lengths and int/float kinds, only
        the numbers differ) share their token ids, fields and number paths: those are computed
        for the first record of a shape and reused (unless the spelling's tokens depend on the
        values). Returns fresh arrays each call."""
        kinds, items, flds, _ = checked_pieces(record)
        if self.spelling.value_in_tokens:
            return self._encode_pieces(record, kinds, items, flds), self.number_paths(record)
        shape = (tuple(kinds), tuple(it if k != NUMBER else type(it) is int for k, it in zip(kinds, items)))
        cached = self._shapes.get(shape)
        if cached is None:
            enc = self._encode_pieces(record, kinds, items, flds)
            pieces = [j for j, k in enumerate(kinds) if k == NUMBER]
            cached = (enc.ids, enc.fields, np.flatnonzero(enc.fields >= 0), pieces, self.number_paths(record))
            if len(self._shapes) < _SHAPE_LIMIT:
                self._shapes[shape] = cached
            return enc, list(cached[4])
        ids, fields, num_pos, pieces, paths = cached
        nums = [items[j] for j in pieces]
        for j, v in zip(pieces, nums):
            if type(v) is int and abs(v) > _MAX_SAFE_INT:
                raise ValueOutOfRange(f"integer {v} is not exactly representable as float64 (|n| > 2^53)", path=self._path_at(record, j))
        values = np.full(len(ids), np.nan)
        values[num_pos] = nums
        return Encoded(ids.copy(), values, fields.copy()), list(paths)

    def _encode_pieces(self, record: dict, kinds: list, items: list, flds: list) -> Encoded:
        index, field_index = self.vocab.index, self.vocab.field_index
        ids: list[int] = []
        num_pos: list[int] = []
        num_val: list[float] = []
        num_fid: list[int] = []
        for j, (kind, item, fld) in enumerate(zip(kinds, items, flds)):
            if kind == RUN:
                ids.extend(self._run_ids(item))
            elif kind == NUMBER:
                if type(item) is int and abs(item) > _MAX_SAFE_INT:
                    raise ValueOutOfRange(
                        f"integer {item} is not exactly representable as float64 (|n| > 2^53)", path=self._path_at(record, j)
                    )
                fid = field_index.get(fld)
                if fid is None:
                    raise VocabularyError(f"numeric field {fld} never seen in training", path=self._path_at(record, j))
                new = self._number_ids(item, j, record)
                num_pos.extend(range(len(ids), len(ids) + len(new)))
                ids.extend(new)
                num_val.extend([float(item)] * len(new))
                num_fid.extend([fid] * len(new))
            else:
                tid = index.get(item)
                if tid is None:
                    what = {KEY: "key", STR: "string"}.get(kind, "token")
                    raise VocabularyError(f"{what} {shorten(item.rstrip(':'))} not in the vocabulary", path=self._path_at(record, j))
                ids.append(tid)
        values = np.full(len(ids), np.nan)
        fields = np.full(len(ids), -1, dtype=np.int32)
        values[num_pos] = num_val
        fields[num_pos] = num_fid
        return Encoded(np.asarray(ids, dtype=np.int64), values, fields)

    def _path_at(self, record: dict, piece: int) -> str:
        """The JSON path (text) of piece number ``piece`` of ``record`` (for error messages)."""
        paths = record_pieces(record, with_paths=True)[3]
        assert paths is not None  # asked for with_paths
        return format_path(paths[piece])

    def number_paths(self, record: dict) -> list[tuple]:
        """JSON paths of the numbers of ``record``, in token order (for error messages, fill)."""
        return [p for p, v in flatten(record) if isinstance(v, (int, float)) and not isinstance(v, bool)]

    def decode(self, ids: Iterable[int], values: Iterable[float]) -> dict:
        """Rebuild the record from ``ids`` and ``values`` (only read at number tokens).

        Raises :class:`MalformedJSON` if the tokens do not form a JSON object.
        """
        tokens, out = self.vocab.tokens, []
        value_end = False
        id_list: list[int] = np.asarray(ids).tolist()
        value_list: list[float] = np.asarray(values, dtype=np.float64).tolist()
        k, span = 0, self.tokens_per_number
        starts = set(self.start_token_ids.tolist())
        while k < len(id_list):
            tid, v = id_list[k], value_list[k]
            tok = tokens[tid]
            k += 1
            if tok in (PAD, MASK):
                raise MalformedJSON(f"cannot decode a {tok} token")
            if tid in starts:
                spelled = [tokens[t] for t in id_list[k - 1 : k - 1 + span]]
                number = self.spelling.parse(spelled, v)
                if number is None:
                    raise MalformedJSON(f"tokens {spelled} do not form a {self.spelling.name} number")
                k += span - 1
                pieces = [repr(number)]
            elif set(tok) <= _BRACKETS:
                pieces = list(tok)
            else:
                pieces = [tok]
            for piece in pieces:
                starts_value = piece[0] not in "}]"
                if starts_value and value_end:
                    out.append(",")
                out.append(piece)
                value_end = not piece.endswith(":") and piece not in ("{", "[")
        return loads("".join(out))
