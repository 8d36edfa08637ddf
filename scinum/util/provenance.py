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
training values" can be told from "outside the training range". ``atom`` (``{"value", "count",
"gap"}``) names a field's one value that holds at least :data:`ATOM_SHARE` of its training numbers
although the field takes more than :data:`MAX_DISTINCT` values, and stands apart from them: the
distance from it to the nearest other training value (``gap``) is at least
:data:`ATOM_ISOLATION` times the mean spacing of the next distinct values beyond that one (the
planets' semi-major axes at 1.0: experiments/planets-atoms). The most frequent value of a rounded
column lies one spacing from its neighbour: not an atom. :mod:`scinum.fill.atoms` puts a
prediction close to an atom exactly on it.
"""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from .version import __version__

__all__ = [
    "ATOM_ISOLATION",
    "ATOM_SHARE",
    "MAX_DISTINCT",
    "field_ranges",
    "dataset_identity",
    "versions",
    "git_commit",
    "run_info",
    "file_sha256",
    "result_provenance",
]

#: distinct training values kept per field (more: only count/min/max)
MAX_DISTINCT = 16
#: a field of more values than MAX_DISTINCT whose one value holds at least this share of its
#: training numbers records it as its ``atom``
ATOM_SHARE = 0.05
#: ... and whose gap to the nearest other value is at least this many times the mean spacing of
#: the _NEIGHBOURS distinct values beyond that one (a rounded column's mode is 1 spacing away)
ATOM_ISOLATION = 10.0
_NEIGHBOURS = 8
#: counters per field of the one-pass search for atom candidates (Misra–Gries: every value above
#: 1/(_CANDIDATES + 1) of a field's numbers stays a candidate, far below ATOM_SHARE)
_CANDIDATES = 64

Chunks = Iterable[tuple[np.ndarray, np.ndarray]]
Frequent = tuple[np.ndarray, np.ndarray]  # a Misra–Gries summary: values float64[k], counts int64[k]


def field_ranges(fields: list[str], chunks: Callable[[], Chunks]) -> dict[str, dict[str, Any]]:
    """Per-field ``{"count", "min", "max"}`` (+ ``"values"``, sorted, when at most
    :data:`MAX_DISTINCT`; + ``"atom"``, see the module docstring) over the ``(field_ids int32[K],
    values float64[K])`` chunks that ``chunks()`` yields (called twice when a field may have an
    atom); ids < 0 (numbers of no field, non-numbers) are skipped; fields never seen are left out.
    Values are in the record's units (raw, before normalization)."""
    n = len(fields)
    count = np.zeros(n, np.int64)
    lo, hi = np.full(n, np.inf), np.full(n, -np.inf)
    distinct: list[set | None] = [set() for _ in range(n)]
    frequent: list[Frequent] = [(np.zeros(0), np.zeros(0, np.int64))] * n  # atom candidates, counts from below
    for fids, vals in chunks():
        fids, vals = _numbers(fids, vals)
        if not len(fids):
            continue
        np.add.at(count, fids, 1)
        np.minimum.at(lo, fids, vals)
        np.maximum.at(hi, fids, vals)
        for f, run_values, run_counts in _runs(fids, vals):
            seen = distinct[f]
            if seen is not None:
                seen.update(run_values.tolist())
                if len(seen) > MAX_DISTINCT:
                    distinct[f] = None
            frequent[f] = _merge_frequent(frequent[f], run_values, run_counts)
    out: dict[str, dict[str, Any]] = {}
    for i, name in enumerate(fields):
        if count[i]:
            out[name] = {"count": int(count[i]), "min": float(lo[i]), "max": float(hi[i])}
            values = distinct[i]
            if values is not None:
                out[name]["values"] = sorted(values)
    candidates = {  # each field's most frequent value, if it may hold ATOM_SHARE (its count is from below)
        f: float(v[c.argmax()])
        for f, (v, c) in enumerate(frequent)
        if distinct[f] is None and len(c) and c.max() >= ATOM_SHARE * count[f] / 2
    }
    for f, atom in _atoms(candidates, chunks).items():
        if atom["count"] >= ATOM_SHARE * count[f] and atom.pop("isolation") >= ATOM_ISOLATION:
            out[fields[f]]["atom"] = atom
    return out


def _numbers(fids: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A chunk's numbers of a field: finite values, field id >= 0."""
    fids, vals = np.asarray(fids), np.asarray(vals, dtype=np.float64)
    keep = (fids >= 0) & np.isfinite(vals)
    return fids[keep], vals[keep]


def _runs(fids: np.ndarray, vals: np.ndarray) -> Iterable[tuple[int, np.ndarray, np.ndarray]]:
    """Per field of a chunk: (field id, its distinct values sorted, how often each occurs)."""
    order = np.lexsort((vals, fids))
    f, v = fids[order], vals[order]
    starts = np.flatnonzero(np.r_[True, (f[1:] != f[:-1]) | (v[1:] != v[:-1])])
    counts = np.diff(np.r_[starts, len(f)])
    f, v = f[starts], v[starts]
    edges = np.flatnonzero(np.r_[True, f[1:] != f[:-1], True])
    for a, b in zip(edges[:-1], edges[1:]):
        yield int(f[a]), v[a:b], counts[a:b]


def _merge_frequent(summary: Frequent, values: np.ndarray, counts: np.ndarray) -> Frequent:
    """A Misra–Gries summary (values, counts) of :data:`_CANDIDATES` counters merged with a
    chunk's (values, counts): every value over 1/(_CANDIDATES + 1) of the numbers so far stays in
    it, its count at most that share of the numbers below its true count."""
    merged, where = np.unique(np.r_[summary[0], values], return_inverse=True)
    totals = np.bincount(where, weights=np.r_[summary[1], counts]).astype(np.int64)
    if len(merged) <= _CANDIDATES:
        return merged, totals
    cut = np.partition(totals, -(_CANDIDATES + 1))[-(_CANDIDATES + 1)]
    keep = totals > cut
    return merged[keep], totals[keep] - cut


def _atoms(candidates: dict[int, float], chunks: Callable[[], Chunks]) -> dict[int, dict[str, Any]]:
    """Field id -> ``{"value", "count", "gap", "isolation"}`` of each candidate value (a second
    pass over the chunks): its exact count, the distance to the nearest other value of its field,
    and that gap in units of the mean spacing of the next :data:`_NEIGHBOURS` distinct values
    beyond it on its side (on the other side when it is the only value on its own)."""
    if not candidates:
        return {}
    hits = dict.fromkeys(candidates, 0)
    # per candidate and side (below, above): the smallest distinct distances to other values so far
    near: dict[int, list[np.ndarray]] = {f: [np.zeros(0), np.zeros(0)] for f in candidates}
    for fids, vals in chunks():
        fids, vals = _numbers(fids, vals)
        for f, atom in candidates.items():
            v = vals[fids == f]
            hits[f] += int((v == atom).sum())
            for side, d in enumerate((atom - v[v < atom], v[v > atom] - atom)):
                near[f][side] = np.unique(np.r_[near[f][side], d])[: _NEIGHBOURS + 1]
    out = {}
    for f, atom in candidates.items():
        below, above = near[f]
        sides = sorted((d for d in (below, above) if len(d)), key=lambda d: d[0])  # the nearest side first
        if not sides:
            continue
        d = next((d for d in sides if len(d) > 1), sides[0])  # where a spacing can be measured
        spacing = (d[-1] - d[0]) / (len(d) - 1) if len(d) > 1 else 0.0
        isolation = float(sides[0][0] / spacing) if spacing > 0 else float("inf")
        out[f] = {"value": float(atom), "count": hits[f], "gap": float(sides[0][0]), "isolation": isolation}
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


def run_info(config: dict, fields: list[str], chunks: Callable[[], Chunks]) -> dict[str, Any]:
    """The checkpoint's ``run`` entry for a ``scinum fit`` config and its train split's number
    chunks (``chunks()`` yields them; module docstring)."""
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
