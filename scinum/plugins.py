"""Registries of plug-ins: number encodings, number heads and dataset builders, found by name.

Each registry holds what scinum itself provides (registered when its module is imported, or
named as ``"module:attribute"`` text and imported on first use) and reads one entry-point group
of the installed packages the first time it is asked for a name it does not hold:

=================== ================================ ==========================================
group               an entry point names             looked up by
=================== ================================ ==========================================
``scinum.encodings`` a :class:`~scinum.encodings.NumberEncoding` subclass  ``encodings.get(name)``
``scinum.heads``     a :class:`~scinum.heads.NumberHead` subclass   ``{"head": {"kind": name}}``
``scinum.builders``  a module or object with ``build(out, *, ...)``  ``scinum build NAME``
=================== ================================ ==========================================

This is how xarray finds its backends (the ``xarray.backends`` group): a package that declares

.. code-block:: toml

    [project.entry-points."scinum.encodings"]
    mine = "mypkg.encoding:MyEncoding"

is found by ``scinum fit encoding.name=mine`` with no change to scinum. Entry points are read
once per process and loaded one by one, on the first lookup of their name (so a broken plug-in
only fails where it is used). A name scinum provides itself wins over an entry point of the same
name (the built-ins work even where the package metadata is stale, as in an editable install
before it is re-installed). A name nobody provides raises :class:`PluginNotFound`, one line that
names the missing plug-in and how to get it.
"""

from __future__ import annotations

import importlib
import warnings
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Callable, Generic, Iterator, TypeVar

from .errors import ScinumError

__all__ = ["PluginNotFound", "Registry"]

T = TypeVar("T")


class PluginNotFound(ScinumError, ValueError, KeyError):
    """A name that no registered plug-in (built in or installed) provides.

    A ``ValueError`` (and ``KeyError``) too, so code that caught the registries' older errors
    still does."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def _import(target: str) -> Any:
    """``"pkg.module:attr.sub"`` or ``"pkg.module"`` -> the object it names."""
    module, _, attr = target.partition(":")
    obj = importlib.import_module(module)
    for part in filter(None, attr.split(".")):
        obj = getattr(obj, part)
    return obj


class Registry(Generic[T]):
    """Name -> plug-in, for one entry-point ``group`` (module docstring).

    ``what`` names a plug-in in messages (``"encoding"``); ``check(obj, name)`` validates a
    plug-in when it is registered or loaded (raising ``TypeError`` with a one-line reason)."""

    def __init__(self, group: str, what: str, check: Callable[[Any, str], None] | None = None):
        self.group, self.what, self._check = group, what, check
        self._items: dict[str, T] = {}
        self._lazy: dict[str, str] = {}  # built-in name -> "module:attr", imported on first use
        self._entry_points: dict[str, EntryPoint] | None = None  # read on the first miss
        self._origin: dict[str, str] = {}  # name -> "scinum" or the distribution providing it

    # -- registering -------------------------------------------------------------------------
    def register(self, name: str, obj: T, origin: str = "scinum") -> T:
        """Add ``obj`` under ``name`` (replacing any earlier one); returns ``obj``."""
        if self._check is not None:
            self._check(obj, name)
        self._items[name] = obj
        self._lazy.pop(name, None)
        self._origin.setdefault(name, origin)
        return obj

    def register_lazy(self, name: str, target: str) -> None:
        """Add a built-in named by ``"module:attr"`` text, imported on its first lookup."""
        if name not in self._items:
            self._lazy[name] = target
            self._origin[name] = "scinum"

    # -- entry points ------------------------------------------------------------------------
    def _discover(self) -> dict[str, EntryPoint]:
        """The group's entry points (read once per process; loading each waits for its use)."""
        if self._entry_points is None:
            found: dict[str, EntryPoint] = {}
            for ep in entry_points(group=self.group):
                if ep.name in found and found[ep.name].value != ep.value:
                    warnings.warn(
                        f"{self.group}: entry point {ep.name!r} is provided twice ({found[ep.name].value} and {ep.value}); using the first",
                        RuntimeWarning,
                        stacklevel=3,
                    )
                    continue
                found.setdefault(ep.name, ep)
            self._entry_points = found
        return self._entry_points

    def refresh(self) -> None:
        """Read the entry points again on the next miss (after installing a package at run time)."""
        self._entry_points = None

    def _load_entry_point(self, name: str) -> T:
        ep = self._discover()[name]
        dist = getattr(getattr(ep, "dist", None), "name", None) or ep.value.split(":")[0].split(".")[0]
        try:
            obj = ep.load()
        except (Exception, SystemExit) as e:  # a plug-in that fails to import (or exits): one line
            first = (str(e).splitlines() or [""])[0][:200]
            raise PluginNotFound(
                f"{self.what} {name!r} could not be loaded from {dist} (entry "
                f"point {self.group} {name} = {ep.value}: {type(e).__name__}: "
                f"{first})"
            ) from None
        if self._check is not None:
            try:
                self._check(obj, name)
            except (TypeError, ValueError) as e:  # loaded, but not what the group expects
                raise PluginNotFound(
                    f"{self.what} {name!r} from {dist} (entry point {self.group} {name} = {ep.value}) cannot be used: {e}"
                ) from None
        self._items[name] = obj
        self._origin[name] = dist
        return obj

    # -- lookups -----------------------------------------------------------------------------
    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name in self._items or name in self._lazy or name in self._discover())

    def get(self, name: str) -> T:
        """The plug-in registered or installed as ``name``; :class:`PluginNotFound` if none."""
        if name in self._items:
            return self._items[name]
        if name in self._lazy:
            return self.register(name, _import(self._lazy[name]))
        if isinstance(name, str) and name in self._discover():
            return self._load_entry_point(name)
        raise PluginNotFound(self.missing(name))

    def missing(self, name: Any) -> str:
        """The one-line message for a ``name`` nobody provides."""
        return (
            f"unknown {self.what} {name!r} (not installed): install the package that "
            f"provides the {self.group} entry point {name!r}; installed: "
            f"{', '.join(self.names())}"
        )

    def name_of(self, obj: Any) -> str:
        """The name under which ``obj`` (a plug-in, or an instance of a plug-in class) is
        registered; :class:`PluginNotFound` if under none."""
        for name in self.names():
            try:
                item = self.get(name)
            except PluginNotFound:
                continue
            if item is obj or (isinstance(item, type) and type(obj) is item):
                return name
        raise PluginNotFound(f"{obj!r} is not a registered {self.what}: register it, or declare it as a {self.group} entry point")

    def resolve(self, key: str | T) -> tuple[str, T]:
        """``(name, plug-in)`` for a name, or for a plug-in object itself (lookup by class: a
        class with a ``name`` attribute keeps it even if it is registered under none)."""
        if isinstance(key, str):
            return key, self.get(key)
        name = getattr(key, "name", None)
        if not isinstance(name, str):
            name = self.name_of(key)
        return name, key

    def names(self) -> list[str]:
        """Every name available: registered, built in, and installed as an entry point."""
        return sorted(set(self._items) | set(self._lazy) | set(self._discover()))

    def origin(self, name: str) -> str:
        """``"scinum"`` for a built-in, else the distribution that provides ``name``."""
        if name not in self._origin and name in self._discover():
            ep = self._discover()[name]
            return getattr(getattr(ep, "dist", None), "name", None) or ep.value
        return self._origin.get(name, "?")

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
