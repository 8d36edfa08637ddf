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
from .paths import format_path, parse_path, field_of
from .records import check_record, loads, write_text_atomic

__all__ = ["Vocabulary", "Codec", "Encoded", "SPECIALS", "PAD", "MASK", "NUM", "INT"]

PAD, MASK, NUM, INT = "[PAD]", "[MASK]", "[NUM]", "[INT]"
SPECIALS = (PAD, MASK, NUM, INT)
_FIXED = ("{", "}", "[", "]", "true", "false", "null")
_BRACKETS = set("{}[]")
_MAX_SAFE_INT = 2 ** 53


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
    def build(cls, records: Iterable[dict], *, max_run: int = 8, min_run_count: int = 1,
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
            check_record(record)
            for kind, text, path in _pieces(record):
                if kind == "run":
                    for k in range(0, len(text), max_run):
                        chunk = text[k:k + max_run]
                        if len(chunk) > 1:
                            runs[chunk] += 1
                elif kind == "num":
                    fields.setdefault(field_of(path), None)
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


def _pieces(record: Any):
    """Yield ``(kind, text, path)`` in document order; kind in run/key/str/lit/num.

    Consecutive brackets are merged into one ``run`` piece; ``path`` is the JSON path tuple of
    the key/value (for runs: of the node where the run ends).
    """
    run: list[str] = []
    path: list = []

    def flush():
        if run:
            text = "".join(run)
            run.clear()
            return ("run", text, tuple(path))
        return None

    def walk(node):
        if isinstance(node, dict):
            run.append("{")
            for k, v in node.items():
                p = flush()
                if p:
                    yield p
                path.append(k)
                yield ("key", json.dumps(k, ensure_ascii=False) + ":", tuple(path))
                yield from walk(v)
                path.pop()
            run.append("}")
        elif isinstance(node, list):
            run.append("[")
            for i, v in enumerate(node):
                path.append(i)
                yield from walk(v)
                path.pop()
            run.append("]")
        else:
            p = flush()
            if p:
                yield p
            if isinstance(node, bool) or node is None:
                yield ("lit", json.dumps(node), tuple(path))
            elif isinstance(node, (int, float)):
                yield ("num", node, tuple(path))
            else:
                yield ("str", json.dumps(node, ensure_ascii=False), tuple(path))

    yield from walk(record)
    p = flush()
    if p:
        yield p


class Codec:
    """Encode records into :class:`Encoded` sequences with a :class:`Vocabulary`, and back.

    ``text``: a :class:`~scinum.encodings.text.TextEncoding` for text mode (module docstring).
    """

    def __init__(self, vocab: Vocabulary, text: Any = None):
        self.vocab, self.text = vocab, text
        self._text_ids: dict[float, list[int]] = {}
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
        return np.flatnonzero(np.isin(ids, self.start_token_ids))

    def _number_ids(self, value: int | float, path: tuple) -> list[int]:
        if self.text is None:
            return [self.vocab.int_id if isinstance(value, int) else self.vocab.num_id]
        key = float(value)
        ids = self._text_ids.get(key)
        if ids is None:
            try:
                ids = [self.vocab.index[t] for t in self.text.tokens(key)]
            except ValueOutOfRange as e:
                raise e.located(path=format_path(path)) from None
            if len(self._text_ids) < 100_000:
                self._text_ids[key] = ids
        return ids

    def _split_run(self, text: str, path: tuple) -> list[int]:
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

    def encode(self, record: dict) -> Encoded:
        """Tokenize one record (see module docstring). Errors name the JSON path."""
        check_record(record)
        index, field_index = self.vocab.index, self.vocab.field_index
        ids: list[int] = []
        values: list[float] = []
        fields: list[int] = []
        nan = float("nan")
        for kind, text, path in _pieces(record):
            if kind == "run":
                new = self._split_run(text, path)
                ids.extend(new)
                values.extend([nan] * len(new))
                fields.extend([-1] * len(new))
                continue
            if kind == "num":
                if isinstance(text, int) and abs(text) > _MAX_SAFE_INT:
                    raise ValueOutOfRange(f"integer {text} is not exactly representable as "
                                          "float64 (|n| > 2^53)", path=format_path(path))
                fid = field_index.get(field_of(path))
                if fid is None:
                    raise VocabularyError(f"numeric field {field_of(path)} never seen in training",
                                          path=format_path(path))
                new = self._number_ids(text, path)
                ids.extend(new)
                values.extend([float(text)] * len(new))
                fields.extend([fid] * len(new))
                continue
            tid = index.get(text)
            if tid is None:
                what = {"key": "key", "str": "string"}.get(kind, "token")
                raise VocabularyError(f"{what} {text.rstrip(':')} not in the vocabulary",
                                      path=format_path(path))
            ids.append(tid)
            values.append(nan)
            fields.append(-1)
        return Encoded(np.asarray(ids, dtype=np.int64), np.asarray(values, dtype=np.float64),
                       np.asarray(fields, dtype=np.int32))

    def number_paths(self, record: dict) -> list[tuple]:
        """JSON paths of the numbers of ``record``, in token order (for error messages, fill)."""
        return [path for kind, _, path in _pieces(record) if kind == "num"]

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
