"""Share a trained model as the ecosystem does: a directory with ``model.safetensors``,
``config.json`` and a ``README.md`` model card (the layout the Hugging Face Hub serves).

>>> scinum.export.export("runs/x/model.ckpt", "share/planets-xval", results="results/planets")
>>> model = scinum.load("share/planets-xval")      # fills bit-identically to the checkpoint

* ``model.safetensors`` — the weights (float32 tensors, one per ``state_dict`` entry, shared
  storage written once; header metadata ``{"format": "pt"}``). Reading it runs no code.
* ``config.json`` — plain JSON: ``{"format": "scinum-model", "version": 2, "library_name":
  "scinum", "checkpoint_version": int, "model", "encoding", "head", "vocab", "normalizer",
  "context_length", "calibration", "run", "weights": {"file", "sha256", "tied"},
  "exported": {...}, "digest": "sha256:..."}``: every entry of
  :class:`~scinum.checkpoint.CheckpointMeta`, so anything that reads JSON can see what the model
  expects (vocabulary, the per-field affine normalizers, the training ranges and dataset
  identity in ``run``). ``digest`` (:func:`config_digest`) covers every other entry, the
  weights' sha256 included: an edited or damaged config is refused, and so are weights that
  are not the ones it names. Two exports of one checkpoint are byte-identical.
* ``README.md`` — the model card (:mod:`scinum.card`): what it fills, the training ranges of
  each field, how it was trained, its ID vs OOD evaluation (from ``--results``), calibration
  coverage and known limits.

The files are written into a staging directory inside ``out_dir`` and each renamed into place
(:func:`scinum.atomic.atomic_files`), so an interrupted export leaves nothing half-written and
the other files of ``out_dir`` are never touched. :func:`load_dir` reads one back with ``json`` and
``safetensors`` only; a damaged or foreign directory raises a one-line
:class:`~scinum.errors.CheckpointError` naming the file.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import torch

from .atomic import atomic_files
from .checkpoint import FORMAT as CKPT_FORMAT, VERSION as CKPT_VERSION
from .checkpoint import CheckpointMeta, load_checkpoint
from .errors import CheckpointError
from .model import NumberMLM
from .provenance import file_sha256

__all__ = ["FORMAT", "VERSION", "WEIGHTS", "CONFIG", "CARD", "export", "load_dir", "read_config",
           "config_digest", "add_arguments", "run"]

FORMAT, VERSION = "scinum-model", 2  # 2: config.json carries its digest, weights' sha256 required
WEIGHTS, CONFIG, CARD = "model.safetensors", "config.json", "README.md"
_META_KEYS = ("model", "encoding", "head", "vocab", "normalizer", "context_length", "calibration", "run")


def _split_tied(state: dict[str, torch.Tensor]) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """Tensors to write (contiguous CPU copies, one per storage) and ``{name: name written}``
    for the entries that share a written tensor's storage (safetensors refuses shared ones)."""
    out, tied, seen = {}, {}, {}
    for name, t in state.items():
        t = t.detach().cpu()
        key = (t.untyped_storage().data_ptr(), t.storage_offset(), tuple(t.shape), tuple(t.stride()))
        if t.numel() and key in seen:
            tied[name] = seen[key]
            continue
        seen[key] = name
        out[name] = t.contiguous().clone()
    return out, tied


def export(ckpt: str | os.PathLike, out_dir: str | os.PathLike, results: str | os.PathLike | None = None,
           *, label: str | None = None) -> Path:
    """Write ``out_dir`` (module docstring) from a checkpoint file (or another export
    directory). ``results``: a results directory of ``scinum evaluate`` / a recipe whose rows of
    model ``label`` (default: the only model there, or the label ``scinum evaluate`` gives this
    encoding and head) become the card's evaluation. Returns ``out_dir``.

    Writes only its three files: the other files of an existing export directory (a Hub
    clone's ``.git/``, notes) stay. Refuses an ``out_dir`` that is a file, or a non-empty
    directory that is not a scinum export."""
    from safetensors import SafetensorError
    from safetensors.torch import save_file

    from . import card
    ckpt, out = Path(ckpt), Path(out_dir)
    meta, net = load_checkpoint(ckpt)
    if out.exists() and not (out.is_dir() and (_is_ours(out) or not any(out.iterdir()))):
        raise CheckpointError(f"{out}: exists and is not a scinum model export (nor an empty "
                              "directory); refusing to write into it")
    evaluation = card.read_results(results, meta, label) if results is not None else None
    tensors, tied = _split_tied(net.state_dict())
    with atomic_files(out) as tmp:
        try:  # one metadata key: safetensors writes a map's keys in no fixed order
            save_file(tensors, str(tmp / WEIGHTS), metadata={"format": "pt"})
        except SafetensorError as e:  # a full disk, among others: not an OSError
            raise CheckpointError(f"{out / WEIGHTS}: cannot write ({_one_line(e)}); nothing "
                                  "was published") from None
        config = {"format": FORMAT, "version": VERSION, "library_name": "scinum",
                  "checkpoint_version": CKPT_VERSION,
                  **{k: v for k, v in meta.to_dict().items() if k in _META_KEYS},
                  "weights": {"file": WEIGHTS, "sha256": file_sha256(tmp / WEIGHTS), "tied": tied,
                              "parameters": int(sum(t.numel() for t in tensors.values()))},
                  "exported": {"from": ckpt.name, "scinum": _version(),
                               "results": None if evaluation is None else Path(evaluation["source"]).name}}
        config["digest"] = config_digest(config)
        (tmp / CONFIG).write_text(json.dumps(config, indent=1, allow_nan=False) + "\n")
        (tmp / CARD).write_text(card.render(config, evaluation))
        for f in (WEIGHTS, CONFIG, CARD):  # durable before the rename publishes them
            with open(tmp / f, "rb") as fh:
                os.fsync(fh.fileno())
    return out


def _is_ours(path: Path) -> bool:
    try:
        return json.loads((path / CONFIG).read_text()).get("format") == FORMAT
    except (OSError, ValueError, AttributeError):
        return False


def _version() -> str:
    import scinum
    return scinum.__version__


def read_config(path: str | os.PathLike) -> dict[str, Any]:
    """The ``config.json`` of an export directory, checked for its format and version."""
    cfg_path = Path(path) / CONFIG
    if not cfg_path.is_file():
        raise CheckpointError(f"{cfg_path}: missing: {path} is not a scinum model directory")
    try:
        config = json.loads(cfg_path.read_text(encoding="utf-8"))
        config_digest(config) if isinstance(config, dict) else None  # nesting too deep: here
    except RecursionError:
        raise CheckpointError(f"{cfg_path}: nested too deep to be a model config") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise CheckpointError(f"{cfg_path}: not readable JSON ({type(e).__name__}: "
                              f"{str(e).splitlines()[0][:200] if str(e) else ''})") from None
    if not isinstance(config, dict) or config.get("format") != FORMAT:
        raise CheckpointError(f"{cfg_path}: not a scinum model config (format is not {FORMAT!r})")
    version = config.get("version")
    if type(version) is not int or version != VERSION:
        older = type(version) is int and 1 <= version < VERSION
        raise CheckpointError(f"{cfg_path}: model config version {version!r} is not one this scinum "
                              f"reads ({VERSION})" + ("; written without digests: export the "
                                                       "checkpoint again" if older else ""))
    if config.get("digest") != config_digest(config):
        raise CheckpointError(f"{cfg_path}: damaged or edited: its digest is "
                              f"{str(config.get('digest'))[:80]!r}, its content's "
                              f"{config_digest(config)!r}; export the checkpoint again")
    return config


def config_digest(config: dict[str, Any]) -> str:
    """``"sha256:<hex>"`` of an export's config (canonical JSON: sorted keys, no spaces), its
    ``"digest"`` entry left out."""
    body = {k: v for k, v in config.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), default=repr)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def load_dir(path: str | os.PathLike) -> tuple[CheckpointMeta, NumberMLM]:
    """Load an export directory: its metadata and the model with its weights (CPU, training
    mode), as :func:`~scinum.checkpoint.load_checkpoint` does for a file. Reads JSON and
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
    meta = CheckpointMeta.from_dict({**{k: config.get(k) for k in _META_KEYS},
                                     "format": CKPT_FORMAT, "version": ckpt_version}, cfg_path)
    if len(meta.vocab) != meta.model.vocab_size:
        raise CheckpointError(f"{cfg_path}: its vocabulary has {len(meta.vocab)} tokens but its "
                              f"model {meta.model.vocab_size}")
    if meta.normalizer.method != "none" and meta.normalizer.fields != meta.vocab.fields:
        raise CheckpointError(f"{cfg_path}: its normalizer's fields are not its vocabulary's "
                              f"numeric fields")
    try:
        meta.make_encoding()
    except (ValueError, TypeError) as e:
        raise CheckpointError(f"{cfg_path}: encoding {meta.encoding} cannot be made "
                              f"({_one_line(e)})") from None
    weights = config["weights"]
    if not isinstance(weights, dict) or not isinstance(weights.get("tied", {}), dict):
        raise CheckpointError(f"{cfg_path}: entry 'weights' is not {{file, sha256, tied}}")
    if not w_path.is_file():
        raise CheckpointError(f"{w_path}: missing (the weights of {path})")
    if weights.get("file") != WEIGHTS or not isinstance(weights.get("sha256"), str):
        raise CheckpointError(f"{cfg_path}: entry 'weights' names no {WEIGHTS} with its sha256 "
                              f"(file {str(weights.get('file'))[:80]!r}, sha256 "
                              f"{str(weights.get('sha256'))[:80]!r})")
    if file_sha256(w_path) != weights["sha256"]:
        raise CheckpointError(f"{w_path}: sha256 differs from the one {CONFIG} records (a damaged "
                              "or replaced weights file)")
    try:
        state = load_file(str(w_path))
    except (SafetensorError, OSError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{w_path}: not a readable safetensors file ({_one_line(e)})") from None
    for name, source in weights.get("tied", {}).items():
        if source not in state:
            raise CheckpointError(f"{cfg_path}: tied weight {name!r} names {source!r}, which "
                                  f"{WEIGHTS} does not hold")
        state[name] = state[source]
    try:
        model = meta.build_model()
    except (ValueError, TypeError, KeyError, RuntimeError) as e:
        raise CheckpointError(f"{cfg_path}: the model it describes cannot be built ({_one_line(e)})") from None
    _check_fits(model, state, cfg_path)
    model.load_state_dict(state)
    return meta, model


def _check_fits(model: NumberMLM, state: dict[str, torch.Tensor], cfg_path: Path) -> None:
    """One-line error at the first tensor that the config's model lacks, misses or shapes
    otherwise."""
    want = model.state_dict()
    extra, lacking = sorted(set(state) - set(want)), sorted(set(want) - set(state))
    if lacking:
        raise CheckpointError(f"{cfg_path}: the model it describes needs tensor {lacking[0]!r}, "
                              f"which {WEIGHTS} does not hold ({len(lacking)} missing)")
    if extra:
        raise CheckpointError(f"{cfg_path}: {WEIGHTS} holds tensor {extra[0]!r}, which the model "
                              f"it describes has no place for ({len(extra)} such)")
    for name, t in want.items():
        if tuple(state[name].shape) != tuple(t.shape):
            raise CheckpointError(f"{cfg_path}: tensor {name!r} is {list(state[name].shape)} in "
                                  f"{WEIGHTS} but {list(t.shape)} in the model it describes")


def _one_line(e: BaseException) -> str:
    text = (str(e).splitlines() or [""])[0][:200]
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ckpt", required=True, help="checkpoint (model.ckpt) or export directory")
    parser.add_argument("--out", required=True, help="directory to write (model.safetensors, config.json, README.md)")
    parser.add_argument("--results", help="results directory of `scinum evaluate` or a recipe: the card's ID/OOD table")
    parser.add_argument("--label", help="this model's name in the results table (default: the only one, "
                                        "or the name `scinum evaluate` gives it)")
    parser.add_argument("--push-to-hub", metavar="REPO_ID",
                        help="then upload the directory to this Hugging Face Hub repository "
                             "(needs `pip install scinum[hub]` and a token)")


def run(args: argparse.Namespace) -> int:
    out = export(args.ckpt, args.out, args.results, label=args.label)
    print(f"scinum export: {out}/ ({WEIGHTS}, {CONFIG}, {CARD})")
    if args.push_to_hub:
        from .hub import push_to_hub
        url = push_to_hub(out, args.push_to_hub)
        print(f"scinum export: uploaded to {url}")
    return 0
