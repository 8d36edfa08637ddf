"""Training configuration: nested defaults, YAML files and command-line overrides.

A config is a plain nested dict (JSON-able, saved with each run)::

    seed: 0
    out_dir: runs/planets-tiny
    data:      {path: DIR, batch_size: 32, mask_prob: 0.2, ...}
    encoding:  {name: xval, ...encoding options}
    head:      {kind: native, ...native head options (bittokens: point, mse_weight)}
               | {kind: mixture, n_components: 8, sigma_min: 0.05, point: mean, precondition: true}
               | {kind: NAME, ...}  (a head a plug-in installs: scinum.heads entry points)
    budget: null       # {samples: N} | {tokens: N} | {seconds: S} -> trainer.max_steps (scinum.budget)
    normalizer: null   # null: the encoding's default, or the head's declared one when that is "none"
    calibrate: true    # heads with a distribution (mixture): fit its spread per evaluation field on val
    model:     {d_model: 256, n_layers: 4, n_heads: 4, positions: learned, max_positions: null, ...}
    optim:     {lr: 3e-4, warmup_steps: 200, min_lr_ratio: 0.1, grad_clip: 1.0, number_loss_weight: 1.0, ...}
    trainer:   {max_steps: 2000, accelerator: auto, devices: auto, precision: auto, strategy: auto, ...}

Overrides: ``--trainer.max_steps 100``, ``--trainer.max_steps=100`` or ``trainer.max_steps=100``;
values are parsed as YAML (``1e-3``, ``true``, ``[1, 2]``, ``null``).
"""
from __future__ import annotations

import copy
import math
import re
from pathlib import Path
from typing import Any, Sequence

import yaml

from .batch import MASK_PROB
from .codec import MAX_RUN
from .errors import ConfigError

__all__ = ["DEFAULTS", "load_config", "validate_config", "apply_overrides", "parse_overrides",
           "resolve_normalizer"]

DEFAULTS: dict[str, Any] = {
    "seed": 0,
    "out_dir": "runs/scinum",
    "data": {"path": None, "batch_size": 32, "mask_prob": MASK_PROB, "num_workers": 0, "pool": 50,
             "cache_dir": None, "max_run": MAX_RUN, "val_split": "val",
             # fill-task training: numbers these JSON paths name are hidden with this
             # probability on top of the MLM masking (mask_prob 0: only these)
             "mask_fields": [], "mask_fields_prob": 0.5,
             # a longer train/val record is refused before training (attention costs its square)
             "max_record_tokens": 16384},
    "encoding": {"name": "xval"},
    "head": {"kind": "native"},
    "normalizer": None,
    # {samples: N} | {tokens: N} | {seconds: S}: sets trainer.max_steps (scinum.budget); null:
    # trainer.max_steps as given
    "budget": None,
    # heads with a spread (mixture): fit a factor on it per evaluation field on the validation
    # split after training, so the 68/95 % intervals cover what they say (scinum.calibration)
    "calibrate": True,
    # positions: learned (xVal's additive table) | rope | both; max_positions null: the longest
    # training record
    "model": {"d_model": 256, "n_layers": 4, "n_heads": 4, "mlp_ratio": 4, "dropout": 0.0,
              "rope_base": 10000.0, "positions": "learned", "max_positions": None},
    "optim": {"lr": 3e-4, "weight_decay": 0.1, "betas": [0.9, 0.95], "warmup_steps": 200,
              "min_lr_ratio": 0.1, "grad_clip": 1.0, "number_loss_weight": 1.0},
    "trainer": {"max_steps": 2000, "accelerator": "auto", "devices": "auto", "num_nodes": 1,
                "precision": "auto", "strategy": "auto", "accumulate_grad_batches": 1,
                "val_check_interval": 500, "limit_val_batches": 50, "log_every_n_steps": 10,
                "checkpoint_every_n_steps": 500, "progress_bar": True,
                # several processes: a collective waits at most this long, then the run fails
                # naming the cause; SIGTERM/SIGINT: ranks that have not stopped at a step
                # boundary this long after the signal are ended (scinum.distributed)
                "collective_timeout_s": 300.0, "signal_grace_s": 20.0},
}
#: sections whose keys are free (encoding/head options are checked by their constructors)
_FREE = ("encoding", "head")


def _merge(base: dict, new: dict, where: str = "") -> dict:
    for k, v in new.items():
        name = f"{where}{k}"
        if where.rstrip(".") not in _FREE and k not in base:
            raise KeyError(f"unknown config key {name!r}")
        if isinstance(v, dict) and isinstance(base.get(k), dict) and k not in _FREE:
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
            raise ValueError(f"override {t!r}: write --section.key VALUE or section.key=VALUE")
        node = out
        *parents, leaf = key.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = _value(text)
    return out


class _Loader(yaml.SafeLoader):
    """Safe YAML that also reads ``1e-3`` as a float (YAML 1.1 wants ``1.0e-3``)."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"), list("-+0123456789"))


def _value(text: str) -> Any:
    return yaml.load(text, Loader=_Loader)


def apply_overrides(config: dict, overrides: dict) -> dict:
    """Deep-merge ``overrides`` into a copy of ``config``; unknown keys raise ``KeyError``.
    An ``encoding`` override with a different ``name`` replaces the encoding options."""
    config = copy.deepcopy(config)
    enc = overrides.get("encoding")
    if isinstance(enc, dict) and "name" in enc and enc["name"] != config["encoding"].get("name"):
        config["encoding"] = {}
    head = overrides.get("head")
    if isinstance(head, dict) and "kind" in head and head["kind"] != config["head"].get("kind"):
        config["head"] = {}
    for section in _FREE:
        if section in overrides:
            config[section].update(overrides[section])
    if "budget" in overrides:  # a budget is replaced whole: one kind at a time
        config["budget"] = copy.deepcopy(overrides["budget"])
    return _merge(config, {k: v for k, v in overrides.items() if k not in (*_FREE, "budget")})


def load_config(path: str | Path | None = None, overrides: Sequence[str] | dict = ()) -> dict:
    """Defaults <- YAML file <- overrides. Paths in ``data.path``/``out_dir`` stay as written."""
    config = copy.deepcopy(DEFAULTS)
    if path is not None:
        try:
            loaded = yaml.load(Path(path).read_text(), Loader=_Loader) or {}
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            raise ConfigError(f"{path}: not valid YAML ({getattr(e, 'problem', None) or e}{where})") from None
        if not isinstance(loaded, dict):
            raise ValueError(f"{path}: a config must be a YAML mapping")
        config = apply_overrides(config, loaded)
    if not isinstance(overrides, dict):
        overrides = parse_overrides(overrides)
    config = apply_overrides(config, overrides)
    if not config["data"]["path"]:
        raise ValueError("config: data.path (the dataset directory) is required")
    validate_config(config)
    return config


#: keys whose values may be of other types than their default's (besides the default's type)
_ALSO: dict[str, tuple[type, ...]] = {
    "data.path": (str, Path), "data.cache_dir": (str, Path), "normalizer": (str,), "model.max_positions": (int,),
    "optim.grad_clip": (type(None),), "trainer.devices": (int, list), "trainer.precision": (int,),
    "trainer.val_check_interval": (float,), "trainer.limit_val_batches": (float,), "out_dir": (Path,)}
#: keys that must be > 0 (the others that are numbers: >= 0, but ``seed``); among them those
#: without which a run never ends (a batch size of -4 spins forever, max_steps -1 never stops)
_POSITIVE = {"data.batch_size", "data.pool", "data.max_run", "model.d_model", "model.n_layers",
             "model.n_heads", "model.mlp_ratio", "model.rope_base", "model.max_positions",
             "optim.lr", "trainer.max_steps", "trainer.devices", "trainer.num_nodes",
             "trainer.accumulate_grad_batches", "trainer.val_check_interval",
             "trainer.log_every_n_steps", "trainer.checkpoint_every_n_steps",
             "trainer.collective_timeout_s", "data.max_record_tokens"}
_FRACTIONS = {"data.mask_prob", "data.mask_fields_prob", "model.dropout", "optim.min_lr_ratio"}


def validate_config(config: dict) -> None:
    """Raise :class:`~scinum.errors.ConfigError` (one line: key, value, what it must be) unless
    every value has the type of its default in :data:`DEFAULTS` (an int where a float is
    expected is fine; ``null`` defaults take anything), counts are positive, probabilities in
    [0, 1], the encoding's options are ones it takes and the accelerator exists here."""
    def fail(key: str, value: Any, expected: str) -> None:
        text = repr(value)
        text = text if len(text) <= 80 else f"{text[:80]}…({len(text)} chars)"
        raise ConfigError(f"config: {key} = {text}: expected {expected}")

    def walk(node: Any, default: Any, key: str) -> None:
        if isinstance(default, dict) and key not in _FREE:
            if not isinstance(node, dict):
                fail(key, node, "a mapping")
            for k, v in node.items():
                walk(v, default.get(k), f"{key}.{k}" if key else k)
            return
        if default is None and key not in _ALSO:
            return
        types = (type(default),) + _ALSO.get(key, ())
        if float in types:
            types += (int,)
        if type(node) is bool and bool not in types or not isinstance(node, types):
            names = " or ".join(dict.fromkeys("null" if t is type(None) else t.__name__ for t in types))
            fail(key, node, f"a value of type {names}")
        if type(node) in (int, float):
            if node != node or node in (math.inf, -math.inf):
                fail(key, node, "a finite number")
            if key in _POSITIVE and node <= 0:
                fail(key, node, "a number > 0")
            if key in _FRACTIONS and not 0 <= node <= 1:
                fail(key, node, "a number in [0, 1]")
            if key != "seed" and node < 0:
                fail(key, node, "a number >= 0")
        if key == "trainer.devices" and isinstance(node, list) and not node:
            fail(key, node, "auto, a count > 0 or a non-empty list of device indices")
        if key == "optim.betas" and not (len(node) == 2 and all(
                type(b) in (int, float) and 0 <= b < 1 for b in node)):
            fail(key, node, "two numbers in [0, 1)")

    walk(config, DEFAULTS, "")
    for section in _FREE:
        if not isinstance(config.get(section), dict):
            fail(section, config.get(section), "a mapping")
    from . import encodings, heads  # local: the registries import the encodings and heads
    try:
        encodings.from_config(config["encoding"])
    except (TypeError, ValueError, KeyError) as e:
        first = (str(e).splitlines() or [""])[0][:200]
        raise ConfigError(f"config: encoding {str(config['encoding'])[:120]}: {first}") from None
    try:
        heads.lookup(config["head"].get("kind", "native"))
    except (TypeError, ValueError, KeyError) as e:
        first = (str(e).splitlines() or [""])[0][:200]
        raise ConfigError(f"config: head {str(config['head'])[:120]}: {first}") from None
    accelerator = config["trainer"]["accelerator"]
    import torch
    if accelerator in ("gpu", "cuda") and not torch.cuda.is_available():
        fail("trainer.accelerator", accelerator, "an accelerator this machine has (no CUDA GPU "
             "is available: use cpu or auto)")


def resolve_normalizer(config: dict, encoding: Any) -> str:
    """The normalizer method: ``config["normalizer"]`` if set, else the encoding's default —
    except that a head that declares a normalizer (:attr:`scinum.heads.HeadOutputs.normalizer`;
    the mixture head, which works in normalized space with means initialised over [-5, 5],
    declares ``"standard"``) gets it where the encoding's default is ``"none"``. Encodings that are
    not ``normalizable`` (the text baselines, whose tokens write the raw values) always use
    ``"none"`` (any other setting raises ``ValueError``)."""
    if not encoding.normalizable:
        if config.get("normalizer") not in (None, "none"):
            raise ValueError(f"encoding {encoding.name} writes raw values as tokens: "
                             f"normalizer must be none, got {config['normalizer']!r}")
        return "none"
    if config.get("normalizer"):
        return config["normalizer"]
    from .heads import declared
    wanted = declared(config["head"]).normalizer
    if wanted and encoding.default_normalizer == "none":
        return wanted
    return encoding.default_normalizer
