"""An export directory read back (``scinum export`` writes it: :mod:`scinum.share.export`):
``config.json`` checked for its format and version (:func:`read_config`), the model built from
it with the weights of ``model.safetensors`` (:func:`load_dir`). Reads JSON and safetensors
only; a damaged or foreign directory raises a one-line :class:`~scinum.errors.CheckpointError`
naming the file."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import torch

from ..errors import CheckpointError
from ..util.provenance import file_sha256
from .checkpoint import FORMAT as CKPT_FORMAT, VERSION as CKPT_VERSION
from .checkpoint import CheckpointMeta, load_checkpoint
from .mlm import NumberMLM

__all__ = [
    "FORMAT",
    "VERSION",
    "WEIGHTS",
    "CONFIG",
    "CARD",
    "META_KEYS",
    "read_config",
    "config_digest",
    "load_dir",
    "load_model",
    "one_line",
]

FORMAT, VERSION = "scinum-model", 2  # 2: config.json carries its digest, weights' sha256 required
WEIGHTS, CONFIG, CARD = "model.safetensors", "config.json", "README.md"
#: the entries of :class:`~scinum.model.checkpoint.CheckpointMeta` that ``config.json`` holds
META_KEYS = ("model", "encoding", "head", "vocab", "normalizer", "context_length", "calibration", "run", "line")


def read_config(path: str | os.PathLike) -> dict[str, Any]:
    """The ``config.json`` of an export directory, checked for its format, version and digest
    (:func:`config_digest`: an edited or damaged config is refused)."""
    cfg_path = Path(path) / CONFIG
    if not cfg_path.is_file():
        raise CheckpointError(f"{cfg_path}: missing: {path} is not a scinum model directory")
    try:
        config = json.loads(cfg_path.read_text(encoding="utf-8"))
        config_digest(config) if isinstance(config, dict) else None  # nesting too deep: here
    except RecursionError:
        raise CheckpointError(f"{cfg_path}: nested too deep to be a model config") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise CheckpointError(
            f"{cfg_path}: not readable JSON ({type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''})"
        ) from None
    if not isinstance(config, dict) or config.get("format") != FORMAT:
        raise CheckpointError(f"{cfg_path}: not a scinum model config (format is not {FORMAT!r})")
    version = config.get("version")
    if type(version) is not int or version != VERSION:
        older = type(version) is int and 1 <= version < VERSION
        raise CheckpointError(
            f"{cfg_path}: model config version {version!r} is not one this scinum "
            f"reads ({VERSION})" + ("; written without digests: export the checkpoint again" if older else "")
        )
    if config.get("digest") != config_digest(config):
        raise CheckpointError(
            f"{cfg_path}: damaged or edited: its digest is "
            f"{str(config.get('digest'))[:80]!r}, its content's "
            f"{config_digest(config)!r}; export the checkpoint again"
        )
    return config


def config_digest(config: dict[str, Any]) -> str:
    """``"sha256:<hex>"`` of an export's config (canonical JSON: sorted keys, no spaces), its
    ``"digest"`` entry left out."""
    body = {k: v for k, v in config.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), default=repr)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def load_dir(path: str | os.PathLike) -> tuple[CheckpointMeta, NumberMLM]:
    """Load an export directory: its metadata and the model with its weights (CPU, training
    mode), as :func:`~scinum.model.checkpoint.load_checkpoint` does for a file. Reads JSON and
    safetensors only. Raises :class:`CheckpointError` naming the file at fault: a missing or
    foreign ``config.json``, missing keys, an unknown encoding, a weights file that is damaged,
    not the one the config names (sha256), or holds tensors that do not fit the config."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    path = Path(path)
    config = read_config(path)
    cfg_path, w_path = path / CONFIG, path / WEIGHTS
    missing = [k for k in ("model", "encoding", "head", "vocab", "normalizer", "weights") if k not in config]
    if missing:
        raise CheckpointError(f"{cfg_path}: missing key(s) {missing}")
    ckpt_version = config.get("checkpoint_version", CKPT_VERSION)
    meta = CheckpointMeta.from_dict({**{k: config.get(k) for k in META_KEYS}, "format": CKPT_FORMAT, "version": ckpt_version}, cfg_path)
    if len(meta.vocab) != meta.model.vocab_size:
        raise CheckpointError(f"{cfg_path}: its vocabulary has {len(meta.vocab)} tokens but its model {meta.model.vocab_size}")
    if meta.normalizer.method != "none" and meta.normalizer.fields != meta.vocab.fields:
        raise CheckpointError(f"{cfg_path}: its normalizer's fields are not its vocabulary's numeric fields")
    try:
        meta.make_encoding()
    except (ValueError, TypeError) as e:
        raise CheckpointError(f"{cfg_path}: encoding {meta.encoding} cannot be made ({one_line(e)})") from None
    weights = config["weights"]
    if not isinstance(weights, dict) or not isinstance(weights.get("tied", {}), dict):
        raise CheckpointError(f"{cfg_path}: entry 'weights' is not {{file, sha256, tied}}")
    if not w_path.is_file():
        raise CheckpointError(f"{w_path}: missing (the weights of {path})")
    if weights.get("file") != WEIGHTS or not isinstance(weights.get("sha256"), str):
        raise CheckpointError(
            f"{cfg_path}: entry 'weights' names no {WEIGHTS} with its sha256 "
            f"(file {str(weights.get('file'))[:80]!r}, sha256 "
            f"{str(weights.get('sha256'))[:80]!r})"
        )
    if file_sha256(w_path) != weights["sha256"]:
        raise CheckpointError(f"{w_path}: sha256 differs from the one {CONFIG} records (a damaged or replaced weights file)")
    try:
        state = load_file(str(w_path))
    except (SafetensorError, OSError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{w_path}: not a readable safetensors file ({one_line(e)})") from None
    for name, source in weights.get("tied", {}).items():
        if source not in state:
            raise CheckpointError(f"{cfg_path}: tied weight {name!r} names {source!r}, which {WEIGHTS} does not hold")
        state[name] = state[source]
    try:
        model = meta.build_model()
    except (ValueError, TypeError, KeyError, RuntimeError) as e:
        raise CheckpointError(f"{cfg_path}: the model it describes cannot be built ({one_line(e)})") from None
    _check_fits(model, state, cfg_path)
    model.load_state_dict(state)
    return meta, model


def _check_fits(model: NumberMLM, state: dict[str, torch.Tensor], cfg_path: Path) -> None:
    """One-line error at the first tensor that the config's model lacks, misses or shapes
    otherwise."""
    want = model.state_dict()
    extra, lacking = sorted(set(state) - set(want)), sorted(set(want) - set(state))
    if lacking:
        raise CheckpointError(
            f"{cfg_path}: the model it describes needs tensor {lacking[0]!r}, which {WEIGHTS} does not hold ({len(lacking)} missing)"
        )
    if extra:
        raise CheckpointError(
            f"{cfg_path}: {WEIGHTS} holds tensor {extra[0]!r}, which the model it describes has no place for ({len(extra)} such)"
        )
    for name, t in want.items():
        if tuple(state[name].shape) != tuple(t.shape):
            raise CheckpointError(
                f"{cfg_path}: tensor {name!r} is {list(state[name].shape)} in {WEIGHTS} but {list(t.shape)} in the model it describes"
            )


def one_line(e: BaseException) -> str:
    text = (str(e).splitlines() or [""])[0][:200]
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def load_model(path: str | os.PathLike) -> tuple[CheckpointMeta, NumberMLM]:
    """A model and its metadata from a checkpoint file (:func:`load_checkpoint`) or an export
    directory (:func:`load_dir`)."""
    return load_dir(path) if Path(path).is_dir() else load_checkpoint(path)
