"""Checkpoints: one file with everything inference needs, loadable with ``weights_only=True``.

A checkpoint is a dict of plain data and tensors::

    {"scinum": {"format": "scinum-checkpoint", "version": 1,
                "model": ModelConfig dict, "encoding": encoding.config(), "head": head config,
                "vocab": Vocabulary.to_dict(), "normalizer": Normalizer.to_dict(), "run": {...}},
     "state_dict": {name: tensor}}

Lightning's training checkpoints (``last.ckpt``) carry the same ``"scinum"`` entry (their
``state_dict`` keys have a ``model.`` prefix), so :func:`load_checkpoint` reads either.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch

from . import encodings
from .atomic import atomic_path
from .codec import Codec, Encoded, Vocabulary
from .errors import CheckpointError
from .heads import make_head
from .model import ModelConfig, NumberMLM
from .normalize import Normalizer

__all__ = ["FORMAT", "build_model", "save_checkpoint", "load_checkpoint", "TrainedModel", "Prediction"]

FORMAT, VERSION = "scinum-checkpoint", 2  # 2: model.positions (1 = RoPE trunk)
#: uncertainty entries that are locations / spreads in normalized units (converted to the record's)
_LOCATIONS, _SPREADS = ("means", "mean", "quantiles"), ("stds", "std")


def build_model(meta: dict[str, Any]) -> NumberMLM:
    """A freshly initialised :class:`NumberMLM` for checkpoint metadata ``meta``."""
    cfg = ModelConfig.from_dict(meta["model"])
    encoding = encodings.from_config(meta["encoding"])
    return NumberMLM(cfg, make_head(encoding, cfg.d_model, meta["head"]))


def save_checkpoint(path: str | os.PathLike, model: NumberMLM, meta: dict[str, Any]) -> None:
    """Write ``{"scinum": meta, "state_dict": ...}`` atomically (temp name + rename)."""
    state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    with atomic_path(path) as tmp:
        torch.save({"scinum": meta, "state_dict": state}, tmp)


@dataclass
class Prediction:
    """The hidden numbers of one sequence. ``positions`` int64[M] (token positions, ascending),
    ``values`` float64[M] in the record's units, ``uncertainty`` {name: float64 array [M, ...]},
    ``says_number`` bool[M]: whether the token head's argmax at the number is a number token
    (``[NUM]``/``[INT]``) — the xVal paper reads the number head only where it is (§2.2); None
    for text encodings, whose numbers are tokens (see ``unparseable``)."""

    positions: np.ndarray
    values: np.ndarray
    uncertainty: dict[str, np.ndarray] = field(default_factory=dict)
    says_number: np.ndarray | None = None


class TrainedModel:
    """A loaded checkpoint: ``model`` (eval mode), ``head``, ``codec``, ``vocab``, ``normalizer``,
    ``encoding``, ``meta``; :meth:`predict` fills hidden numbers in batches."""

    def __init__(self, meta: dict[str, Any], model: NumberMLM, device: str | torch.device = "cpu"):
        self.meta = meta
        self.device = torch.device(device)
        self.model = model.to(self.device).eval()
        self.head = model.head
        self.vocab = Vocabulary.from_dict(meta["vocab"])
        self.encoding = encodings.from_config(meta["encoding"])
        self.text = encodings.is_text(self.encoding)
        self.codec = Codec(self.vocab, text=self.encoding if self.text else None)
        self.normalizer = Normalizer.from_dict(meta["normalizer"])

    @torch.no_grad()
    def predict(self, seqs: Sequence[Encoded], hide: Sequence[np.ndarray], *, batch_size: int = 64,
                quantiles: Sequence[float] = ()) -> list[Prediction]:
        """Predict the numbers at the hidden positions of each sequence.

        ``seqs``: encoded records (``self.codec.encode(record)``; values at hidden positions are
        ignored — they may be NaN). ``hide``: one bool[L] per sequence, True at the number tokens
        to hide and predict (see :func:`scinum.batch.hidden_positions` for paths -> mask); True at a
        non-number token raises ``ValueError``. Sequences are batched by length; the result is in
        input order. ``quantiles`` (in (0, 1)) adds ``uncertainty["quantiles"]`` [M, Q] for heads
        that have them (mixture). Values and location/spread uncertainties (``means``, ``mean``,
        ``quantiles``, ``stds``, ``std``) are in the record's units; other entries (probabilities,
        weights) are unit-free.

        Text encodings: a hidden token hides its whole number; each hidden number is the argmax
        token at each of its positions, parsed by the encoding. ``positions`` are the numbers'
        first tokens; ``values`` is NaN where the tokens do not parse; ``uncertainty`` has
        ``unparseable`` bool[M], ``p_number`` [M] (product of the chosen tokens' probabilities)
        and ``tokens`` str[M, k] (the predicted token strings).
        """
        from .batch import expand_numbers, make_batch
        if len(seqs) != len(hide):
            raise ValueError(f"{len(seqs)} sequences but {len(hide)} hide masks")
        masks = [np.asarray(h, bool) for h in hide]
        for k, (s, h) in enumerate(zip(seqs, masks)):
            if h.shape != s.ids.shape or (h & (s.fields < 0)).any():
                raise ValueError(f"sequence {k}: hide mask must be bool[{len(s)}] and True only at "
                                 "number tokens")
        if self.text:
            masks = [expand_numbers(h, s.ids, self.codec) for s, h in zip(seqs, masks)]
        clean = [Encoded(s.ids, np.where(h, 0.0, s.values), s.fields) for s, h in zip(seqs, masks)]
        order = np.argsort([len(s) for s in seqs], kind="stable")
        out: list[Prediction | None] = [None] * len(seqs)
        for a in range(0, len(order), batch_size):
            idx = order[a:a + batch_size]
            batch = make_batch([clean[i] for i in idx], [masks[i] for i in idx], vocab=self.vocab,
                               normalizer=self.normalizer, encoding=self.encoding, codec=self.codec)
            batch = {k: v.to(self.device) for k, v in batch.items()}
            rows, valid = _wanted_rows(batch["num_pos"])
            h_num = self.model(batch["ids"], batch["feats"], batch["attend"], rows)[valid]
            if self.text:
                self._predict_text(h_num, [seqs[i] for i in idx], [masks[i] for i in idx], idx, out)
                continue
            res = self.head(h_num)
            token = self.model.trunk.token_logits(h_num).argmax(-1).cpu().numpy()
            says = (token == self.vocab.num_id) | (token == self.vocab.int_id)
            fids = batch["num_field"].cpu().numpy()
            values = self.normalizer.inverse(self.head.predict(res).cpu().numpy(), fids)
            unc = {k: v.double().cpu().numpy() for k, v in self.head.uncertainty(res).items()}
            if quantiles and hasattr(self.head, "quantile"):
                unc["quantiles"] = self.head.quantile(res, list(quantiles)).cpu().numpy()
            scale = self.normalizer.scale[np.where(fids >= 0, fids, 0)]
            for k in unc:
                if k in _LOCATIONS:
                    f = fids.reshape((-1,) + (1,) * (unc[k].ndim - 1))
                    unc[k] = self.normalizer.inverse(unc[k], np.broadcast_to(f, unc[k].shape))
                elif k in _SPREADS:
                    unc[k] = unc[k] * scale.reshape((-1,) + (1,) * (unc[k].ndim - 1))
            counts = batch["num_pos"].sum(1).cpu().numpy()
            starts = np.concatenate([[0], np.cumsum(counts)])
            for j, i in enumerate(idx):
                sl = slice(starts[j], starts[j + 1])
                out[i] = Prediction(np.flatnonzero(masks[i]), values[sl], {k: v[sl] for k, v in unc.items()},
                                    says[sl])
        return out  # type: ignore[return-value]

    def _predict_text(self, h_num: torch.Tensor, seqs: Sequence[Encoded],
                      masks: Sequence[np.ndarray], idx: np.ndarray, out: list) -> None:
        """Text encodings: argmax tokens at the hidden positions (``h_num``, row-major), grouped
        per number, parsed."""
        k = self.codec.tokens_per_number
        probs = self.model.trunk.token_logits(h_num).float().softmax(-1)
        p, tok = probs.max(-1)
        p, tok = p.double().cpu().numpy().reshape(-1, k), tok.cpu().numpy().reshape(-1, k)
        names = np.array(self.vocab.tokens, dtype=object)[tok]
        values = np.array([math.nan if (v := self.encoding.parse(list(t))) is None else v for t in names],
                          np.float64).reshape(-1)
        a = 0
        for s, m, i in zip(seqs, masks, idx):
            starts = self.codec.number_starts(s.ids)
            pos = starts[m[starts]]
            sl = slice(a, a + len(pos))
            a += len(pos)
            out[i] = Prediction(pos, values[sl], {"unparseable": np.isnan(values[sl]),
                                                  "p_number": p[sl].prod(1),
                                                  "tokens": names[sl].astype(str)})


def _wanted_rows(num_pos: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """bool[B, L] -> (rows int64[B, M], valid bool[B, M]): each sequence's True positions in
    order, padded to the longest count M with position 0; ``h[rows][valid] == h[num_pos]``."""
    counts = num_pos.sum(1)
    m = max(int(counts.max()) if len(counts) else 0, 1)
    valid = torch.arange(m, device=num_pos.device)[None, :] < counts[:, None]
    order = torch.argsort((~num_pos).to(torch.int8), dim=1, stable=True)  # True positions first
    return order[:, :m], valid


def load_checkpoint(path: str | os.PathLike, device: str | torch.device = "cpu") -> TrainedModel:
    """Load a scinum checkpoint (or a Lightning ``.ckpt`` written by ``scinum fit``) safely.

    Uses ``torch.load(..., weights_only=True)``: no code from the file runs. A missing,
    truncated or foreign file, or weights that do not fit the stored config, raise
    :class:`~scinum.errors.CheckpointError` naming the file.
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no such checkpoint file")
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # the unpickler raises many kinds on a truncated or foreign file
        first = (str(e).splitlines() or [""])[0][:200]
        detail = "" if "weights_only" in str(e) else f": {type(e).__name__}: {first}"
        raise CheckpointError(f"{path}: not a readable checkpoint (truncated, not a torch file, or "
                              f"holding objects that a safe load refuses{detail})") from None
    meta = ckpt.get("scinum") if isinstance(ckpt, dict) else None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a scinum checkpoint (no scinum metadata)")
    _check_meta(path, meta)
    state = ckpt.get("state_dict", {})
    if not isinstance(state, dict):
        raise CheckpointError(f"{path}: its state_dict is a {type(state).__name__}, not a dict")
    if any(k.startswith("model.") for k in state):
        state = {k[len("model."):]: v for k, v in state.items() if k.startswith("model.")}
    try:
        model = build_model(meta)
        model.load_state_dict(state)
    except (KeyError, ValueError, RuntimeError, TypeError) as e:
        raise CheckpointError(f"{path}: weights do not match the stored config ({str(e)[:300]})") from None
    try:
        return TrainedModel(meta, model, device)
    except (KeyError, ValueError, TypeError, AttributeError) as e:
        raise CheckpointError(f"{path}: damaged metadata ({type(e).__name__}: {str(e)[:300]})") from None


#: metadata entries every checkpoint has, and their types
_META_TYPES = {"model": dict, "encoding": dict, "head": dict, "vocab": dict, "normalizer": dict}


def _check_meta(path: Path, meta: dict[str, Any]) -> None:
    """Raise :class:`CheckpointError` naming the first metadata entry that is missing or of the
    wrong type (a checkpoint edited or written by something else)."""
    version = meta.get("version")
    if type(version) is not int or not 1 <= version:
        raise CheckpointError(f"{path}: checkpoint format version {version!r} is not a version "
                              f"number (this scinum reads 1..{VERSION})")
    if version > VERSION:
        raise CheckpointError(f"{path}: checkpoint version {version} is newer than this scinum "
                              f"reads ({VERSION})")
    for key, kind in _META_TYPES.items():
        if not isinstance(meta.get(key), kind):
            what = "missing" if key not in meta else f"a {type(meta[key]).__name__}, not a {kind.__name__}"
            raise CheckpointError(f"{path}: metadata entry {key!r} is {what}")
    if not isinstance(meta["encoding"].get("name"), str):
        raise CheckpointError(f"{path}: metadata entry 'encoding' names no encoding")
    ctx = meta.get("context_length")
    if ctx is not None and (type(ctx) is not int or ctx < 1):
        raise CheckpointError(f"{path}: metadata entry 'context_length' is {ctx!r}, not a length")
