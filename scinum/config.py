"""Training configuration: nested defaults, YAML files and command-line overrides.

A config is a plain nested dict (JSON-able, saved with each run)::

    seed: 0
    out_dir: runs/planets-tiny
    data:      {path: DIR, batch_size: 32, mask_prob: 0.2, ...}
    encoding:  {name: xval, ...encoding options}
    head:      {kind: native, ...native head options (bittokens: point, mse_weight)}
               | {kind: mixture, n_components: 8, sigma_min: 0.001, point: mean}
    budget: null       # {samples: N} | {tokens: N} | {seconds: S} -> trainer.max_steps (scinum.budget)
    normalizer: null   # null: the encoding's default; "standard" for a mixture head when that is "none"
    calibrate: true    # mixture head: fit its spread per evaluation field on val after training
    model:     {d_model: 256, n_layers: 4, n_heads: 4, positions: learned, max_positions: null, ...}
    optim:     {lr: 3e-4, warmup_steps: 200, min_lr_ratio: 0.1, grad_clip: 1.0, number_loss_weight: 1.0, ...}
    trainer:   {max_steps: 2000, accelerator: auto, devices: auto, precision: auto, strategy: auto, ...}

Overrides: ``--trainer.max_steps 100``, ``--trainer.max_steps=100`` or ``trainer.max_steps=100``;
values are parsed as YAML (``1e-3``, ``true``, ``[1, 2]``, ``null``).
"""
from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any, Sequence

import yaml

from .batch import MASK_PROB
from .codec import MAX_RUN

__all__ = ["DEFAULTS", "load_config", "apply_overrides", "parse_overrides", "resolve_normalizer"]

DEFAULTS: dict[str, Any] = {
    "seed": 0,
    "out_dir": "runs/scinum",
    "data": {"path": None, "batch_size": 32, "mask_prob": MASK_PROB, "num_workers": 0, "pool": 50,
             "cache_dir": None, "max_run": MAX_RUN, "val_split": "val",
             # fill-task training: numbers these JSON paths name are hidden with this
             # probability on top of the MLM masking (mask_prob 0: only these)
             "mask_fields": [], "mask_fields_prob": 0.5},
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
                "checkpoint_every_n_steps": 500, "progress_bar": True},
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
        loaded = yaml.load(Path(path).read_text(), Loader=_Loader) or {}
        if not isinstance(loaded, dict):
            raise ValueError(f"{path}: a config must be a YAML mapping")
        config = apply_overrides(config, loaded)
    if not isinstance(overrides, dict):
        overrides = parse_overrides(overrides)
    config = apply_overrides(config, overrides)
    if not config["data"]["path"]:
        raise ValueError("config: data.path (the dataset directory) is required")
    return config


def resolve_normalizer(config: dict, encoding: Any) -> str:
    """The normalizer method: ``config["normalizer"]`` if set, else the encoding's default —
    except that a mixture head (which works in normalized space, with means initialised over
    [-5, 5]) gets ``"standard"`` where the encoding's default is ``"none"``. Encodings that are
    not ``normalizable`` (the text baselines, whose tokens write the raw values) always use
    ``"none"`` (any other setting raises ``ValueError``)."""
    if not encoding.normalizable:
        if config.get("normalizer") not in (None, "none"):
            raise ValueError(f"encoding {encoding.name} writes raw values as tokens: "
                             f"normalizer must be none, got {config['normalizer']!r}")
        return "none"
    if config.get("normalizer"):
        return config["normalizer"]
    if config["head"].get("kind") == "mixture" and encoding.default_normalizer == "none":
        return "standard"
    return encoding.default_normalizer
