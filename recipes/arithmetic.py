"""Arithmetic recipe: multi-digit multiplication (xVal paper, seed 002 §3.1, Table 2) and 6-digit
addition (FoNE, seed 000; scored as BitTokens does, seeds 003/004) for every encoding.

    python recipes/arithmetic.py --preset tiny      # plumbing only, well under a minute
    python recipes/arithmetic.py --preset quick     # CPU, one thread: about 20 minutes
    python recipes/arithmetic.py --preset paper     # the paper's model sizes, GPU

Each task (``tasks`` of a preset in recipes/arithmetic.yaml; the records and their splits are
described in :mod:`recipes.arithmetic_data`) goes the way a user's own data goes:

1. its records are written to ``<work>/<task>/records/{train,val,test}.jsonl``;
2. ``scinum build jsonl <work>/<task>/data --train ... --val ... --test ... --fields <result>``
   (through :func:`scinum.datasets.jsonl.build`);
3. one model per encoding is trained to fill the result (``data.mask_fields: [<result>]``: the
   right-hand side is masked, the xVal paper's "mask completion", §3.1);
4. each model fills the result of every test record, scored per (task, model):

   * ``adj_r2`` — adjusted R² (the xVal paper's Table 2 metric) with **p = 2 predictors**, the two
     operands (the paper does not say its p; with n test records the difference from R² is
     (1 − R²)·2/(n − 3));
   * ``exact`` — integer exact match: the prediction rounded to the nearest integer is the
     result (FoNE's accuracy; the text encodings write 3 significant digits, the paper's
     ``±ddd E±d``, so their exact match is 0 by construction wherever results have more);
   * ``log_smape`` — BitTokens' log-sMAPE (1 = all 15 significant digits right);
   * ``median_rel_err`` — median |ŷ − y|/y: robust to the few wild predictions that can make a
     model's R² negative (P10 on addition);
   * ``r2``, ``mse`` (in result units²), ``unparseable`` (text predictions that are no number).

   Figures from the papers stand beside ours in ``paper_adj_r2`` (seed 002 Table 2, multiplication)
   and ``paper_exact`` (seed 000, 6-digit addition: FoNE 1.0, xVal 0.0044, its one-epoch table).
   The standard references fitted on the same training records stand in the same table (``kind``
   ``regressor``/``reference``, :mod:`scinum.baselines`; ridge on the two operands adds exactly,
   and is linear only in them, so it cannot multiply), scored alike.

Results: ``<out>/table.md``, ``table.csv``, ``predictions.csv`` (``field`` is ``<task>.<result>``,
so plots are drawn per task) and ``plots/``. Every step is resumable like the other recipes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Sequence

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:  # run as a script: make `recipes` importable
    sys.path.insert(0, str(HERE.parent))

from recipes.arithmetic_data import Task, generate, task_from_config, write_jsonl  # noqa: E402

#: Predictors of adjusted R²: the two operands (see the module docstring).
N_PREDICTORS = 2
#: seed 002 Table 2, adjusted R² per (task, encoding); its xVal row is "xval".
PAPER_ADJ_R2 = {
    "mul3": {"p10": 0.9989, "p1000": 0.9997, "b1999": 0.9998, "fp15": 0.7119, "xval": 0.9986},
    "mul4": {"p10": 0.6071, "p1000": 0.9783, "b1999": 0.9984, "fp15": 0.9959, "xval": 0.9975},
    "mul5": {"p10": 0.9439, "p1000": 0.9991, "b1999": 0.9997, "fp15": 0.9980, "xval": 0.9958},
}
#: seed 000 (FoNE summary, Main Results): 6-digit addition accuracy; FoNE reaches 100 %, xVal
#: 0.44 % in its one-epoch table.
PAPER_EXACT = {"add6": {"fone": 1.0, "xval": 0.0044}}
COLUMNS = [
    "task",
    "model",
    "kind",
    "field",
    "split",
    "n",
    "adj_r2",
    "r2",
    "exact",
    "log_smape",
    "median_rel_err",
    "unparseable",
    "mse",
    "paper_adj_r2",
    "paper_exact",
]


def load_tasks(preset: dict[str, Any], where: str, only: Sequence[str] | None = None) -> list[Task]:
    """The preset's ``tasks`` as :class:`Task` s (``only``: a subset by name); errors name
    ``where`` (file and preset) and the key."""
    from scinum.errors import RecipeError

    tasks = preset.get("tasks")
    if not isinstance(tasks, dict) or not tasks:
        raise RecipeError(f"{where}: no 'tasks' mapping (task name -> op, digits, train, val, test)")
    unknown = [t for t in only or () if t not in tasks]
    if unknown:
        raise RecipeError(f"{where}: unknown task(s) {unknown}; the preset has {list(tasks)}")
    try:
        return [task_from_config(name, cfg) for name, cfg in tasks.items() if not only or name in only]
    except (TypeError, ValueError) as e:
        raise RecipeError(f"{where}: tasks: {e}") from None


def model_config(preset: dict, label: str, task: Task, data: Path, out_dir: Path, overrides: dict) -> dict[str, Any]:
    """The ``scinum fit`` config of one (task, model): the preset's ``train`` section, the
    model's overrides, then ``overrides``; the task's result is the masked field, and a FoNE
    ``int_digits: auto`` becomes the digit count of the task's largest result."""
    from recipes.presets import model_config as preset_config

    cfg = preset_config(preset, label, data, out_dir, overrides, data_section={"mask_fields": [task.field]})
    if cfg["encoding"].get("int_digits") == "auto":
        cfg["encoding"]["int_digits"] = len(str(task.max_result()))
    return cfg


def score(task: Task, label: str, pred, kind: str = "model") -> dict[str, Any]:
    """One table row from a model's predictions of ``task``'s result on one split (``kind``:
    ``model`` for scinum's, else the reference's kind, :mod:`scinum.analysis.baselines`)."""
    from scinum.analysis import metrics as m

    y, yhat = pred["true"].to_numpy(), pred["pred"].to_numpy()
    return {
        "task": task.name,
        "model": label,
        "kind": kind,
        "field": task.field,
        "split": pred["split"].iloc[0],
        "n": int(y.size),
        "adj_r2": m.adjusted_r2(y, yhat, N_PREDICTORS),
        "r2": m.r2(y, yhat),
        "exact": m.integer_exact_match(y, yhat),
        "log_smape": m.log_smape(y, yhat),
        "median_rel_err": m.median_relative_error(y, yhat),
        "unparseable": m.unparseable_fraction(yhat),
        "mse": m.mse(y, yhat),
        "paper_adj_r2": PAPER_ADJ_R2.get(task.name, {}).get(label),
        "paper_exact": PAPER_EXACT.get(task.name, {}).get(label),
    }


def run(
    preset: dict[str, Any],
    *,
    work: Path,
    out: Path,
    preset_name: str = "?",
    tasks: Sequence[str] | None = None,
    models: Sequence[str] | None = None,
    jobs: int | None = None,
    overrides: dict | None = None,
    log=print,
) -> Path:
    """Run one preset end to end (module docstring); returns the results directory."""
    import pandas as pd
    import torch

    from recipes.runner import train_models
    from scinum.util.provenance import result_provenance
    from scinum.analysis import evaluate as ev
    from scinum.analysis import plots
    from scinum.baselines import predict_baselines
    from scinum.util.atomic import write_text_atomic
    from scinum.errors import RecipeError
    from scinum.datasets.jsonl import build as build_jsonl

    t0 = time.time()
    where = f"arithmetic.yaml: preset {preset_name!r}"
    chosen = list(models or preset.get("models") or [])
    unknown = [m for m in chosen if m not in (preset.get("models") or {})]
    if unknown or not chosen:
        raise RecipeError(f"{where}: unknown model(s) {unknown}; the preset has {list(preset.get('models') or [])}")
    seed = preset.get("seed", 0)
    configs, jobs_of = {}, {}
    task_list = load_tasks(preset, where, tasks)
    for task in task_list:
        files = write_jsonl(generate(task, seed), work / task.name / "records")
        data = work / task.name / "data"
        log(f"[arithmetic] {task.name}: {task.counts} records -> {data}")
        build_jsonl(data, train=[files["train"]], val=[files["val"]], test=[files["test"]], fields=[task.field], progress=False)
        for label in chosen:
            key = f"{task.name}/{label}"
            try:
                configs[key] = model_config(preset, label, task, data, work / task.name / "models" / label, overrides or {})
            except (KeyError, ValueError) as e:
                raise RecipeError(f"{where}: model {label!r}: {e}") from None
            jobs_of[key] = (task, label, data)
    ckpts = train_models("arithmetic", configs, jobs=jobs, log=log)
    e = preset.get("evaluate") or {}
    rows, preds = [], []
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the same numbers on any number of cores
    try:
        for key, (task, label, data) in jobs_of.items():
            _, pred = ev.evaluate(
                ckpts[key], data, [task.field], ["test"], label=label, limit=e.get("limit"), batch_size=e.get("batch_size", 256)
            )
            rows.append(score(task, label, pred))
            preds.append(pred.assign(task=task.name, field=f"{task.name}.{task.field}"))
    finally:
        torch.set_num_threads(threads)
    for task in task_list:  # the standard references on the same records
        refs, _ = predict_baselines(work / task.name / "data", [task.field], ["test"], limit=e.get("limit"), seed=seed, log=log)
        for (label, kind), pred in refs.groupby(["model", "kind"], sort=False):
            rows.append(score(task, label, pred, kind))
            preds.append(pred.assign(task=task.name, field=f"{task.name}.{task.field}"))
    table = pd.DataFrame(rows, columns=COLUMNS)
    meta = {
        "recipe": "arithmetic",
        "elapsed_s": round(time.time() - t0, 1),
        **result_provenance(),
        "preset_name": preset_name,
        "preset": preset,
        "overrides": overrides or {},
        "seeds": [seed],
        "n_predictors_adj_r2": N_PREDICTORS,
        "datasets": {t.name: str(jobs_of[f"{t.name}/{chosen[0]}"][2]) for t in task_list},
        "models": {k: json.loads((Path(c["out_dir"]) / "config.json").read_text()) for k, c in configs.items()},
    }
    ev.write_results(out, table, pd.concat(preds, ignore_index=True), {}, meta)
    (out / "logs").mkdir(parents=True, exist_ok=True)
    for key, cfg in configs.items():  # training curves: is each model still learning?
        metrics = Path(cfg["out_dir"]) / "logs" / "metrics.csv"
        if metrics.is_file():
            write_text_atomic(out / "logs" / f"{key.replace('/', '-')}.csv", metrics.read_text())
    written = plots.make_all(out)
    log((out / "table.md").read_text())
    log(f"[arithmetic] {len(written)} plots in {out / 'plots'}; total {time.time() - t0:.0f} s")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from recipes.presets import load_preset
    from scinum.train.config import parse_overrides
    from scinum.errors import ScinumError

    p = argparse.ArgumentParser(prog="recipes/arithmetic.py", description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("--preset", default="quick", help="preset of the presets file [quick]")
    p.add_argument("--presets", type=Path, default=HERE / "arithmetic.yaml", help="presets file [recipes/arithmetic.yaml]")
    p.add_argument("--work", type=Path, help="working directory [runs/arithmetic-<preset>]")
    p.add_argument("--out", type=Path, default=Path("results/arithmetic"), help="results directory [results/arithmetic]")
    p.add_argument("--tasks", nargs="+", help="subset of the preset's tasks (mul3 add6 ...)")
    p.add_argument("--models", nargs="+", help="subset of the preset's models")
    p.add_argument("--jobs", type=int, help="models trained at once, one thread each [one per core]")
    p.add_argument(
        "--set", nargs="+", default=[], metavar="KEY=VALUE", help="training config overrides for every model (e.g. trainer.max_steps=100)"
    )
    a = p.parse_args(argv)
    try:
        preset = load_preset(a.presets, a.preset)
        run(
            preset,
            work=a.work or Path("runs") / f"arithmetic-{a.preset}",
            out=a.out,
            preset_name=a.preset,
            tasks=a.tasks,
            models=a.models,
            jobs=a.jobs,
            overrides=parse_overrides(a.set),
            log=lambda s: print(s, file=sys.stderr, flush=True),
        )
    except ScinumError as e:  # a library error becomes one line and an exit code here only
        print(f"recipes/arithmetic.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
