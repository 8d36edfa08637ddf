"""Dataset builders: one protocol, a registry (``scinum build NAME``) and a command line derived
from each builder's signature.

**The protocol.** A builder is a module (or any object) with

* ``build(out, *, name=default, ...) -> dict | None`` — builds (or resumes) the dataset
  directory ``out`` and returns its manifest (None only for a partial ``part=(i, n)`` build).
  Every parameter is an explicit keyword with its default: no ``**kwargs`` (xarray refuses them
  in its backends for the same reason — the parameters are the builder's documented interface,
  and its command line is derived from them);
* optionally ``DESCRIPTION``: one line for ``scinum build`` (default: the first line of the
  module's or ``build``'s docstring);
* optionally ``add_arguments(parser)`` and ``run(args) -> int``: a hand-written command line.
  Without them ``scinum build NAME OUT --flags`` is derived from ``build``'s signature
  (:func:`add_arguments`): ``--shard-size 1000`` for ``shard_size: int = 1000``, a flag per list
  item for sequences, ``--compress`` for a ``bool`` defaulting to False, required flags for
  keywords without a default.

**The registry** (:data:`REGISTRY`, :mod:`scinum.plugins`): scinum's ``planets``, ``era5`` and
``jsonl``, imported on first use, and every builder another package declares in the
``scinum.builders`` entry-point group. ``scinum build`` with no name lists them;
:func:`build` calls one by name from Python (what the recipes do).
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import shutil
import typing
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from ..errors import DatasetError
from ..plugins import PluginNotFound, Registry

__all__ = ["REGISTRY", "PluginNotFound", "get", "names", "describe", "parameters", "build", "add_arguments", "run"]


def _check(builder: Any, name: str) -> None:
    """A builder has ``build(out, *, ...)`` with explicit keywords (see the module docstring)."""
    fn = getattr(builder, "build", None)
    if not callable(fn):
        raise TypeError(f"scinum.builders plug-in {name!r} is {builder!r}, which has no build(out, *, ...)")
    try:
        kinds = [p.kind for p in inspect.signature(fn).parameters.values()]
    except (TypeError, ValueError):  # a callable whose signature Python cannot read
        raise TypeError(f"builder {name!r}: the signature of its build cannot be read") from None
    if not kinds or kinds[0] not in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
        raise TypeError(f"builder {name!r}: build must take the output directory first: build(out, *, ...)")
    if inspect.Parameter.VAR_KEYWORD in kinds or inspect.Parameter.VAR_POSITIONAL in kinds:
        raise TypeError(
            f"builder {name!r}: build takes *args/**kwargs; declare every parameter as "
            f"an explicit keyword (its command line is derived from them)"
        )


#: builder name -> builder (a module or object); reads ``scinum.builders`` entry points on a miss
REGISTRY: Registry[Any] = Registry("scinum.builders", "dataset builder", _check)
#: scinum's own builders: name -> (module, one line for `scinum build`), registered without importing them
BUILT_IN = {
    "planets": ("scinum_simulations.planets", "planetary orbits simulated with REBOUND (xVal paper)"),
    "era5": ("scinum_era5.builder", "ERA5 2 m temperature grids sampled into station series"),
    "jsonl": ("scinum.datasets.jsonl", "your own JSONL records (splits from files or --split)"),
}
for _name, (_module, _) in BUILT_IN.items():
    REGISTRY.register_lazy(_name, _module)


def get(name: str) -> Any:
    """The builder registered or installed as ``name``; :class:`~scinum.plugins.PluginNotFound`
    naming the entry point to install if none."""
    return REGISTRY.get(name)


def names() -> list[str]:
    """Every builder available here: scinum's and the installed plug-ins'."""
    return REGISTRY.names()


def describe(name: str, load: bool = True) -> str:
    """One line about builder ``name``: its ``DESCRIPTION`` (or first docstring line). Without
    ``load``, a plug-in is not imported: the package that provides it is named instead."""
    if name in BUILT_IN:
        return BUILT_IN[name][1]
    if not load:
        return f"from {REGISTRY.origin(name)}"
    builder = get(name)
    text = getattr(builder, "DESCRIPTION", None) or inspect.getdoc(builder) or inspect.getdoc(builder.build) or ""
    return (text.strip().splitlines() or [""])[0]


def parameters(builder: Any) -> dict[str, inspect.Parameter]:
    """``build``'s parameters after ``out``, by name."""
    return dict(list(inspect.signature(builder.build).parameters.items())[1:])


def build(name: str | Any, out: str | os.PathLike, **params: Any) -> dict | None:
    """Build dataset ``out`` with the builder ``name`` (a name or a builder); returns the manifest.
    A parameter the builder does not take raises :class:`DatasetError` naming it and the ones it
    takes (one line)."""
    label, builder = (name, get(name)) if isinstance(name, str) else (getattr(name, "__name__", repr(name)), name)
    known = parameters(builder)
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise DatasetError(f"{label}: unknown parameter(s) {unknown}; its parameters are {sorted(known)}")
    with _nothing_left_if_nothing_built(out):
        return builder.build(out, **params)


@contextmanager
def _nothing_left_if_nothing_built(out: str | os.PathLike) -> Iterator[None]:
    """A build that fails before writing any shard (a plug-in refusing its parameters after it
    opened its writer) leaves no ``OUT/.build/`` holding only its parameters, and no ``OUT`` it
    created; a build that wrote shards keeps them to resume from."""
    out = Path(out)
    existed, had_build = out.exists(), (out / ".build").exists()
    try:
        yield
    except BaseException:
        build_dir = out / ".build"
        if not had_build and build_dir.is_dir() and {p.name for p in build_dir.iterdir()} <= {"parameters.json"}:
            shutil.rmtree(build_dir, ignore_errors=True)
            if not existed and out.is_dir() and not any(out.iterdir()):
                out.rmdir()
        raise


def _hints(fn: Callable) -> dict[str, Any]:
    try:
        return typing.get_type_hints(fn)
    except Exception:  # an annotation that does not evaluate here: fall back to the defaults
        return {}


def _item_type(hint: Any, default: Any) -> tuple[bool, Callable[[str], Any]]:
    """``(is_sequence, conversion of one command-line word)`` for a parameter."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union or type(hint).__name__ == "UnionType":  # X | None
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return _item_type(rest[0], default)
    seq = (
        isinstance(default, (list, tuple))
        or origin in (list, tuple, typing.Sequence)
        or (origin is not None and getattr(origin, "__name__", "") in ("Sequence", "list", "tuple"))
    )
    if seq:
        inner = [a for a in args if a is not Ellipsis]
        if inner and inner[0] in (int, float, str):
            return True, inner[0]
        first = default[0] if isinstance(default, (list, tuple)) and default else ""
        return True, type(first) if type(first) in (int, float) else str
    if hint in (int, float, str):
        return False, hint
    return False, type(default) if type(default) in (int, float) else str


def add_arguments(builder: Any, parser: argparse.ArgumentParser) -> None:
    """Flags of ``scinum build NAME``: the builder's own ``add_arguments``, or derived from its
    ``build`` signature (module docstring)."""
    if callable(getattr(builder, "add_arguments", None)) and callable(getattr(builder, "run", None)):
        builder.add_arguments(parser)
        return
    parser.add_argument("out", help="output dataset directory")
    hints = _hints(builder.build)
    for name, p in parameters(builder).items():
        flag, default = "--" + name.replace("_", "-"), p.default
        required = default is inspect.Parameter.empty
        hint = hints.get(name, p.annotation if not isinstance(p.annotation, str) else None)
        if (hint is bool or type(default) is bool) and not required:
            parser.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=default, help=f"[{default}]")
            continue
        seq, kind = _item_type(hint, None if required else default)
        parser.add_argument(
            flag,
            dest=name,
            type=kind,
            nargs="+" if seq else None,
            required=required,
            metavar=name.upper(),
            default=None if required else default,
            help="(required)" if required else f"[{default}]",
        )


def run(builder: Any, args: argparse.Namespace, name: str = "build") -> int:
    """``scinum build NAME ...``: the builder's own ``run``, or :func:`build` with the parsed
    flags and a one-line summary of what was written."""
    if callable(getattr(builder, "add_arguments", None)) and callable(getattr(builder, "run", None)):
        return int(builder.run(args) or 0)
    params = {k: getattr(args, k) for k in parameters(builder) if hasattr(args, k)}
    with _nothing_left_if_nothing_built(args.out):
        manifest = builder.build(args.out, **params)
    if manifest is None:
        print(f"{name}: wrote part of {args.out}", file=sys.stderr)
        return 0
    counts = {s: v.get("count") for s, v in (manifest.get("splits") or {}).items()}
    print(f"{name}: wrote {args.out} ({counts} records)", file=sys.stderr)
    return 0
