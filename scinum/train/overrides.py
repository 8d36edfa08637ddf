"""Command-line and YAML overrides of a run config: ``--trainer.max_steps 100``,
``--trainer.max_steps=100`` or ``trainer.max_steps=100`` parsed as YAML (``1e-3``, ``true``,
``[1, 2]``, ``null``), and their deep merge into a config (unknown keys refused, naming the keys
there are). The schema they are merged into is :mod:`scinum.train.config`'s."""

from __future__ import annotations

import copy
import re
from typing import Any, Sequence

import yaml

from ..errors import ConfigError, ConfigKeyError, brief

__all__ = ["FREE_SECTIONS", "ConfigLoader", "parse_overrides", "apply_overrides"]

#: sections whose keys are free (encoding/head options are checked by their constructors)
FREE_SECTIONS = ("encoding", "head")


def _merge(base: dict, new: dict, where: str = "") -> dict:
    for k, v in new.items():
        name = f"{where}{k}"
        if where.rstrip(".") not in FREE_SECTIONS and k not in base:
            raise ConfigKeyError(f"config: {name}: unknown key; choices: {', '.join(base)}")
        if isinstance(v, dict) and isinstance(base.get(k), dict) and k not in FREE_SECTIONS:
            _merge(base[k], v, name + ".")
        else:
            base[k] = copy.deepcopy(v)
    return base


def parse_overrides(tokens: Sequence[str]) -> dict:
    """``["--trainer.max_steps", "100", "optim.lr=1e-3"]`` -> ``{"trainer": {"max_steps": 100}, ...}``."""
    out: dict = {}
    toks = list(tokens)
    while toks:
        t = toks.pop(0)
        key = t[2:] if t.startswith("--") else t
        if "=" in key:
            key, text = key.split("=", 1)
        elif t.startswith("--") and toks:
            text = toks.pop(0)
        else:
            raise ConfigError(f"override {brief(t)}: write --section.key VALUE or section.key=VALUE")
        node = out
        *parents, leaf = key.split(".")
        for p in parents:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise ConfigError(f"override {brief(t)}: {p} is set to a value by another override, not a section")
        try:
            node[leaf] = _value(text)
        except yaml.YAMLError as e:  # a !!python/... tag, unbalanced brackets: not a plain value
            why = str(getattr(e, "problem", None) or e).splitlines()[0]
            raise ConfigError(f"override {brief(t)}: {brief(text)} is not a plain YAML value ({brief(why, 120)})") from None
    return out


class ConfigLoader(yaml.SafeLoader):
    """Safe YAML that also reads ``1e-3`` as a float (YAML 1.1 wants ``1.0e-3``)."""


ConfigLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"), list("-+0123456789")
)


def _value(text: str) -> Any:
    return yaml.load(text, Loader=ConfigLoader)


def apply_overrides(config: dict, overrides: dict) -> dict:
    """Deep-merge ``overrides`` into a copy of ``config``; unknown keys raise
    :class:`~scinum.errors.ConfigKeyError` (a ``KeyError``) listing the keys there are.
    An ``encoding`` override with a different ``name`` replaces the encoding options."""
    config = copy.deepcopy(config)
    enc = overrides.get("encoding")
    if isinstance(enc, dict) and "name" in enc and enc["name"] != config["encoding"].get("name"):
        config["encoding"] = {}
    head = overrides.get("head")
    if isinstance(head, dict) and "kind" in head and head["kind"] != config["head"].get("kind"):
        config["head"] = {}
    for section in FREE_SECTIONS:
        if isinstance(overrides.get(section), dict) and isinstance(config[section], dict):
            config[section].update(overrides[section])
        elif section in overrides:  # not a mapping: validate_config says so
            config[section] = copy.deepcopy(overrides[section])
    if "budget" in overrides:  # a budget is replaced whole: one kind at a time
        config["budget"] = copy.deepcopy(overrides["budget"])
    return _merge(config, {k: v for k, v in overrides.items() if k not in (*FREE_SECTIONS, "budget")})
