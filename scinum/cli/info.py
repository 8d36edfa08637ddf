"""``scinum info MODEL``: what a model (a ``model.ckpt`` or an export directory) holds and
expects, in a few lines: the fields it can fill and their training ranges, encoding, head,
context length and where it came from (:func:`scinum.share.card.describe`)."""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", help="checkpoint file or directory written by `scinum export`")


def run(args: argparse.Namespace) -> int:
    from ..share.card import describe
    from ..model.checkpoint import load_checkpoint
    from ..model.exported import load_dir, read_config

    path = Path(args.model)
    if path.is_dir():  # the config alone: no weights need reading (load checks them)
        config = read_config(path)
        load_dir(path)  # a damaged directory says so here, not when filling
    else:
        meta, net = load_checkpoint(path)
        config = {**meta.to_dict(), "weights": {"parameters": sum(p.numel() for p in net.state_dict().values())}}
    print("\n".join(describe(config, str(path))))
    return 0
