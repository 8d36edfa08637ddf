"""Model inputs from encoded records: hide chosen numbers, pad, encode the visible values.

Shared by training (:mod:`scinum.train.data`, which draws random MLM masks) and inference
(:mod:`scinum.model.checkpoint`, :mod:`scinum.fill.model`, which hide the fields a user names); nothing here
imports Lightning, so inference stays light.

An encoding that spells a number in several tokens (the text baselines): a hidden token of a
number hides the whole number (:func:`expand_numbers`).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence, TypedDict

import numpy as np
import torch

from .codec import INT, NUM, SPECIALS, Codec, Encoded
from ..errors import RecordError
from .normalize import Normalizer
from .record_line import RecordLine
from ..records.paths import numbers_named
from .structure import COLUMNS, list_indices, read_tokens

__all__ = [
    "Batch",
    "make_batch",
    "padded_length",
    "hidden_positions",
    "expand_numbers",
    "hidden_rows",
    "row_count",
    "row_multiple",
    "GPU_ROW_MULTIPLE",
    "shown_numbers",
    "MASK_PROB",
]

#: probability that a token is hidden in MLM training (xVal paper, seed 002; its Table 9 found
#: 0.3 slightly better)
MASK_PROB = 0.2


class _Structure(TypedDict, total=False):
    # (only with make_batch(structure=True)) int64[B, T, 1 + COLUMNS]: each token's field id
    # (-1 off numbers) and list indices (scinum.tokens.structure.list_indices; -1 at padding)
    structure: torch.Tensor
    # (only with make_batch(line=...)) float64[N] each: a hidden number's normalized value is
    # num_offset + num_scale · what the network predicts (0 and 1 off the line's fields)
    num_offset: torch.Tensor
    num_scale: torch.Tensor
    # ... and how far the line was held where it has no support (normalized; 0: not held; the
    # training records never are: scinum.tokens.record_line), which a fill's prediction widens by
    num_held: torch.Tensor
    # (only in training, made by the collator in the loader's workers) the hidden tokens' rows
    # and places as indices: :class:`HiddenLayout`
    hidden_layout: HiddenLayout


class Batch(_Structure):
    """What the model reads and learns from (B sequences, T positions, N hidden number tokens);
    :func:`make_batch` builds it, for training (:class:`scinum.train.masking.MLMCollator`) and
    inference alike."""

    ids: torch.Tensor  # int64[B, T]: hidden tokens -> [MASK], padding [PAD]
    feats: torch.Tensor  # float32[B, T, dim]: encoding features of visible numbers
    attend: torch.Tensor  # bool[B, T]: real (non-padding) tokens
    targets: torch.Tensor  # int64[B, T]: true token id where hidden, -100 elsewhere
    num_hidden: torch.Tensor  # bool[B, T]: hidden number tokens
    num_target: torch.Tensor  # float64[N]: their normalized values, row-major over num_hidden
    num_field: torch.Tensor  # int64[N]: their field ids


def hidden_positions(codec: Codec, record: dict, patterns: Sequence[str]) -> np.ndarray:
    """bool[L]: the number tokens of ``codec.encode(record)`` that any of ``patterns`` names
    (``data[-1][*]``, ``description.*``...; the same rule as fill, :func:`scinum.records.paths.numbers_named`;
    every token of a number spelled in several). Raises :class:`~scinum.errors.RecordError` naming
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


def expand_numbers(hide: np.ndarray, ids: np.ndarray, codec: Codec) -> np.ndarray:
    """bool[L]: ``hide`` widened so that a number with any hidden token has all its
    ``codec.tokens_per_number`` tokens hidden (unchanged for one token per number)."""
    if codec.tokens_per_number == 1:
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


def padded_length(n: int, pad_to: int = 1) -> int:
    """The length T of a batch whose longest sequence is ``n`` tokens: ``n`` (at least 1) rounded
    up to a multiple of ``pad_to`` — what :func:`make_batch` pads to and a learned position table
    must cover."""
    return -(-max(n, 1) // pad_to) * pad_to


def make_batch(
    seqs: Sequence[Encoded],
    hide: Sequence[np.ndarray],
    *,
    codec: Codec,
    normalizer: Normalizer,
    encoding: Any,
    pad_to: int = 1,
    structure: bool = False,
    structure_tokens: bool = True,
    line: RecordLine | None = None,
) -> Batch:
    """Model inputs and targets for sequences with the positions in ``hide`` (bool[L] each) masked.

    ``codec``: the model's (its vocabulary and the encoding's spelling); a hidden token of a
    number hides the whole number (:func:`expand_numbers`).

    Returns (B sequences, T = max length rounded up to ``pad_to``, N hidden number tokens):

    * ``ids`` int64[B, T]: hidden tokens replaced by ``[MASK]``, padding ``[PAD]``;
    * ``feats`` float32[B, T, dim]: encoding features of *visible* numbers, neutral elsewhere
      (1 for ``combine == "multiply"``, 0 otherwise) — a hidden value never appears here;
    * ``attend`` bool[B, T]: real tokens; ``targets`` int64[B, T]: true id at hidden tokens, -100
      elsewhere; ``num_hidden`` bool[B, T]: hidden number tokens;
    * ``num_target`` float64[N] (normalized), ``num_field`` int64[N], in row-major order of
      ``num_hidden`` (one entry per hidden number *token*);
    * with ``structure``: ``structure`` int64[B, T, 1 + COLUMNS], what a trunk with
      ``positions: structure`` reads (field id, then list indices of the unmasked ids).

    ``structure_tokens`` False (with ``structure``): each sequence keeps only the tokens
    :func:`~scinum.tokens.structure.read_tokens` names (no bracket runs, no keys of numbers), so
    T counts those; every number stays, in order, so ``num_target`` and ``num_field`` are the same.

    ``line`` (:mod:`scinum.tokens.record_line`): a hidden number of one of its fields gets the
    line of the numbers its record shows as ``num_offset`` and the line's unit as ``num_scale``
    (both normalized), and ``num_target`` becomes ``(normalized value - num_offset) /
    num_scale``: what the network is trained to predict; ``num_held``: how far the line was held
    (normalized).
    """
    vocab = codec.vocab
    if not structure_tokens and not structure:
        raise ValueError("structure_tokens=False leaves brackets and keys to the structure positions: it needs structure=True")
    hide = [expand_numbers(np.asarray(h, bool), s.ids, codec) for s, h in zip(seqs, hide)]
    keep: list[slice | np.ndarray] = [slice(None) if structure_tokens else np.flatnonzero(read_tokens(s.ids, codec)) for s in seqs]
    lengths = [len(s) if isinstance(k, slice) else len(k) for s, k in zip(seqs, keep)]
    B, T = len(seqs), padded_length(max(lengths, default=1), pad_to)
    ids = np.full((B, T), vocab.pad_id, np.int64)
    vals = np.zeros((B, T), np.float64)
    fld = np.full((B, T), -1, np.int64)
    hid = np.zeros((B, T), bool)
    for b, (s, h, k, n) in enumerate(zip(seqs, hide, keep, lengths)):
        ids[b, :n], vals[b, :n], fld[b, :n], hid[b, :n] = s.ids[k], s.values[k], s.fields[k], h[k]
    attend = ids != vocab.pad_id
    is_num = fld >= 0
    norm = np.zeros((B, T), np.float64)
    norm[is_num] = normalizer.forward(vals[is_num], fld[is_num])
    visible = is_num & ~hid
    neutral = 1.0 if encoding.combine == "multiply" else 0.0
    feats = torch.full((B, T, encoding.dim), neutral, dtype=torch.float32)
    if visible.any() and encoding.dim:
        feats[torch.from_numpy(visible)] = encoding.encode(torch.from_numpy(norm[visible]))
    targets = np.where(hid, ids, -100)
    num_hidden = hid & is_num
    batch = Batch(
        ids=torch.from_numpy(np.where(hid, vocab.mask_id, ids)),
        feats=feats,
        attend=torch.from_numpy(attend),
        targets=torch.from_numpy(targets),
        num_hidden=torch.from_numpy(num_hidden),
        num_target=torch.from_numpy(norm[num_hidden]),
        num_field=torch.from_numpy(fld[num_hidden]),
    )
    if line is not None:
        _under_line(batch, line, seqs, hide, codec, normalizer)
    if structure:
        where = np.full((B, T, 1 + COLUMNS), -1, np.int64)
        where[..., 0] = fld
        for b, (s, k, n) in enumerate(zip(seqs, keep, lengths)):
            where[b, :n, 1:] = list_indices(s.ids, codec)[k]
        batch["structure"] = torch.from_numpy(where)
    return batch


def _under_line(
    batch: Batch, line: RecordLine, seqs: Sequence[Encoded], hide: Sequence[np.ndarray], codec: Codec, normalizer: Normalizer
) -> None:
    """Put :func:`make_batch`'s hidden numbers of ``line``'s fields under their line (in place)."""
    lined = {codec.vocab.fields.index(f): i for i, f in enumerate(line.fields)}
    # per hidden number token: its line and unit in record units (NaN: no line), and how far the
    # line was held (scinum.tokens.record_line; 0: not, or no line)
    raw: list[float] = []
    unit: list[float] = []
    held: list[float] = []
    for s, h in zip(seqs, hide):
        rows = s.fields[(s.fields >= 0) & h]  # the field of every hidden number token, in order (num_field's)
        which = sorted({lined[int(f)] for f in rows if int(f) in lined})
        values, moves = line.value_and_move(s, ~h[codec.number_starts(s.ids)], codec, which) if which else (np.empty(0), np.empty(0))
        value, move = dict(zip(which, values)), dict(zip(which, moves))
        for fid in rows:
            i = lined.get(int(fid))
            raw.append(np.nan if i is None else value[i])
            unit.append(np.nan if i is None else line.scale[i])
            held.append(0.0 if i is None else move[i])
    fids = batch["num_field"].numpy()
    on = ~np.isnan(raw)
    off = torch.from_numpy(np.where(on, normalizer.forward(np.nan_to_num(raw), fids), 0.0))
    k = torch.from_numpy(np.where(on, np.asarray(unit) / normalizer.scale[fids], 1.0))
    batch["num_offset"], batch["num_scale"] = off, k
    batch["num_held"] = torch.from_numpy(np.asarray(held, np.float64) / normalizer.scale[fids])
    batch["num_target"] = (batch["num_target"] - off) / k


#: on a GPU, the last block's row count M is rounded up to a multiple of this: a step on an
#: (M, batch length) pair new to the process is several times slower, and M changes from batch
#: to batch (experiments/gpu-check-h200)
GPU_ROW_MULTIPLE = 16


def row_multiple(device: torch.device) -> int:
    """The ``multiple`` :func:`hidden_rows` takes on ``device``: :data:`GPU_ROW_MULTIPLE` on a
    CUDA device, 1 elsewhere (CPU runs stay bit for bit as they were; no per-shape cost was
    measured on a CPU)."""
    return GPU_ROW_MULTIPLE if device.type == "cuda" else 1


def row_count(longest: int, length: int, multiple: int = 1) -> int:
    """M of :func:`hidden_rows`: the longest count of hidden positions in a batch (at least 1),
    rounded up to a multiple of ``multiple``, at most the batch's ``length`` (at least 1)."""
    return min(-(-max(longest, 1) // multiple) * multiple, max(length, 1))


def hidden_rows(num_hidden: torch.Tensor, multiple: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    """bool[B, L] -> (rows int64[B, M], valid bool[B, M]): each sequence's True positions in
    order, padded to the longest count, rounded up to a multiple of ``multiple`` (at most L), with
    other positions (:func:`row_count`); ``h[rows][valid] == h[num_hidden]``."""
    counts = num_hidden.sum(1)
    m = row_count(int(counts.max()) if len(counts) else 0, num_hidden.shape[1], multiple)
    valid = torch.arange(m, device=num_hidden.device)[None, :] < counts[:, None]
    order = torch.argsort((~num_hidden).to(torch.int8), dim=1, stable=True)  # True positions first
    return order[:, :m], valid


class HiddenLayout(NamedTuple):
    """Where a batch's T hidden tokens and N hidden numbers are, as index tensors: what a training
    step would otherwise read with boolean masks, made on the host before the batch moves to a GPU
    (:class:`scinum.train.masking.MLMCollator`, in the loader's workers), so that the step never
    waits for the device to learn a count (experiments/gpu-rows-h200).
    ``h_rows.flatten(0, 1)[take] == h[tok]``, ``targets == batch["targets"][tok]``,
    ``h[tok][numbers] == h[num_hidden]`` (tok: the hidden tokens, ``targets != -100``)."""

    rows: torch.Tensor  # int64[B, M]: :func:`hidden_rows`' rows, M rounded to the device's multiple
    take: torch.Tensor  # int64[T]: the hidden tokens' places in rows flattened to [B·M], row-major
    targets: torch.Tensor  # int64[T]: their true token ids
    numbers: torch.Tensor  # int64[N]: which of the T hidden tokens are hidden numbers


def hidden_layout(batch: Batch, multiple: int = 1) -> HiddenLayout:
    """The :class:`HiddenLayout` of ``batch`` (``multiple``: :func:`row_multiple` of the device
    the batch is read on), on the batch's device."""
    tok = batch["targets"] != -100
    rows, valid = hidden_rows(tok, multiple)
    return HiddenLayout(rows, valid.flatten().nonzero().squeeze(1), batch["targets"][tok], batch["num_hidden"][tok].nonzero().squeeze(1))


_NUMBER_IDS = (SPECIALS.index(NUM), SPECIALS.index(INT))  # token ids of a shown number (float or integer)


def shown_numbers(ids: torch.Tensor) -> torch.Tensor:
    """int64[B, L] token ids -> bool[B, L]: the positions that show a number (not hidden, not text)."""
    return (ids == _NUMBER_IDS[0]) | (ids == _NUMBER_IDS[1])
