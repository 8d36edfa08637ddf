"""Checkpoints: one file with everything inference needs, loadable with ``weights_only=True``.

A checkpoint holds plain data and tensors::

    {"scinum": CheckpointMeta.to_dict(), "state_dict": {name: tensor}}

where the metadata (:class:`CheckpointMeta`) is ``{"format": "scinum-checkpoint", "version": 4,
"model": ModelConfig dict, "encoding": encoding.config(), "head": head config, "vocab":
Vocabulary.to_dict(), "normalizer": Normalizer.to_dict(), "context_length": int | None,
"calibration": {field: quantile-level table}, "run": {...}}``. Lightning's training checkpoints (``last.ckpt``) carry the same ``"scinum"``
entry (their ``state_dict`` keys have a ``model.`` prefix), so :func:`load_checkpoint` reads
either. Older versions load: 1 had no ``model.positions`` (a RoPE trunk), 2 built the text
encodings' trunk as ``combine="multiply"`` with features of 1 (the same function as ``"none"``),
3 had no ``model.value_path`` (the ``"layernorm"`` trunk).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from .. import encodings
from ..encodings.base import NumberEncoding
from ..util.atomic import atomic_path
from .recalibration import GRID, check_table
from ..tokens.codec import Vocabulary
from ..errors import CheckpointError
from ..heads import LEGACY_SIGMA_MIN, SIGMA_MIN, make_head
from .config import ModelConfig
from .mlm import NumberMLM
from ..tokens.normalize import Normalizer
from ..tokens.record_line import RecordLine

__all__ = ["FORMAT", "VERSION", "CheckpointMeta", "save_checkpoint", "load_checkpoint", "digest"]

FORMAT, VERSION = "scinum-checkpoint", 5  # 2: model.positions; 3: combine "none" (text); 4: model.value_path; 5: line


@dataclass
class CheckpointMeta:
    """Everything a checkpoint holds besides the weights.

    ``context_length``: the longest training record in tokens (fill refuses longer records,
    whose positions were never trained); ``calibration``: field -> the recalibration of the
    head's quantile levels fitted on validation data (:mod:`scinum.fill.calibration`; absent fields:
    none); ``run``: where the model came from (data, seed); ``line``: the fields predicted on top
    of a least-squares line (:mod:`scinum.tokens.record_line`), or None."""

    model: ModelConfig
    encoding: dict[str, Any]
    vocab: Vocabulary
    normalizer: Normalizer
    head: dict[str, Any] = field(default_factory=lambda: {"kind": "native"})
    context_length: int | None = None
    calibration: dict[str, list[float]] = field(default_factory=dict)
    run: dict[str, Any] = field(default_factory=dict)
    line: RecordLine | None = None

    def make_encoding(self) -> encodings.NumberEncoding:
        return encodings.from_config(self.encoding)

    def build_model(self, encoding: NumberEncoding | None = None) -> NumberMLM:
        """A freshly initialised :class:`NumberMLM` of this configuration (``encoding``: this
        configuration's encoding when the caller has built it already)."""
        head = make_head(encoding or self.make_encoding(), self.model.d_model, self.head, self.vocab)
        return NumberMLM(self.model, head)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (what the file stores)."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "model": self.model.to_dict(),
            "encoding": dict(self.encoding),
            "head": _head(self.head, SIGMA_MIN),
            "vocab": self.vocab.to_dict(),
            "normalizer": self.normalizer.to_dict(),
            "context_length": self.context_length,
            "calibration": dict(self.calibration),
            "run": dict(self.run),
            "line": None if self.line is None else self.line.to_dict(),
        }

    @classmethod
    def from_dict(cls, meta: Any, path: str | os.PathLike = "checkpoint") -> "CheckpointMeta":
        """Inverse of :meth:`to_dict`, for every version up to :data:`VERSION`. Raises
        :class:`CheckpointError` naming ``path`` and the first entry that is missing, of the
        wrong type or damaged (a checkpoint edited or written by something else)."""
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise CheckpointError(f"{path}: not a scinum checkpoint (no scinum metadata)")
        version = meta.get("version")
        if type(version) is not int or not 1 <= version:
            raise CheckpointError(f"{path}: checkpoint format version {version!r} is not a version number (this scinum reads 1..{VERSION})")
        if version > VERSION:
            raise CheckpointError(f"{path}: checkpoint version {version} is newer than this scinum reads ({VERSION})")
        for key in ("model", "encoding", "head", "vocab", "normalizer"):
            if not isinstance(meta.get(key), dict):
                what = "missing" if key not in meta else f"a {type(meta[key]).__name__}, not a dict"
                raise CheckpointError(f"{path}: metadata entry {key!r} is {what}")
        if not isinstance(meta["encoding"].get("name"), str):
            raise CheckpointError(f"{path}: metadata entry 'encoding' names no encoding")
        _require_plugins(meta, path)
        ctx = meta.get("context_length")
        if ctx is not None and (type(ctx) is not int or ctx < 1):
            raise CheckpointError(f"{path}: metadata entry 'context_length' is {ctx!r}, not a length")
        cal = meta.get("calibration") or {}
        if not isinstance(cal, dict) or not all(check_table(t) for t in cal.values()):
            raise CheckpointError(
                f"{path}: metadata entry 'calibration' is not field -> a table of {len(GRID)} non-decreasing levels in [0, 1]"
            )
        run = meta.get("run") or {}
        for key in ("run", "run.dataset", "run.train_ranges", "run.training"):
            value = run if key == "run" else run.get(key[4:])
            if not isinstance(value, dict) and (key == "run" or value is not None):
                raise CheckpointError(f"{path}: metadata entry {key!r} is {str(value)[:80]!r}, not a dict")
        try:
            model = dict(meta["model"])
            if version < 3 and encodings.from_config(meta["encoding"]).dim == 0:
                model.update(combine="none", num_dim=0)  # x·1 == x: the same trunk
            out = cls(
                model=ModelConfig.from_dict(model),
                encoding=dict(meta["encoding"]),
                vocab=Vocabulary.from_dict(meta["vocab"]),
                normalizer=Normalizer.from_dict(meta["normalizer"]),
                head=_head(meta["head"], LEGACY_SIGMA_MIN),
                context_length=ctx,
                calibration={str(k): list(map(float, v)) for k, v in cal.items()},
                run=dict(meta.get("run") or {}),
                line=None if meta.get("line") is None else RecordLine.from_dict(meta["line"]),
            )
            if out.line is not None and not set(out.line.fields) <= set(out.vocab.fields):
                raise ValueError(f"line fields {out.line.fields} are not all numeric fields of the vocabulary")
            return out
        except (KeyError, ValueError, TypeError, AttributeError) as e:
            raise CheckpointError(f"{path}: damaged metadata ({type(e).__name__}: {str(e)[:300]})") from None


def _require_plugins(meta: dict[str, Any], path: Any) -> None:
    """Raise a one-line :class:`CheckpointError` naming the encoding or head kind that ``meta``
    needs and no installed package provides (:mod:`scinum.plugins`), before anything is built
    (so a missing plug-in is not reported as weights that do not fit)."""
    from ..heads import lookup as head_kind
    from ..plugins import PluginNotFound

    try:
        encodings.lookup(meta["encoding"]["name"])
        head_kind(meta["head"].get("kind", "native"))
    except PluginNotFound as e:
        raise CheckpointError(f"{path}: {e}") from None


def digest(meta: Any, state: Any) -> str:
    """``"sha256:<hex>"`` of a checkpoint's metadata (canonical JSON) and weights (each tensor's
    name, dtype, shape and bytes, by name). Stored under ``"digest"`` when saving (Lightning's
    ``last.ckpt`` too) and checked on load: torch does not check its zip's CRCs, so without it a
    flipped byte would load silently. A damaged entry that is not data gives a digest that
    matches nothing."""
    h = hashlib.sha256(json.dumps(meta, sort_keys=True, default=repr).encode())
    for name in sorted(state, key=str) if isinstance(state, dict) else ():
        t = state[name]
        h.update(f"\0{name}\0".encode())
        if isinstance(t, torch.Tensor):
            t = t.detach().cpu().contiguous().reshape(-1)
            h.update(f"{t.dtype}{tuple(state[name].shape)}\0".encode())
            h.update(t.view(torch.uint8).numpy().data)
        else:
            h.update(repr(t).encode())
    return "sha256:" + h.hexdigest()


def _head(head: dict[str, Any], sigma_min: float) -> dict[str, Any]:
    """A copy of a head config whose mixture head names its variance floor (``sigma_min`` where
    it names none)."""
    head = dict(head)
    if head.get("kind") == "mixture":
        head.setdefault("sigma_min", sigma_min)
    return head


def save_checkpoint(path: str | os.PathLike, model: NumberMLM, meta: CheckpointMeta) -> None:
    """Write ``{"scinum": meta.to_dict(), "state_dict": ..., "digest": ...}`` atomically (temp
    name + rename). The metadata passes the checks :func:`load_checkpoint` makes first (a
    :class:`CheckpointError` naming ``path``, nothing written): what is saved loads back."""
    state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    info = meta.to_dict()
    CheckpointMeta.from_dict(info, path)
    with atomic_path(path) as tmp:
        torch.save({"scinum": info, "state_dict": state, "digest": digest(info, state)}, tmp)


def load_checkpoint(path: str | os.PathLike) -> tuple[CheckpointMeta, NumberMLM]:
    """Load a scinum checkpoint (or a Lightning ``.ckpt`` written by ``scinum fit``; a
    directory written by ``scinum export`` too: :func:`scinum.model.exported.load_model`) safely:
    its metadata and the model with its weights (on the CPU, in training mode).

    Uses ``torch.load(..., weights_only=True)``: no code from the file runs. A missing,
    truncated, foreign or damaged file (its stored :func:`digest` does not match; files without
    one, from older versions, are not checked), or weights that do not fit the stored config, raise
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
        raise CheckpointError(
            f"{path}: not a readable checkpoint (truncated, not a torch file, or holding objects that a safe load refuses{detail})"
        ) from None
    if isinstance(ckpt, dict) and "digest" in ckpt:  # older checkpoints have none: not checked
        if ckpt["digest"] != digest(ckpt.get("scinum"), ckpt.get("state_dict")):
            raise CheckpointError(
                f"{path}: damaged: its weights or metadata differ from what was saved (sha256 digest mismatch); use an intact copy"
            )
    meta = CheckpointMeta.from_dict(ckpt.get("scinum") if isinstance(ckpt, dict) else None, path)
    state = ckpt.get("state_dict", {})
    if not isinstance(state, dict):
        raise CheckpointError(f"{path}: its state_dict is a {type(state).__name__}, not a dict")
    if any(k.startswith("model.") for k in state):
        state = {k[len("model.") :]: v for k, v in state.items() if k.startswith("model.")}
    try:
        model = meta.build_model()
        model.load_state_dict(state)
    except (KeyError, ValueError, RuntimeError, TypeError) as e:
        raise CheckpointError(f"{path}: weights do not match the stored config ({str(e)[:300]})") from None
    return meta, model
