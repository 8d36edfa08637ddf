"""Where a model came from: its dataset's identity, the ranges of the numbers it trained on, the
training budget, package versions and the commit — recorded in the checkpoint's ``run`` entry
at training time (:func:`run_info`) so that an exported model card can say what a model knows
without the dataset at hand.

``run_info(...)`` -> ``{"data": path, "seed": int, "dataset": {builder, builder_version, seed,
counts, evaluation, manifest_sha256}, "train_ranges": {field: {"count", "min", "max",
"values"?}}, "training": {max_steps, batch_size, ...}, "versions": {...}, "commit": str|None, "config":
the run's whole config}``.
``values`` lists a field's distinct training values when there are at most
:data:`MAX_DISTINCT` of them (the planets step size: 0.2, 0.3, 0.5, 0.8), so that "outside the
training values" can be told from "outside the training range".
"""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from .version import __version__

__all__ = ["MAX_DISTINCT", "field_ranges", "dataset_identity", "versions", "git_commit", "run_info", "file_sha256", "result_provenance"]

#: distinct training values kept per field (more: only count/min/max)
MAX_DISTINCT = 16


def field_ranges(fields: list[str], chunks: Iterable[tuple[np.ndarray, np.ndarray]]) -> dict[str, dict[str, Any]]:
    """Per-field ``{"count", "min", "max"}`` (+ ``"values"``, sorted, when at most
    :data:`MAX_DISTINCT`) over ``(field_ids int32[K], values float64[K])`` chunks; ids < 0
    (numbers of no field, non-numbers) are skipped; fields never seen are left out. Values are
    in the record's units (raw, before normalization)."""
    n = len(fields)
    count = np.zeros(n, np.int64)
    lo, hi = np.full(n, np.inf), np.full(n, -np.inf)
    distinct: list[set | None] = [set() for _ in range(n)]
    for fids, vals in chunks:
        fids = np.asarray(fids)
        vals = np.asarray(vals, dtype=np.float64)
        keep = (fids >= 0) & np.isfinite(vals)
        fids, vals = fids[keep], vals[keep]
        if not len(fids):
            continue
        np.add.at(count, fids, 1)
        np.minimum.at(lo, fids, vals)
        np.maximum.at(hi, fids, vals)
        for f in np.unique(fids):
            if distinct[f] is not None:
                distinct[f].update(np.unique(vals[fids == f]).tolist())
                if len(distinct[f]) > MAX_DISTINCT:
                    distinct[f] = None
    out: dict[str, dict[str, Any]] = {}
    for i, name in enumerate(fields):
        if count[i]:
            out[name] = {"count": int(count[i]), "min": float(lo[i]), "max": float(hi[i])}
            values = distinct[i]
            if values is not None:
                out[name]["values"] = sorted(values)
    return out


def dataset_identity(path: str | Path) -> dict[str, Any]:
    """What identifies a dataset directory: its builder, version, seed, split counts, the
    builder's evaluation declaration (fields, OOD splits, units) and the manifest's sha256.
    ``{}`` when it has no readable manifest."""
    mf = Path(path) / "manifest.json"
    try:
        raw = mf.read_bytes()
        m = json.loads(raw)
    except (OSError, ValueError):
        return {}
    return {
        "builder": m.get("builder"),
        "builder_version": m.get("builder_version"),
        "seed": m.get("seed"),
        "counts": {s: v.get("count") for s, v in (m.get("splits") or {}).items()},
        "evaluation": m.get("evaluation") or {},
        "manifest_sha256": hashlib.sha256(raw).hexdigest(),
    }


#: distributions whose versions a result depends on: the same seed gives the same numbers bit
#: for bit only with the same versions on the same kind of CPU (README, *Reproducibility*);
#: scipy and pandas compute and hold the evaluation tables and their statistics
PACKAGES = ("scinum", "torch", "lightning", "numpy", "rebound", "scipy", "pandas")


def versions() -> dict[str, str | None]:
    """Versions of the packages a model's numbers depend on (and Python's); None for a package
    that is not installed."""
    from importlib import metadata

    out: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    out["python"] = platform.python_version()
    return out


def file_sha256(path: str | Path) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB blocks (the identity of an input or output)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def git_commit() -> str | None:
    """The commit of the scinum checkout this code runs from (``+dirty`` when tracked files
    changed); None for an installed wheel or without git."""
    here = Path(__file__).resolve().parents[2]  # the checkout: scinum/util/ is two below it

    def git(*args: str) -> str | None:
        try:
            return subprocess.run(["git", *args], cwd=here, capture_output=True, text=True, timeout=10, check=True).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return None

    if not (here / ".git").exists():
        return None
    commit = git("rev-parse", "HEAD")
    if commit and git("status", "--porcelain", "--untracked-files=no"):
        commit += "+dirty"
    return commit or None


def run_info(config: dict, fields: list[str], chunks: Iterable[tuple[np.ndarray, np.ndarray]]) -> dict[str, Any]:
    """The checkpoint's ``run`` entry for a ``scinum fit`` config and its train split's number
    chunks (module docstring)."""
    d, t, o = config["data"], config["trainer"], config["optim"]
    info = {
        "data": str(d["path"]),
        "seed": config["seed"],
        "dataset": dataset_identity(d["path"]),
        "train_ranges": field_ranges(fields, chunks),
        "training": {
            "max_steps": t["max_steps"],
            "batch_size": d["batch_size"],
            "devices": t.get("devices"),
            "num_nodes": t.get("num_nodes", 1),
            "accumulate_grad_batches": t.get("accumulate_grad_batches", 1),
            "lr": o.get("lr"),
            "mask_prob": d.get("mask_prob"),
            "mask_fields": d.get("mask_fields"),
            "mask_fields_alone": d.get("mask_fields_alone"),
            "normalizer": config.get("normalizer"),
        },
        "versions": versions(),
        "commit": git_commit(),
        "config": config,
    }  # the whole run config: a resumed run is compared with it
    return json.loads(json.dumps(info, default=str))  # plain JSON types only: checkpoints load weights_only


def result_provenance() -> dict[str, Any]:
    """What produced a result: the git commit of this checkout (``dirty`` if it has uncommitted
    changes to tracked files), the scinum and package versions, the machine, torch's intra-op
    threads (float results depend on them) and the time."""
    import os
    from datetime import datetime, timezone

    import torch

    commit = git_commit()
    dirty = commit.endswith("+dirty") if commit else None
    return {
        "commit": commit.removesuffix("+dirty") if commit else None,
        "dirty": dirty,
        "scinum": __version__,
        "versions": versions(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "torch_threads": torch.get_num_threads(),
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
