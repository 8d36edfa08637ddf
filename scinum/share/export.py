"""Share a trained model as the ecosystem does: a directory with ``model.safetensors``,
``config.json`` and a ``README.md`` model card (the layout the Hugging Face Hub serves).

>>> scinum.share.export.export("runs/x/model.ckpt", "share/planets-xval", results="results/planets")
>>> model = scinum.load("share/planets-xval")      # fills bit-identically to the checkpoint

* ``model.safetensors`` — the weights (float32 tensors, one per ``state_dict`` entry, shared
  storage written once; header metadata ``{"format": "pt"}``). Reading it runs no code.
* ``config.json`` — plain JSON: ``{"format": "scinum-model", "version": 2, "library_name":
  "scinum", "checkpoint_version": int, "model", "encoding", "head", "vocab", "normalizer",
  "context_length", "calibration", "run", "weights": {"file", "sha256", "tied"},
  "exported": {...}, "digest": "sha256:..."}``: every entry of
  :class:`~scinum.model.checkpoint.CheckpointMeta`, so anything that reads JSON can see what the
  model expects (vocabulary, the per-field affine normalizers, the training ranges and dataset
  identity in ``run``). ``digest`` (:func:`scinum.model.exported.config_digest`) covers every
  other entry, the weights' sha256 included: an edited or damaged config is refused, and so are
  weights that are not the ones it names. Two exports of one checkpoint are byte-identical.
* ``README.md`` — the model card (:mod:`scinum.share.card`): what it fills, the training ranges of
  each field, how it was trained, its ID vs OOD evaluation (from ``--results``), calibration
  coverage and known limits.

The files are written into a staging directory inside ``out_dir`` and each renamed into place
(:func:`scinum.util.atomic.atomic_files`), so an interrupted export leaves nothing half-written
and the other files of ``out_dir`` are never touched. :func:`scinum.model.exported.load_dir`
reads one back with ``json`` and
``safetensors`` only; a damaged or foreign directory raises a one-line
:class:`~scinum.errors.CheckpointError` naming the file.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import torch

from ..errors import CheckpointError
from ..model.checkpoint import VERSION as CKPT_VERSION
from ..model.exported import CARD, CONFIG, FORMAT, META_KEYS, VERSION, WEIGHTS, config_digest, load_model, one_line
from ..util.atomic import atomic_files
from ..util.provenance import file_sha256
from ..util.version import __version__

__all__ = ["export", "add_arguments", "run"]


def _split_tied(state: dict[str, torch.Tensor]) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """Tensors to write (contiguous CPU copies, one per storage) and ``{name: name written}``
    for the entries that share a written tensor's storage (safetensors refuses shared ones)."""
    out: dict[str, torch.Tensor] = {}
    tied: dict[str, str] = {}
    seen: dict[tuple, str] = {}  # (storage, offset, shape, stride) -> name written
    for name, t in state.items():
        t = t.detach().cpu()
        key = (t.untyped_storage().data_ptr(), t.storage_offset(), tuple(t.shape), tuple(t.stride()))
        if t.numel() and key in seen:
            tied[name] = seen[key]
            continue
        seen[key] = name
        out[name] = t.contiguous().clone()
    return out, tied


def export(
    ckpt: str | os.PathLike, out_dir: str | os.PathLike, results: str | os.PathLike | None = None, *, label: str | None = None
) -> Path:
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
    from .card_results import read_results

    ckpt, out = Path(ckpt), Path(out_dir)
    meta, net = load_model(ckpt)
    if out.exists() and not (out.is_dir() and (_is_ours(out) or not any(out.iterdir()))):
        raise CheckpointError(f"{out}: exists and is not a scinum model export (nor an empty directory); refusing to write into it")
    evaluation = read_results(results, meta, label) if results is not None else None
    tensors, tied = _split_tied(net.state_dict())
    with atomic_files(out) as tmp:
        try:  # one metadata key: safetensors writes a map's keys in no fixed order
            save_file(tensors, str(tmp / WEIGHTS), metadata={"format": "pt"})
        except SafetensorError as e:  # a full disk, among others: not an OSError
            raise CheckpointError(f"{out / WEIGHTS}: cannot write ({one_line(e)}); nothing was published") from None
        config = {
            "format": FORMAT,
            "version": VERSION,
            "library_name": "scinum",
            "checkpoint_version": CKPT_VERSION,
            **{k: v for k, v in meta.to_dict().items() if k in META_KEYS},
            "weights": {
                "file": WEIGHTS,
                "sha256": file_sha256(tmp / WEIGHTS),
                "tied": tied,
                "parameters": int(sum(t.numel() for t in tensors.values())),
            },
            "exported": {
                "from": ckpt.name,
                "scinum": __version__,
                "results": None if evaluation is None else Path(evaluation["source"]).name,
            },
        }
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ckpt", required=True, help="checkpoint (model.ckpt) or export directory")
    parser.add_argument("--out", required=True, help="directory to write (model.safetensors, config.json, README.md)")
    parser.add_argument("--results", help="results directory of `scinum evaluate` or a recipe: the card's ID/OOD table")
    parser.add_argument(
        "--label", help="this model's name in the results table (default: the only one, or the name `scinum evaluate` gives it)"
    )
    parser.add_argument(
        "--push-to-hub",
        metavar="REPO_ID",
        help="then upload the directory to this Hugging Face Hub repository (needs `pip install scinum[hub]` and a token)",
    )


def run(args: argparse.Namespace) -> int:
    out = export(args.ckpt, args.out, args.results, label=args.label)
    print(f"scinum export: {out}/ ({WEIGHTS}, {CONFIG}, {CARD})")
    if args.push_to_hub:
        from .hub import push_to_hub

        url = push_to_hub(out, args.push_to_hub)
        print(f"scinum export: uploaded to {url}")
    return 0
