"""The runs of a comparison (:mod:`recipes.compare`): each encoding tokenized once and every run's
steps resolved from the budget (:func:`prepare_runs`), then every unfinished (model, seed) trained
and evaluated in a pool of one-thread workers (:func:`run_pool`), resumable run by run.
"""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import as_completed
from pathlib import Path
from typing import Any

from scinum.errors import ScinumError
from scinum.model.config import value_path_text
from scinum.train.budget import resolve_steps, token_stream
from scinum.util.atomic import write_text_atomic

__all__ = ["prepare_runs", "batches_seen", "row_settings", "train_and_evaluate", "run_pool"]


def prepare_runs(configs: dict[tuple[str, int], dict], log) -> tuple[dict, dict]:
    """Tokenize each encoding once, here (seeds of one encoding train at once and would race on
    its cache), and resolve each run's steps exactly; returns (per run ``{steps, samples,
    tokens}`` seen — tokens: real tokens of the batch stream up to that step; a seconds budget's
    are counted after training, :func:`batches_seen` — and per run its training records' lengths)."""
    from scinum import encodings
    from scinum.train.config import resolve_normalizer
    from scinum.train.data import MLMDataModule

    lengths_of: dict[str, Any] = {}
    plan, lengths_by_run = {}, {}
    for (label, seed), cfg in configs.items():
        key = json.dumps(cfg["encoding"], sort_keys=True) + str(cfg["normalizer"]) + json.dumps(cfg["head"])
        d = cfg["data"]
        if key not in lengths_of:
            enc = encodings.from_config(cfg["encoding"])
            dm = MLMDataModule(
                d["path"],
                enc,
                normalizer=resolve_normalizer(cfg, enc),
                batch_size=d["batch_size"],
                max_run=d["max_run"],
                cache_dir=d["cache_dir"],
                val_split=d["val_split"],
            )
            dm.prepare()
            lengths_of[key] = dm.shards["train"].lengths
        lengths_by_run[(label, seed)] = lengths = lengths_of[key]
        t = cfg["trainer"]
        steps = resolve_steps(
            cfg["budget"],
            batch_size=d["batch_size"],
            max_steps=t["max_steps"],
            lengths=lengths,
            seed=cfg["seed"],
            pool=d["pool"],
            accumulate=t["accumulate_grad_batches"],
        )
        cfg["trainer"]["max_steps"] = steps
        seen = (0, 0) if "seconds" in cfg["budget"] else batches_seen(cfg, lengths, steps)
        plan[(label, seed)] = {"steps": steps, "samples": seen[0], "tokens": seen[1]}
    return plan, lengths_by_run


def row_settings(configs: dict[tuple[str, int], dict]) -> dict[str, dict[str, str]]:
    """What each row of a comparison is, read from its runs' resolved configs (seed 0's; seeds
    differ only in the seed): encoding with its options, the normalizer it actually gets, head
    with its options, positions, trunk, batch, learning rate and precision — so that the table
    states every row's form, not the prose around it."""
    from scinum import encodings
    from scinum.train.config import resolve_normalizer

    def spelled(d: dict[str, Any], key: str) -> str:
        options = ", ".join(f"{k}={v}" for k, v in d.items() if k != key)
        return f"{d[key]}({options})" if options else str(d[key])

    out: dict[str, dict[str, str]] = {}
    for (label, seed), cfg in configs.items():
        if seed != 0:
            continue
        m = cfg["model"]
        out[label] = {
            "encoding": spelled(cfg["encoding"], "name"),
            "normalizer": resolve_normalizer(cfg, encodings.from_config(cfg["encoding"])),
            "head": spelled(cfg["head"], "kind") + (f" on a least-squares line of {', '.join(cfg['line'])}" if cfg.get("line") else ""),
            "positions": str(m["positions"]),
            "trunk": f"{m['d_model']} × {m['n_layers']}, {m['n_heads']} heads{value_path_text(m)}",
            "batch, lr": f"{cfg['data']['batch_size']}, {cfg['optim']['lr']:g}",
            "precision": str(cfg["trainer"]["precision"]).replace("auto", "auto (fp32 on CPU)"),
        }
    return out


def batches_seen(cfg: dict[str, Any], lengths, steps: int) -> tuple[int, int]:
    """(records, real tokens) of a run's batch stream over its first ``steps`` optimiser steps."""
    d, batches = cfg["data"], steps * cfg["trainer"]["accumulate_grad_batches"]
    samples = tokens = 0
    for k, b in enumerate(token_stream(lengths, d["batch_size"], cfg["seed"], d["pool"])):
        if k == batches:
            break
        tokens, samples = tokens + sum(b), samples + len(b)
    return samples, tokens


def train_and_evaluate(label: str, seed: int, config: dict, evaluate: dict, fields: list[str] | None) -> dict[str, Any]:
    """Worker: train (unless ``model.ckpt`` is there) and evaluate (unless ``eval.csv`` is) one
    (model, seed), one thread; returns its ``training.json`` and evaluation seconds."""
    import torch

    from scinum.analysis import evaluate as ev
    from scinum.train.fit import fit

    torch.set_num_threads(1)
    out = Path(config["out_dir"])
    ckpt = out / "model.ckpt"
    if not ckpt.exists():
        fit(config)
    info = json.loads((out / "training.json").read_text()) if (out / "training.json").exists() else {}
    if not (out / "eval.csv").exists():
        t0 = time.perf_counter()
        table, pred = ev.evaluate(
            ckpt, config["data"]["path"], fields, label=label, limit=evaluate.get("limit"), batch_size=evaluate.get("batch_size", 256)
        )
        table.insert(1, "seed", seed)
        pred.insert(1, "seed", seed)
        write_text_atomic(out / "predictions.csv", pred.to_csv(index=False))
        info["eval_seconds"] = round(time.perf_counter() - t0, 3)
        write_text_atomic(out / "eval.json", json.dumps(info, indent=1))
        write_text_atomic(out / "eval.csv", table.to_csv(index=False))  # last: marks it done
    return json.loads((out / "eval.json").read_text())


def run_pool(name: str, configs: dict, plan: dict, evaluate: dict, fields, jobs: int | None, log) -> dict[tuple[str, int], str]:
    """Train and evaluate every unfinished run, ``jobs`` at once; returns run -> error for the
    runs that failed (the others' results stand)."""
    from scinum import encodings
    from scinum.util.processes import worker_pool

    todo = [k for k, c in configs.items() if not (Path(c["out_dir"]) / "eval.csv").exists()]
    # seed by seed (an interrupted comparison has whole seeds of every model); within a seed the
    # cheapest first (fewest tokens per number), so a cut-off leaves the fewest runs unfinished
    todo.sort(key=lambda k: (k[1], encodings.from_config(configs[k]["encoding"]).tokens_per_number))
    failed: dict[tuple[str, int], str] = {}
    if not todo:
        return failed
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(todo)))
    started = time.time()
    with worker_pool(jobs) as pool:
        futures = {}
        for key in todo:
            configs[key]["trainer"]["progress_bar"] = False
            futures[pool.submit(train_and_evaluate, key[0], key[1], configs[key], evaluate, fields)] = key
        log(f"[{name}] {len(todo)} runs to train and evaluate, {jobs} at once")
        for f in as_completed(futures):
            label, seed = futures[f]
            try:
                info = f.result()
                log(
                    f"[{name}] {label} seed {seed}: {info.get('steps', plan[(label, seed)]['steps'])} steps, trained in "
                    f"{info.get('train_seconds', float('nan')):.0f} s, evaluated in "
                    f"{info.get('eval_seconds', float('nan')):.0f} s ({time.time() - started:.0f} s so far)"
                )
            except (ScinumError, RuntimeError, ValueError, OSError) as e:  # report, go on
                failed[(label, seed)] = f"{type(e).__name__}: {e}"
                log(f"[{name}] {label} seed {seed}: FAILED: {failed[(label, seed)]}")
    return failed
