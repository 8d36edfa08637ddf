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
tokens (xVal reference: ``11 + 15·n_planets + 3·n_planets·n_steps``).
A key, string or numeric field the vocabulary lacks raises :class:`VocabularyError` naming the
JSON path — nothing is dropped or replaced silently.

Text mode (``Codec(vocab, text=scinum.encodings.get("p1000"))``, the xVal paper's baselines):
each number becomes its ``text.tokens_per_number`` tokens instead of one ``[NUM]``; its exact
value and field id sit on every one of them, and decoding parses the tokens (so numbers come
back rounded to the scheme's precision, as floats).
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path as FilePath
from typing import Any, Iterable

import numpy as np

from .errors import MalformedJSON, ValueOutOfRange, VocabularyError
from .paths import format_path
from .atomic import write_text_atomic
from .pieces import KEY, NUMBER, RUN, STR, checked_pieces
from .pieces import pieces as record_pieces
from .records import loads

__all__ = ["Vocabulary", "Codec", "Encoded", "SPECIALS", "PAD", "MASK", "NUM", "INT"]

PAD, MASK, NUM, INT = "[PAD]", "[MASK]", "[NUM]", "[INT]"
SPECIALS = (PAD, MASK, NUM, INT)
_FIXED = ("{", "}", "[", "]", "true", "false", "null")
_BRACKETS = set("{}[]")
_MAX_SAFE_INT = 2 ** 53
#: longest run of brackets that becomes one token (longer runs are split)
MAX_RUN = 8


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
        if tuple(self.tokens[:len(SPECIALS)]) != SPECIALS:
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
    def build(cls, records: Iterable[dict], *, max_run: int = MAX_RUN, min_run_count: int = 1,
              number_tokens: Iterable[str] = ()) -> "Vocabulary":
        """Collect keys, strings, bracket runs (length 2..``max_run``) and numeric fields.

        ``records`` is typically ``Dataset(path).records("train")``; order of first appearance
        decides ids, so the same data gives the same vocabulary. ``number_tokens``: a text
        encoding's :meth:`~scinum.encodings.text.TextEncoding.vocabulary`, for text mode.
        """
        seen: dict[str, None] = {}
        runs: Counter = Counter()
        fields: dict[str, None] = {}
        for record in records:
            kinds, items, flds, _ = checked_pieces(record)
            for kind, text, fld in zip(kinds, items, flds):
                if kind == RUN:
                    for k in range(0, len(text), max_run):
                        chunk = text[k:k + max_run]
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

    def save(self, path: str | FilePath) -> None:
        write_text_atomic(path, json.dumps(self.to_dict(), ensure_ascii=False, indent=0))

    @classmethod
    def load(cls, path: str | FilePath) -> "Vocabulary":
        return cls.from_dict(json.loads(FilePath(path).read_text(encoding="utf-8")))


_MEMO_LIMIT = 100_000
_SHAPE_LIMIT = 4096  # record shapes remembered by a codec (records of many shapes: no reuse)


class Codec:
    """Encode records into :class:`Encoded` sequences with a :class:`Vocabulary`, and back.

    ``text``: a :class:`~scinum.encodings.text.TextEncoding` for text mode (module docstring).
    """

    def __init__(self, vocab: Vocabulary, text: Any = None):
        self.vocab, self.text = vocab, text
        self._text_ids: dict[float, list[int]] = {}
        self._runs: dict[str, list[int]] = {}
        self._shapes: dict[tuple, tuple] = {}  # record shape -> ids, fields, number slots, paths
        if text is not None:
            missing = [t for t in text.vocabulary() if t not in vocab.index]
            if missing:
                raise ValueError(f"vocabulary lacks {len(missing)} {text.name} number tokens "
                                 "(build it with number_tokens=text.vocabulary())")
            self.number_token_ids = np.array(sorted(vocab.index[t] for t in text.vocabulary()))
            self.start_token_ids = np.array(sorted(vocab.index[t] for t in text.starts()))
        else:
            self.number_token_ids = np.array([vocab.num_id, vocab.int_id])
            self.start_token_ids = self.number_token_ids

    @property
    def tokens_per_number(self) -> int:
        return 1 if self.text is None else self.text.tokens_per_number

    def number_starts(self, ids: np.ndarray) -> np.ndarray:
        """Positions (int64[K]) where the numbers of a token sequence begin; each number spans
        :attr:`tokens_per_number` tokens from there."""
        if self.text is None:  # two ids: cheaper than np.isin
            return np.flatnonzero((ids == self.vocab.num_id) | (ids == self.vocab.int_id))
        return np.flatnonzero(np.isin(ids, self.start_token_ids))

    def _number_ids(self, value: int | float, piece: int, record: dict) -> list[int]:
        if self.text is None:
            return [self.vocab.int_id if type(value) is int else self.vocab.num_id]
        key = float(value)
        ids = self._text_ids.get(key)
        if ids is None:
            try:
                ids = [self.vocab.index[t] for t in self.text.tokens(key)]
            except ValueOutOfRange as e:
                raise e.located(path=self._path_at(record, piece)) from None
            if len(self._text_ids) < 100_000:
                self._text_ids[key] = ids
        return ids

    def _split_run(self, text: str) -> list[int]:
        """Greedy longest-match of a bracket run onto known run tokens (single brackets always)."""
        ids, i, index = [], 0, self.vocab.index
        while i < len(text):
            for n in range(min(self.vocab.max_run, len(text) - i), 0, -1):
                tid = index.get(text[i:i + n])
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
        for the first record of a shape and reused (single-token codecs; text codecs' tokens
        depend on the values). Returns fresh arrays each call."""
        kinds, items, flds, _ = checked_pieces(record)
        if self.text is not None:
            return self._encode_pieces(record, kinds, items, flds), self.number_paths(record)
        shape = (tuple(kinds), tuple(it if k != NUMBER else type(it) is int for k, it in zip(kinds, items)))
        cached = self._shapes.get(shape)
        if cached is None:
            enc = self._encode_pieces(record, kinds, items, flds)
            pieces = [j for j, k in enumerate(kinds) if k == NUMBER]
            cached = (enc.ids, enc.fields, np.flatnonzero(enc.fields >= 0), pieces,
                      self.number_paths(record))
            if len(self._shapes) < _SHAPE_LIMIT:
                self._shapes[shape] = cached
            return enc, list(cached[4])
        ids, fields, num_pos, pieces, paths = cached
        nums = [items[j] for j in pieces]
        for j, v in zip(pieces, nums):
            if type(v) is int and abs(v) > _MAX_SAFE_INT:
                raise ValueOutOfRange(f"integer {v} is not exactly representable as "
                                      "float64 (|n| > 2^53)", path=self._path_at(record, j))
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
                    raise ValueOutOfRange(f"integer {item} is not exactly representable as "
                                          "float64 (|n| > 2^53)", path=self._path_at(record, j))
                fid = field_index.get(fld)
                if fid is None:
                    raise VocabularyError(f"numeric field {fld} never seen in training",
                                          path=self._path_at(record, j))
                new = self._number_ids(item, j, record)
                num_pos.extend(range(len(ids), len(ids) + len(new)))
                ids.extend(new)
                num_val.extend([float(item)] * len(new))
                num_fid.extend([fid] * len(new))
            else:
                tid = index.get(item)
                if tid is None:
                    what = {KEY: "key", STR: "string"}.get(kind, "token")
                    raise VocabularyError(f"{what} {item.rstrip(':')} not in the vocabulary",
                                          path=self._path_at(record, j))
                ids.append(tid)
        values = np.full(len(ids), np.nan)
        fields = np.full(len(ids), -1, dtype=np.int32)
        values[num_pos] = num_val
        fields[num_pos] = num_fid
        return Encoded(np.asarray(ids, dtype=np.int64), values, fields)

    def _path_at(self, record: dict, piece: int) -> str:
        """The JSON path (text) of piece number ``piece`` of ``record`` (for error messages)."""
        return format_path(record_pieces(record, with_paths=True)[3][piece])

    def number_paths(self, record: dict) -> list[tuple]:
        """JSON paths of the numbers of ``record``, in token order (for error messages, fill)."""
        out: list[tuple] = []
        stack: list = []

        def walk(node) -> None:
            if isinstance(node, dict):
                for k, v in node.items():
                    stack.append(k)
                    walk(v)
                    stack.pop()
            elif isinstance(node, (list, tuple)):
                for i, v in enumerate(node):
                    stack.append(i)
                    walk(v)
                    stack.pop()
            elif isinstance(node, (int, float)) and not isinstance(node, bool):
                out.append(tuple(stack))

        walk(record)
        return out

    def decode(self, ids: Iterable[int], values: Iterable[float]) -> dict:
        """Rebuild the record from ``ids`` and ``values`` (only read at number tokens).

        Raises :class:`MalformedJSON` if the tokens do not form a JSON object.
        """
        tokens, out = self.vocab.tokens, []
        value_end = False
        ids = np.asarray(ids).tolist()
        values = np.asarray(values, dtype=np.float64).tolist()
        k, span = 0, self.tokens_per_number
        text_ids = set(self.number_token_ids.tolist()) if self.text is not None else set()
        while k < len(ids):
            tid, v = ids[k], values[k]
            tok = tokens[tid]
            k += 1
            if tok in (PAD, MASK):
                raise MalformedJSON(f"cannot decode a {tok} token")
            if tid in text_ids:
                number = self.text.parse([tokens[t] for t in ids[k - 1:k - 1 + span]])
                if number is None:
                    raise MalformedJSON(f"tokens {[tokens[t] for t in ids[k - 1:k - 1 + span]]} "
                                        f"do not form a {self.text.name} number")
                k += span - 1
                pieces = [repr(number)]
            elif tok == NUM or tok == INT:
                pieces = [repr(float(v)) if tok == NUM else str(int(v))]
            elif set(tok) <= _BRACKETS:
                pieces = list(tok)
            else:
                pieces = [tok]
            for piece in pieces:
                starts = piece[0] not in "}]"
                if starts and value_end:
                    out.append(",")
                out.append(piece)
                value_end = not piece.endswith(":") and piece not in ("{", "[")
        return loads("".join(out))
