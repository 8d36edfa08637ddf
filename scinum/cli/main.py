"""The ``scinum`` command line: one entry point, subcommands implemented in their own modules.

Each subcommand module provides ``add_arguments(parser)`` and ``run(args) -> int``; it is only
imported when its subcommand is used, so ``scinum --help`` stays instant. A module that sets
``TAKES_OVERRIDES = True`` (``scinum fit``) gets the arguments its parser does not know in
``args.overrides`` (``--trainer.max_steps 100``, ``optim.lr=1e-3``); any other subcommand
refuses them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from typing import NoReturn, Protocol

from ..errors import ScinumError

#: ``scinum <command>``.
COMMANDS = {
    "fit": ("scinum.cli.fit", "train a model from a YAML config"),
    "fill": ("scinum.cli.fill", "fill masked numeric fields of JSONL records with a trained model"),
    "evaluate": ("scinum.analysis.evaluate", "ID vs OOD metrics of a checkpoint on a dataset"),
    "attention": ("scinum.analysis.attention", "where a model looks when it fills a field: attention shares per layer and head"),
    "plot": ("scinum.analysis.plots", "plots from an evaluation results directory"),
    "export": ("scinum.share.export", "write a model directory to share: model.safetensors, config.json, a model card"),
    "info": ("scinum.cli.info", "what a model (checkpoint or export directory) fills and expects"),
    "demo": ("scinum.cli.demo", "encode and decode a sample record with each encoding that has number features"),
}


def _load(module: str, what: str):
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name and module.startswith(e.name):
            raise SystemExit(f"scinum: {what} is not available in this version") from None
        raise
    return mod


def _load_builder(name: str):
    """The builder ``name``; a built-in whose dependencies are missing says so in one line."""
    from ..datasets import builders

    try:
        return builders.get(name)
    except ModuleNotFoundError as e:
        if name in builders.BUILT_IN and e.name and builders.BUILT_IN[name][0].startswith(e.name):
            raise SystemExit(f"scinum: 'build {name}' is not available in this version") from None
        raise
    except builders.PluginNotFound as e:
        raise SystemExit(f"scinum: error: {e}") from None


class _Command(Protocol):
    """What a subcommand provides (a module or one of the classes below)."""

    def run(self, args: argparse.Namespace) -> int | None: ...


class _BuildCommand:
    """``scinum build NAME ...``: runs a builder through :func:`scinum.datasets.builders.run`."""

    def __init__(self, name: str, builder):
        self.name, self.builder = name, builder

    def run(self, args: argparse.Namespace) -> int:
        from ..datasets import builders

        return builders.run(self.builder, args, self.name)


class _ListBuilders:
    """``scinum build`` alone: the builders installed here, one a line."""

    @staticmethod
    def run(args: argparse.Namespace) -> int:
        from ..datasets import builders

        print("builders (scinum build NAME OUT --help):")
        for name in builders.names():
            try:
                text = builders.describe(name)
            except Exception as e:  # a broken plug-in is listed, with why
                text = f"cannot be loaded: {(str(e).splitlines() or [''])[0][:120]}"
            print(f"  {name:10s} {text}  [{builders.REGISTRY.origin(name)}]")
        return 0


def build_parser(argv: list[str]) -> tuple[argparse.ArgumentParser, _Command | None]:
    """The parser for ``argv``; imports only the module of the subcommand named in ``argv``."""
    parser = argparse.ArgumentParser(prog="scinum", description=(__import__("scinum").__doc__ or "scinum").splitlines()[0])
    parser.add_argument("--version", action="version", version=f"scinum {__import__('scinum').__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen: _Command | None = None
    build = sub.add_parser("build", help="build a dataset directory")
    bsub = build.add_subparsers(dest="builder", metavar="BUILDER")
    from ..datasets import builders  # the registry: scinum's builders and the installed plug-ins'

    for name in builders.names() if argv[:1] == ["build"] else builders.BUILT_IN:
        help_ = builders.describe(name, load=False)
        p = bsub.add_parser(name, help=help_, description=help_)
        if argv[:2] == ["build", name]:
            command = _BuildCommand(name, _load_builder(name))
            builders.add_arguments(command.builder, p)
            chosen = command
    if argv == ["build"]:
        chosen = _ListBuilders()
    elif argv[:1] == ["build"] and not argv[1].startswith("-") and argv[1] not in builders.REGISTRY:
        raise SystemExit(f"scinum: error: {builders.REGISTRY.missing(argv[1])}")
    for name, (module, help_) in COMMANDS.items():
        p = sub.add_parser(name, help=help_, description=help_)
        if argv[:1] == [name]:
            mod = _load(module, f"'{name}'")
            mod.add_arguments(p)
            chosen = mod
    return parser, chosen


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser, chosen = build_parser(argv)
    if getattr(chosen, "TAKES_OVERRIDES", False):
        args, overrides = parser.parse_known_args(argv)
        args.overrides = overrides
    else:
        args = parser.parse_args(argv)
    if chosen is None:
        parser.print_help()
        return 0 if not argv else 2
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if main_thread else None
    try:
        return int(chosen.run(args) or 0)
    except ScinumError as e:
        print(f"scinum: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `scinum fill ... | head -1`: end quietly, as other Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes stdout
        return 128 + signal.SIGPIPE
    except KeyboardInterrupt:
        print("scinum: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    except _Terminated as e:  # unwound: every `finally` ran, temporary files are gone
        _exit_now(int(e.code))
    except OSError as e:  # a path the user gave that cannot be written or read: one line
        where = f"{e.filename}: " if e.filename else ""
        print(f"scinum: error: {where}{e.strerror or e}", file=sys.stderr)
        return 1
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)


class _Terminated(SystemExit):
    """SIGTERM's exit, raised in the main thread by :func:`_terminate`."""

    code: int  # always 128 + signum


def _terminate(signum, frame) -> None:
    """SIGTERM: unwind like Ctrl-C, so every ``finally`` runs (temporary files are removed)."""
    raise _Terminated(128 + signum)


def _exit_now(code: int) -> NoReturn:
    """End the process at once after a SIGTERM's unwinding: the interpreter's own shutdown can race
    torch's native threads (still winding down after a fill's batch threads) and abort with
    "terminate called without an active exception" (seen once in 15 runs of tests/test_faults.py
    under load), which would turn exit status 143 into 134."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
