"""``scinum fit --config CONFIG.yaml [overrides] [--print-config]``: train a model from a YAML
config (:mod:`scinum.train.config`), as LightningCLI does; ``--print-config`` prints the full resolved
config (defaults <- file <- overrides) as YAML and exits without training."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

import yaml

from ..errors import ConfigError
from ..train.config import assemble_config, load_config
from ..train.distributed import StoppedBySignal
from ..train.fit import fit
from ..train.run_dir import RunFinished

__all__ = ["TAKES_OVERRIDES", "add_arguments", "run", "is_global_zero"]


def is_global_zero() -> bool:
    """Whether this process is the one that speaks for a (possibly distributed) run."""
    from lightning.pytorch.utilities import rank_zero_only

    return getattr(rank_zero_only, "rank", 0) == 0


#: ``scinum fit`` hands the arguments it does not know (the overrides) to :func:`run`
TAKES_OVERRIDES = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--config FILE`` and ``--print-config``; every other argument is an override
    (``--trainer.max_steps 100``, ``optim.lr=1e-3``, see :func:`scinum.train.config.parse_overrides`),
    in ``args.overrides``."""
    parser.allow_abbrev = False  # ``--c.x`` is an override, not an abbreviation of --config
    parser.add_argument(
        "--config",
        required=True,
        help="YAML config: for your own records see recipes/co2.yaml and the README's "
        "'Your own data' (planets: configs/planets-tiny.yaml); every key and its default: "
        "scinum fit --print-config",
    )
    parser.add_argument("--print-config", action="store_true", help="print the full resolved config as YAML and exit without training")
    parser.epilog = "overrides: --section.key VALUE or section.key=VALUE, e.g. --trainer.max_steps 100 encoding.name=fone head.kind=mixture"


def run(args: argparse.Namespace) -> int:
    """Load the config, then print it (checked) or train (:func:`~scinum.train.fit.fit` checks it);
    a bad one: one line on stderr naming the key, the value and what it may be; exit 1."""
    try:
        config = (load_config if args.print_config else assemble_config)(args.config, args.overrides)
    except (KeyError, ValueError, OSError) as e:
        _bad_config(e)
    if args.print_config:
        print(yaml.safe_dump(config, sort_keys=False, default_flow_style=False), end="")
        return 0
    try:
        path = fit(config)  # validates the config: once per run
    except ConfigError as e:
        _bad_config(e)
    except RunFinished as done:  # the same command again: nothing to train, nothing rewritten
        if is_global_zero():
            print(f"scinum fit: {done}", file=sys.stderr)
        return 0
    except StoppedBySignal as stop:
        if is_global_zero():
            print(stop.message, file=sys.stderr)
        return stop.code
    if is_global_zero():
        print(f"scinum fit: model written to {path}", file=sys.stderr)
    return 0


def _bad_config(e: Exception) -> NoReturn:
    raise SystemExit(f"scinum fit: bad config: {str(e).removeprefix('config: ')}") from None
