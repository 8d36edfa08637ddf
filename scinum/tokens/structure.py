"""Where each token sits in the record's JSON structure: its list indices, whatever the layout.

A flat position (the k-th token) means different things in records of different layouts: in a
planets record with 2 planets the token at position 100 is another (time step, planet,
coordinate) than with 4 planets. :func:`list_indices` gives every token its place in the tree
instead — the index of the element it belongs to in each enclosing list, counted from the start
and from the end — so ``data[3][1][0]`` has the same indices (3, 1, 0 from the start) in every
record. The trunk's ``positions: structure`` (:mod:`scinum.model.trunk`) embeds them, with the field of
each number, in place of a flat position table (the JSON-structure positions of tabular/JSON
transformers such as ORiGAMi, here computed from the token ids alone).

Rules, for the token sequence :class:`scinum.tokens.codec.Codec` writes (bracket runs, ``"key":``
tokens, one token per string/literal/number or several per number for text spellings):

* an element of a list is a value (number, string, literal) or an opening ``[``/``{``; its index
  in the list counts elements from 0, and from the end (``-1`` = last) once the list closes;
* a token's indices are those of the elements it is inside of (a key: the elements around its
  object; a bracket run: the state where the run ends, an opening bracket belonging to the element
  it opens);
* only the :data:`DEPTH` outermost lists count; deeper ones are ignored;
* a number spelled in several tokens (the text baselines) gives each of its tokens the number's
  indices and, in a last column, the token's place in the number (0, 1, ...), which a flat
  position would otherwise have told apart (P10's digits are the same tokens in every place).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .codec import Codec

__all__ = ["DEPTH", "COLUMNS", "list_indices", "read_tokens"]

#: list depths whose indices a token carries (outermost first)
DEPTH = 4
#: columns of :func:`list_indices`: DEPTH from the start, DEPTH from the end, place in the number
COLUMNS = 2 * DEPTH + 1
_MEMO_LIMIT = 4096


def list_indices(ids: np.ndarray, codec: Codec) -> np.ndarray:
    """int64[L, COLUMNS] for one token sequence ``ids`` int[L] (unmasked, unpadded): columns
    ``0..DEPTH-1`` the element index in the 1st..DEPTH-th enclosing list from its start,
    ``DEPTH..2·DEPTH-1`` from its end (0 = last element), -1 where the token is in fewer lists;
    column ``2·DEPTH`` a number token's place among its number's tokens (-1 off numbers).
    Sequences with the same ids share one (read-only) result."""
    memo = codec.__dict__.setdefault("_list_indices_memo", {})
    key = ids.tobytes()
    out = memo.get(key)
    if out is None:
        out = _walk(ids, codec)
        out.setflags(write=False)
        if len(memo) < _MEMO_LIMIT:
            memo[key] = out
    return out


def read_tokens(ids: np.ndarray, codec: Codec) -> np.ndarray:
    """bool[L]: the tokens of ``ids`` int[L] (unmasked) that a trunk reading structure only
    through positions (``ModelConfig.structure_tokens`` False) reads: every token but the bracket
    runs and the keys of numbers. What those carry, a number's field (its path with indices
    starred) and its place in every list, is in the number's own structure positions
    (:func:`list_indices`, the field id); keys of objects, lists, strings and literals stay, as
    nothing else says them (a string has no field id). A planets record keeps 87 of 142 tokens on average, a
    flat table row of n numbers n of 2n + 2."""
    ids = np.asarray(ids)
    kinds = _token_kinds(codec)[ids]
    before_number = np.zeros(len(ids), bool)
    starts = codec.number_starts(ids)
    before_number[starts[starts > 0] - 1] = True
    return (kinds != 2) & ~((kinds == 1) & before_number)


def _token_kinds(codec: Codec) -> np.ndarray:
    """int8[V]: 0 a value token (number start, string, literal), 1 a key, 2 a bracket run,
    3 a special or a number token that continues a number."""
    kinds = codec.__dict__.get("_token_kinds")
    if kinds is None:
        tokens = codec.vocab.tokens
        kinds = np.zeros(len(tokens), np.int8)
        for i, t in enumerate(tokens):
            if t and set(t) <= set("[]{}"):
                kinds[i] = 2
            elif t.startswith('"') and t.endswith('":') and len(t) >= 3:
                kinds[i] = 1
        kinds[[codec.vocab.pad_id, codec.vocab.mask_id]] = 3
        codec.__dict__["_token_kinds"] = kinds
    return kinds


def _walk(ids: np.ndarray, codec: Codec) -> np.ndarray:
    ids = np.asarray(ids)
    L = len(ids)
    out = np.full((L, COLUMNS), -1, np.int64)
    kinds = _token_kinds(codec)[ids]
    starts = np.zeros(L, bool)
    starts[codec.number_starts(ids)] = True
    continues = np.zeros(L, bool)  # tokens of a number after its first (text spellings)
    for k in range(1, codec.tokens_per_number):
        continues[np.flatnonzero(starts)[np.flatnonzero(starts) + k < L] + k] = True
    tokens = codec.vocab.tokens
    # frames: one per open bracket: [is_list, next element index, current element index,
    # depth among lists (or -1), the (token, column) cells written while it was open]
    frames: list[list] = []
    lists: list[list] = []  # the list frames, outermost first

    def start_element() -> None:
        if frames and frames[-1][0]:
            f = frames[-1]
            f[2], f[1] = f[1], f[1] + 1

    def stamp(t: int) -> None:
        for depth, f in enumerate(lists[:DEPTH]):
            if f[2] >= 0:
                out[t, depth] = f[2]
                f[4].append((t, f[2]))

    for t in range(L):
        kind = kinds[t]
        if continues[t]:
            out[t] = out[t - 1]
            out[t, 2 * DEPTH] += 1
            for depth, f in enumerate(lists[:DEPTH]):
                if f[2] >= 0:
                    f[4].append((t, f[2]))
            continue
        if kind == 2:
            for c in tokens[ids[t]]:
                if c in "[{":
                    start_element()
                    frame = [c == "[", 0, -1, len(lists) if c == "[" else -1, []]
                    frames.append(frame)
                    if c == "[":
                        lists.append(frame)
                elif frames:
                    frame = frames.pop()
                    if frame[0]:
                        lists.pop()
                        if frame[3] < DEPTH:
                            n = frame[1]
                            for tok, i in frame[4]:
                                out[tok, DEPTH + frame[3]] = n - 1 - i
            stamp(t)
        elif kind == 1 or kind == 3:
            stamp(t)
        else:  # a value: a number's first token, a string, a literal
            start_element()
            stamp(t)
            if starts[t]:
                out[t, 2 * DEPTH] = 0
    return out
