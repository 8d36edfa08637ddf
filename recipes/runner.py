"""The shared recipe runner: build a dataset, train one model per encoding, evaluate, plot.

A recipe is a YAML file of presets (``recipes/planets.yaml``, ``recipes/era5.yaml``)::

    <preset>:
      build: {the builder's build() parameters: train: 4000, steps: 12, ...}
      train: {a scinum fit config without data.path/out_dir}
      models: {label: {encoding: {...}, head: {...}}, ...}
      evaluate: {limit: N, batch_size: N}
      source_help: how to get the data  # where build.source is null: --source is required

Every step is resumable: a finished dataset or ``model.ckpt`` is reused, an interrupted
``scinum fit`` resumes from its last checkpoint, so re-running a recipe continues it.
Layout of ``--work`` (default ``runs/<recipe>-<preset>``): ``data/``, ``models/<label>/``.
Results go to ``--out`` (default ``results/<recipe>``): ``table.md``, ``table.csv`` (with the
standard references of :mod:`scinum.analysis.baselines` unless ``evaluate: {baselines: false}``),
``predictions.csv``, ``plots/*.png``, and ``models/<label>/``: each model exported to share
(``model.safetensors``, ``config.json``, a ``README.md`` model card with its rows of the table).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from scinum.datasets import builders
from recipes.presets import load_preset, model_config
from scinum.train.config import parse_overrides
from scinum.util.atomic import write_text_atomic
from scinum.util.provenance import result_provenance
from scinum.errors import RecipeError, ScinumError

__all__ = ["run_recipe", "export_models", "main"]


def _train_one(config: dict[str, Any]) -> str:
    """Train one model on one thread (run in a worker process); returns its checkpoint path."""
    import torch

    from scinum.train.fit import fit

    torch.set_num_threads(1)
    return str(fit(config))


def train_models(name: str, configs: dict[str, dict[str, Any]], *, jobs: int | None = None, log=print) -> dict[str, Path]:
    """Train every model of ``configs`` (label -> ``scinum fit`` config) whose ``model.ckpt`` is
    not there yet; returns label -> checkpoint.

    Each model trains on **one thread**, ``jobs`` of them at once in separate processes (default:
    one per core). Small models parallelise badly over threads, so this is faster on a few cores
    than one model after another on all of them, and a model's numbers do not depend on how many
    cores the machine has (results are reproducible across machines). Encodings with several
    tokens per number (text, about twice the cost per step) start first, so the pool finishes
    evenly.
    """
    import os
    from concurrent.futures import as_completed

    from scinum import encodings
    from scinum.util.processes import worker_pool

    ckpts, todo = {}, []
    for label, cfg in configs.items():
        ckpt = Path(cfg["out_dir"]) / "model.ckpt"
        if ckpt.exists():
            log(f"[{name}] {label}: reusing {ckpt}")
            ckpts[label] = ckpt
        else:
            todo.append(label)
    todo.sort(key=lambda lb: -encodings.from_config(configs[lb]["encoding"]).tokens_per_number)
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(todo) or 1))
    if jobs > 1:  # progress bars of parallel runs would interleave: a line per model instead
        for label in todo:
            configs[label]["trainer"]["progress_bar"] = False
    started = time.time()
    with worker_pool(jobs) as pool:
        futures = {}
        for label in todo:
            log(f"[{name}] {label}: training ({configs[label]['trainer']['max_steps']} steps)")
            futures[pool.submit(_train_one, configs[label])] = label
        for f in as_completed(futures):
            label = futures[f]
            ckpts[label] = Path(f.result())
            log(f"[{name}] {label}: trained ({time.time() - started:.0f} s since the start of training)")
    return ckpts


def run_recipe(
    name: str,
    preset: dict[str, Any],
    *,
    work: Path,
    out: Path,
    models: Sequence[str] | None = None,
    workers: int | None = None,
    overrides: dict | None = None,
    jobs: int | None = None,
    preset_name: str | None = None,
    log=print,
) -> Path:
    """Run one recipe preset end to end; returns the results directory. ``overrides`` (a nested
    config dict) apply to every model's training config, after the preset's own settings;
    ``jobs`` models train at once (default: one per core, see :func:`train_models`)."""
    import pandas as pd
    import torch

    from scinum.analysis import evaluate as ev
    from scinum.analysis.scoring import default_fields
    from scinum.analysis import plots

    from scinum.analysis.results import check_results_dir

    t0 = time.time()
    check_results_dir(out)  # before hours of training: a user's own table.md is never replaced
    if "source" in preset["build"] and preset["build"]["source"] is None:
        raise RecipeError(
            f"recipes/{name}.yaml preset {preset_name or '?'}: build.source is null: "
            f"this preset needs real data, pass --source PATH ("
            f"{preset.get('source_help', 'see the builder README')})"
        )
    data = work / "data"
    params = dict(preset["build"], **({} if workers is None else {"workers": workers}))
    log(f"[{name}] building dataset in {data}")
    builders.build(preset.get("builder", name), data, **params)  # scinum.builders registry
    chosen = list(preset["models"]) if not models else list(models)
    unknown = [m for m in chosen if m not in preset["models"]]
    if unknown:
        raise RecipeError(f"[{name}] unknown model(s) {unknown}; preset has {list(preset['models'])}")
    configs = {}
    for label in chosen:
        configs[label] = model_config(preset, label, data, work / "models" / label, overrides)
    ckpts = train_models(name, configs, jobs=jobs, log=log)
    tables, preds = [], []
    fields = preset.get("evaluate", {}).get("fields")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # evaluation too: the same numbers on any number of cores
    try:
        for label in chosen:
            e = preset.get("evaluate", {})
            table, pred = ev.evaluate(ckpts[label], data, fields, label=label, limit=e.get("limit"), batch_size=e.get("batch_size", 256))
            tables.append(table)
            preds.append(pred)
    finally:
        torch.set_num_threads(threads)
    fields = fields or default_fields(json.loads((data / "manifest.json").read_text()))
    refs = {}
    if preset.get("evaluate", {}).get("baselines", True):  # standard references, same records
        from scinum.analysis.baselines import baseline_results

        table, pred, refs = baseline_results(
            data,
            fields,
            list(dict.fromkeys(tables[0]["split"])),
            limit=preset.get("evaluate", {}).get("limit"),
            seed=preset["train"].get("seed", 0),
            log=log,
        )
        tables.append(table)
        preds.append(pred)
    table = pd.concat(tables, ignore_index=True)
    ev.write_results(
        out,
        table,
        pd.concat(preds, ignore_index=True),
        ev.train_values(data, fields),
        {
            **ev.results_meta(data),
            "recipe": name,
            "elapsed_s": round(time.time() - t0, 1),
            **result_provenance(),
            "preset_name": preset_name,
            "preset": preset,
            "overrides": overrides or {},
            "baselines": refs,
            "models": {label: json.loads((work / "models" / label / "config.json").read_text()) for label in chosen},
        },
    )
    (out / "logs").mkdir(parents=True, exist_ok=True)
    for label in chosen:  # training curves: is each model still learning?
        metrics = work / "models" / label / "logs" / "metrics.csv"
        if metrics.is_file():
            write_text_atomic(out / "logs" / f"{label}.csv", metrics.read_text())
    written = plots.make_all(out)
    export_models({label: ckpts[label] for label in chosen}, out, log=lambda s: log(f"[{name}] {s}"))
    log((out / "table.md").read_text())
    log(f"[{name}] {len(written)} plots in {out / 'plots'}; total {time.time() - t0:.0f} s")
    return out


def export_models(ckpts: dict[str, Path], out: Path, log=print) -> list[Path]:
    """Export each trained model (label -> its ``<work>/models/<dir>/model.ckpt``) to
    ``<out>/models/<dir>/`` (``model.safetensors``, ``config.json`` and a model card whose
    evaluation is that label's rows of ``<out>``'s table): what a user shares. Costs a load and
    a write per model."""
    from scinum.share.export import export

    done = [export(ckpt, out / "models" / Path(ckpt).parent.name, out, label=label) for label, ckpt in ckpts.items()]
    log(f"{len(done)} models with their cards in {out / 'models'}")
    return done


def _options(a: argparse.Namespace, default_presets: Path) -> list[str]:
    """The words of ``a`` besides ``--preset`` that chose what a comparison runs: a presets file
    other than the recipe's own (as given, relative to where the command ran) and a data source."""
    words = [] if Path(a.presets).resolve() == default_presets.resolve() else ["--presets", str(a.presets)]
    return words + (["--source", str(a.source)] if a.source else [])


def main(name: str, argv: Sequence[str] | None = None) -> int:
    """Command line of ``python recipes/<name>.py``."""
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(prog=f"recipes/{name}.py", description=f"{name}: build -> train each encoding -> evaluate -> plots")
    p.add_argument("--preset", default="quick", help="preset of the presets file [quick]")
    p.add_argument("--presets", type=Path, default=here / f"{name}.yaml", help=f"presets file [recipes/{name}.yaml]")
    p.add_argument("--work", type=Path, help=f"working directory [runs/{name}-<preset>]")
    p.add_argument("--out", type=Path, help=f"results directory [results/{name}]")
    p.add_argument("--models", nargs="+", help="subset of the preset's models")
    p.add_argument("--workers", type=int, help="dataset build processes")
    p.add_argument("--jobs", type=int, help="models trained at once, one thread each [one per core]")
    p.add_argument("--source", help="the builder's data source instead of the preset's build.source (ERA5: a NetCDF/Zarr path)")
    p.add_argument("--seeds", type=int, default=1, help="comparison presets (with a budget): seeds 0..N-1 per model [1]")
    p.add_argument("--collect", action="store_true", help="comparison presets: report what has finished, train nothing")
    p.add_argument(
        "--set",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="training config overrides for every model, after the preset's own (e.g. model.positions=rope normalizer=scale)",
    )
    a = p.parse_args(argv)
    work = a.work or Path("runs") / f"{name}-{a.preset}"
    out = a.out or Path("results") / name
    try:
        preset = load_preset(a.presets, a.preset)
        if a.source:
            preset["build"]["source"] = a.source
        if "budget" in preset or "budgets" in preset:  # a comparison (recipes/compare.py)
            from recipes.compare import run_comparison

            run_comparison(
                name,
                preset,
                work=work,
                out=a.out or Path("results") / f"{name}-{a.preset}",
                seeds=a.seeds,
                models=a.models,
                workers=a.workers,
                jobs=a.jobs,
                overrides=parse_overrides(a.set),
                preset_name=a.preset,
                collect=a.collect,
                options=_options(a, here / f"{name}.yaml"),
                log=lambda s: print(s, file=sys.stderr, flush=True),
            )
            return 0
        if a.seeds != 1 or a.collect:  # options of comparisons only: never ignored silently
            flag = f"--seeds {a.seeds}" if a.seeds != 1 else "--collect"
            raise RecipeError(
                f"{flag}: preset {a.preset!r} of {a.presets.name} is not a comparison (it declares no budget); it trains one seed per model"
            )
        run_recipe(
            name,
            preset,
            work=work,
            out=out,
            models=a.models,
            workers=a.workers,
            jobs=a.jobs,
            preset_name=a.preset,
            overrides=parse_overrides(a.set),
            log=lambda s: print(s, file=sys.stderr, flush=True),
        )
    except ScinumError as e:  # a library error becomes one line and an exit code here only
        print(f"recipes/{name}.py: error: {e}", file=sys.stderr)
        return 1
    return 0
