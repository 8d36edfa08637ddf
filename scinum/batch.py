"""Model inputs from encoded records: hide chosen numbers, pad, encode the visible values.

Shared by training (:mod:`scinum.data`, which draws random MLM masks) and inference
(:mod:`scinum.checkpoint`, :mod:`scinum.infer`, which hide the fields a user names); nothing here
imports Lightning, so inference stays light.

Text encodings (P10/P1000/B1999/FP15): a hidden token of a number hides the whole number
(:func:`expand_numbers`); there are no number features, and the hidden number tokens are trained
and predicted by the token head.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import torch

from . import encodings
from .codec import Codec, Encoded, Vocabulary
from .errors import RecordError
from .normalize import Normalizer
from .paths import numbers_named

__all__ = ["make_batch", "hidden_positions", "expand_numbers", "MASK_PROB"]

#: probability that a token is hidden in MLM training (xVal paper, seed 002; its Table 9 found
#: 0.3 slightly better)
MASK_PROB = 0.2


def hidden_positions(codec: Codec, record: dict, patterns: Sequence[str]) -> np.ndarray:
    """bool[L]: the number tokens of ``codec.encode(record)`` that any of ``patterns`` names
    (``data[-1][*]``, ``description.*``...; the same rule as fill, :func:`scinum.paths.numbers_named`;
    text mode: all tokens of those numbers). Raises :class:`~scinum.errors.RecordError` naming
    a pattern that names no number — the same error as fill gives for the same mask."""
    slot = {p: k for k, p in enumerate(codec.number_paths(record))}
    ids = codec.encode(record).ids
    hide = np.zeros(len(slot), bool)
    for pattern in patterns:
        hit = [slot[p] for p in numbers_named(record, pattern) if p in slot]
        if not hit:
            raise RecordError(f"mask {pattern!r} names no number of the record")
        hide[hit] = True
    out = np.zeros(len(ids), bool)
    out[codec.number_starts(ids)[hide]] = True
    return expand_numbers(out, ids, codec)


def expand_numbers(hide: np.ndarray, ids: np.ndarray, codec: Codec | None) -> np.ndarray:
    """bool[L]: ``hide`` widened so that a number with any hidden token has all its
    ``codec.tokens_per_number`` tokens hidden (text encodings; unchanged for single-token ones
    or ``codec`` None)."""
    if codec is None or codec.tokens_per_number == 1:
        return hide
    starts = codec.number_starts(ids)
    if not len(starts):
        return hide
    span = starts[:, None] + np.arange(codec.tokens_per_number)
    whole = hide[span].any(1)
    if not whole.any():
        return hide
    out = np.array(hide, bool, copy=True)
    out[span[whole].ravel()] = True
    return out


def make_batch(seqs: Sequence[Encoded], hide: Sequence[np.ndarray], *, vocab: Vocabulary,
               normalizer: Normalizer, encoding: Any, pad_to: int = 1,
               codec: Codec | None = None) -> dict[str, torch.Tensor]:
    """Model inputs and targets for sequences with the positions in ``hide`` (bool[L] each) masked.

    Text encodings need ``codec`` (``Codec(vocab, text=encoding)``): a hidden token of a number
    hides the whole number (:func:`expand_numbers`); ``feats`` is float32[B, T, 1] of ones.

    Returns (B sequences, T = max length rounded up to ``pad_to``, M hidden numbers):

    * ``ids`` int64[B, T]: hidden tokens replaced by ``[MASK]``, padding ``[PAD]``;
    * ``feats`` float32[B, T, dim]: encoding features of *visible* numbers, neutral elsewhere
      (1 for ``combine == "multiply"``, 0 for ``"add"``) — a hidden value never appears here;
    * ``attend`` bool[B, T]: real tokens; ``targets`` int64[B, T]: true id at hidden tokens, -100
      elsewhere; ``num_pos`` bool[B, T]: hidden number tokens;
    * ``num_target`` float64[M] (normalized), ``num_field`` int64[M], in row-major order of
      ``num_pos`` (text encodings: one entry per hidden number *token*).
    """
    text = encodings.is_text(encoding)
    if text:
        if codec is None or codec.text is None:
            raise ValueError(f"make_batch: text encoding {encoding.name} needs codec=Codec(vocab, text=...)")
        hide = [expand_numbers(np.asarray(h, bool), s.ids, codec) for s, h in zip(seqs, hide)]
    B, T = len(seqs), max((len(s) for s in seqs), default=1)
    T = -(-max(T, 1) // pad_to) * pad_to
    ids = np.full((B, T), vocab.pad_id, np.int64)
    vals = np.zeros((B, T), np.float64)
    fld = np.full((B, T), -1, np.int64)
    hid = np.zeros((B, T), bool)
    for b, (s, h) in enumerate(zip(seqs, hide)):
        n = len(s)
        ids[b, :n], vals[b, :n], fld[b, :n], hid[b, :n] = s.ids, s.values, s.fields, h
    attend = ids != vocab.pad_id
    is_num = fld >= 0
    norm = np.zeros((B, T), np.float64)
    norm[is_num] = normalizer.forward(vals[is_num], fld[is_num])
    visible = is_num & ~hid
    if text:  # no number features: the tokens carry the value
        feats = torch.ones((B, T, 1), dtype=torch.float32)
        visible[:] = False
    else:
        neutral = 1.0 if encoding.combine == "multiply" else 0.0
        feats = torch.full((B, T, encoding.dim), neutral, dtype=torch.float32)
    if visible.any():
        feats[torch.from_numpy(visible)] = encoding.encode(torch.from_numpy(norm[visible]))
    targets = np.where(hid, ids, -100)
    num_pos = hid & is_num
    ids = np.where(hid, vocab.mask_id, ids)
    return {"ids": torch.from_numpy(ids), "feats": feats, "attend": torch.from_numpy(attend),
            "targets": torch.from_numpy(targets), "num_pos": torch.from_numpy(num_pos),
            "num_target": torch.from_numpy(norm[num_pos]), "num_field": torch.from_numpy(fld[num_pos])}
