"""Comparisons: every model of a preset at one declared budget, several seeds, intervals.

A comparison preset is a recipe preset with a ``budget`` (:mod:`scinum.train.budget`)::

    compare:
      build: {...}                      # one dataset, built once (its seed fixed)
      budget: {samples: 38400}          # | {tokens: N} | {seconds: S}: the same for every model
      train: {...}                      # one training config for every model
      models: {label: {encoding: ..., head: ..., normalizer: ...}}
      evaluate: {limit: N, batch_size: N}
      table: {metric: mse, columns: [{name, field, split}, ...], paper: {label: [cell, ...]},
              departures: {all: text, label: text}}   # how each row departs from its paper

Instead of one ``budget`` a preset may declare ``budgets`` — named budgets, each a whole
comparison of every model (the xVal paper's Table 4: equal samples, equal tokens, equal runtime;
or the points of a learning curve)::

      budgets: {equal samples: {samples: 9600}, equal tokens: {tokens: 4.0e6}, equal runtime: {seconds: 120}}

Each budget's runs and report go to ``<work>/<slug>/`` and ``<out>/<slug>/`` (its own table,
paired differences, plots); ``<out>`` gets the side-by-side table (``table.md``, ``table.csv``
and ``seeds.csv`` with a ``budget`` column) and ``plots/budgets_<metric>.png`` (metric against
training seconds, one line per model through its budgets).

``varies: [model, ...]``: config sections (or ``line``) a model of this preset may set beyond what an encoding
is, because the comparison is *about* them (a curve over trunk sizes); recorded in ``meta.json``.
``baselines: module:function``: non-learned predictors scored on the same records, a function
``(data_dir, split, limit) -> rows`` (:func:`scinum_era5.tasks.comparison_baselines`), reported beside
the models with their own interval; the standard references of :mod:`scinum.analysis.baselines`
(ridge, boosted trees, train mean, persistence, the oracles) join them unless ``evaluate:
{baselines: false}``.

``python recipes/<name>.py --preset compare --seeds N`` trains each model for seeds 0..N-1.
**What the seed changes**: the training config's ``seed`` — model initialisation, MLM masking and
the batch order. The dataset (its build seed) and the evaluation records are the same for every
seed, so seed s of two models saw the same records in the same order with the same masks
(masks of text encodings differ: their records have more tokens), and per-seed differences
between models are paired.

**Per-model settings**: a model may set only ``encoding``, ``head`` and ``normalizer`` (what the
model *is*); batch size, learning rate, steps and trunk are the preset's, for all. A tuned form of
an encoding is a separate model whose label names its departures. A model that sets anything else
is refused (``RecipeError`` naming the key) unless the preset declares ``tuning:`` — the one
procedure that chose those settings for every model.

Each (model, seed) trains on one thread and is evaluated in the same worker process; finished
work is reused (``models/<label>/seed<s>/model.ckpt``, ``eval.csv``), so re-running the command
continues it; ``--collect`` writes the results of what has finished without training more.
**Scoring**: every run's per-number predictions (``predictions.csv`` of ``scinum evaluate``) are
gathered; an unparsed one is scored as the train mean's prediction of its field, so MSE and R²
count every prediction (``mse_parsed``/``r2_parsed`` keep the parsed-only figures, ``n_unparsed``
the count; :func:`scinum.analysis.scoring.score_runs`), and the paired differences resample them
(:mod:`scinum.analysis.paired`).

Results (``--out``): ``table.md``, ``table.csv`` (model, kind, field, split, metric, mean,
ci95_low, ci95_high, n_seeds, median, n_diverged, n_records; the baselines' rows add n, seeds,
interval), ``seeds.csv`` (every per-seed metric, ``diverged``), ``paired.csv`` (bootstrap ratio,
p, Holm), ``predictions.csv.gz`` (model, seed, split, field, record, truth, prediction,
unparsed), ``meta.json`` (budget, seeds, commit, package versions, per-model
steps/samples/tokens/training seconds), ``plots/compare_*.png``.
"""

from __future__ import annotations

import copy
import json
import shlex
import time
from importlib import import_module
from pathlib import Path
from typing import Any, Sequence

from scinum.util.provenance import versions
from scinum.train.config import check_budget
from scinum.datasets import builders
from recipes.presets import model_config, override_words
from recipes.compare_runs import batches_seen, prepare_runs, row_settings, run_pool
from scinum.errors import RecipeError
from scinum.analysis.results import check_results_dir

__all__ = ["MODEL_KEYS", "budgets_of", "model_configs", "run_comparison"]

#: what a model of a comparison may set itself (module docstring)
MODEL_KEYS = ("encoding", "head", "normalizer")


def model_configs(
    name: str,
    preset: dict[str, Any],
    data: Path,
    work: Path,
    seeds: int,
    models: Sequence[str] | None = None,
    overrides: dict | None = None,
    where: str = "compare",
) -> dict[tuple[str, int], dict[str, Any]]:
    """``(label, seed) -> scinum fit config`` for every chosen model and seed 0..seeds-1, each
    with the preset's budget. ``where`` names the preset in errors (``planets.yaml: compare``)."""
    if "budget" not in preset:
        raise RecipeError(f"{where}: a comparison needs a budget (budget: {{samples: N}})")
    budget = check_budget(preset["budget"], f"{where}.budget")
    allowed = (*MODEL_KEYS, *_varies(preset, where))
    if seeds < 1:
        raise RecipeError(f"{where}: --seeds must be at least 1, got {seeds}")
    chosen = list(preset["models"]) if not models else list(models)
    unknown = [m for m in chosen if m not in preset["models"]]
    if unknown:
        raise RecipeError(f"{where}: unknown model(s) {unknown}; preset has {list(preset['models'])}")
    for label in chosen:
        own = preset["models"][label] or {}
        extra = [k for k in own if k not in allowed]
        if "budget" in own:
            raise RecipeError(f"{where}.models.{label}.budget: one budget for every model of a comparison")
        if extra and not preset.get("tuning"):
            raise RecipeError(
                f"{where}.models.{label}.{extra[0]}: a comparison's models set only "
                f"{list(allowed)}; per-model {extra[0]} needs a declared tuning "
                "procedure (tuning:) that chose it for every model, or "
                f"varies: [{extra[0]}] if the comparison is about it"
            )
    if overrides and "budget" in overrides:
        raise RecipeError(f"{where}: --set budget=... would change one comparison's declared budget; edit the preset instead")
    out = {}
    for label in chosen:
        for seed in range(seeds):
            cfg = model_config(preset, label, data, work / "models" / label / f"seed{seed}", overrides)
            cfg["seed"], cfg["budget"] = seed, copy.deepcopy(budget)
            out[(label, seed)] = cfg
    return out


def _varies(preset: dict[str, Any], where: str) -> list[str]:
    """The config sections ``varies`` lets a model set (module docstring)."""
    varies = preset.get("varies") or []
    known = ("data", "model", "optim", "trainer", "line")
    if not isinstance(varies, list) or any(v not in known for v in varies):
        raise RecipeError(f"{where}.varies: a list of config sections among {list(known)}, got {varies!r}")
    return varies


def budgets_of(preset: dict[str, Any], where: str = "compare") -> dict[str, dict[str, Any]]:
    """``{name: budget}`` of a comparison preset: its ``budgets``, or its one ``budget`` under the
    name ``""`` (module docstring); errors name ``where``."""
    if "budgets" in preset and "budget" in preset:
        raise RecipeError(f"{where}: give budget or budgets, not both")
    if "budgets" not in preset:
        if "budget" not in preset:
            raise RecipeError(f"{where}: a comparison needs a budget (budget: {{samples: N}})")
        return {"": check_budget(preset["budget"], f"{where}.budget")}
    named = preset["budgets"]
    if not isinstance(named, dict) or not named:
        raise RecipeError(f"{where}.budgets: a mapping of names to budgets, got {named!r}")
    slugs = [_slug(n) for n in named]
    if any(not isinstance(n, str) or not _slug(n) for n in named) or len(set(slugs)) != len(slugs):
        raise RecipeError(f"{where}.budgets: names must be distinct non-empty words, got {list(named)}")
    return {n: check_budget(b, f"{where}.budgets.{n}") for n, b in named.items()}


def _slug(name: Any) -> str:
    """A budget name as a directory name: ``equal samples`` -> ``equal-samples``."""
    return "-".join("".join(c if c.isalnum() else " " for c in str(name)).split()).lower()


def run_comparison(
    name: str,
    preset: dict[str, Any],
    *,
    work: Path,
    out: Path,
    seeds: int,
    models: Sequence[str] | None = None,
    workers: int | None = None,
    overrides: dict | None = None,
    jobs: int | None = None,
    preset_name: str = "compare",
    collect: bool = False,
    options: Sequence[str] = (),
    log=print,
) -> Path:
    """Run (or, ``collect``, only gather) a comparison preset end to end; returns ``out``.
    ``options``: the command-line words besides ``--preset`` that chose what runs (another
    presets file, a data source), written into the results' command."""
    t0 = time.time()
    data = work / "data"
    where = f"{name}.yaml: {preset_name}"
    budgets = budgets_of(preset, where)
    single = {k: v for k, v in preset.items() if k != "budgets"}
    plans = {
        b: ({**single, "budget": budget, "table": _budget_table(single.get("table"), i)}, work / _slug(b), out / _slug(b))
        if b
        else (single, work, out)
        for i, (b, budget) in enumerate(budgets.items())
    }
    for b, (sub, w, o) in plans.items():  # every budget's configs are checked before anything runs
        model_configs(name, sub, data, w, seeds, models, overrides, where)
        check_results_dir(o)  # and its results directory: a user's own files are never replaced
    check_results_dir(out)
    params = dict(preset["build"], **({} if workers is None else {"workers": workers}))
    if not collect:
        log(f"[{name}] building dataset in {data}")
        builders.get(name).build(data, **params)
    elif not (data / "manifest.json").exists():
        raise RecipeError(f"{data}: no dataset to collect results from (run without --collect)")
    baselines = _baselines(preset, data, where, log=log)
    words = [*options, "--preset", preset_name, "--seeds", str(seeds)]
    words += ["--models", *models] if models else []
    words += ["--set", *override_words(overrides)] if overrides else []
    command = f"python recipes/{name}.py {shlex.join(words)}"
    results = {}
    for b, (sub, w, o) in plans.items():
        if b:
            log(f"[{name}] budget {b!r}: {json.dumps(budgets[b])}")
        results[b] = _compare(
            name,
            sub,
            data=data,
            work=w,
            out=o,
            seeds=seeds,
            models=models,
            overrides=overrides,
            jobs=jobs,
            collect=collect,
            where=where,
            preset_name=preset_name,
            command=command,
            baselines=baselines,
            show_table=not b,
            log=log,
        )
    if len(budgets) == 1 and "" in budgets:
        return out
    from scinum.analysis import report
    from scinum.util.provenance import result_provenance

    meta = {
        **result_provenance(),
        "recipe": name,
        "preset_name": preset_name,
        "command": command,
        "budgets": budgets,
        "seeds": list(range(seeds)),
        "varies": preset.get("varies"),
        "per_budget": {b: _slug(b) for b in budgets},
        **{k: results[next(iter(results))][1][k] for k in ("seed_varies", "interval")},
        "missing": [f"{b}: {m}" for b, (_, meta_b) in results.items() for m in meta_b["missing"]],
        "core_seconds": round(sum(m["core_seconds"] for _, m in results.values()), 1),
        "elapsed_s": round(time.time() - t0, 1),
    }
    report.write_budgets(
        out, {b: r[0] for b, r in results.items()}, {b: r[1] for b, r in results.items()}, meta, preset.get("table"), baselines=baselines
    )
    log((out / "table.md").read_text())
    return out


def _budget_table(table: dict | None, index: int) -> dict | None:
    """One budget's table spec from a several-budget preset's: the paper's rows there give each
    budget's columns and its runtime side by side (the Table 4 layout), so budget ``index`` keeps
    its own columns' cells."""
    if not table or not table.get("paper"):
        return table
    width = len(table["columns"]) + 1  # the columns, then the runtime
    paper = {m: row[index * width : index * width + width - 1] for m, row in table["paper"].items()}
    return {**table, "paper": paper}


def _subsets_as_splits(per_seed):
    """Evaluation rows of a split's ``interp``/``extrap`` subsets (:mod:`scinum.analysis.evaluate`)
    as splits of their own, ``<split>:interp`` / ``<split>:extrap``, so that every (model, field,
    split) cell of a comparison holds one value per seed; the ``all`` rows keep the split's name."""
    if "subset" not in per_seed:
        return per_seed
    subset = per_seed["subset"].fillna("all")
    out = per_seed.drop(columns="subset")
    out["split"] = out["split"].where(subset == "all", out["split"] + ":" + subset)
    return out


def _baselines(preset: dict[str, Any], data: Path, where: str, log=print):
    """The preset's non-learned baselines scored on the evaluated records (module docstring) and
    the standard references of :mod:`scinum.analysis.baselines` (unless ``evaluate:
    {baselines: false}``; fitted once, seed 0: the same rows under every seed), as a frame, or
    None."""
    import pandas as pd

    spec, e, frames = preset.get("baselines"), preset.get("evaluate", {}), []
    if spec:
        module, _, func = str(spec).partition(":")
        try:
            fn = getattr(import_module(module), func)
        except (ImportError, AttributeError) as err:
            raise RecipeError(f"{where}.baselines: cannot find {spec!r} ({err})") from None
        frames.append(pd.DataFrame(fn(data, "test", e.get("limit"))).assign(kind="reference"))
    if e.get("baselines", True):
        from scinum.analysis.baselines import comparison_baselines

        ours = comparison_baselines(data, e.get("fields"), e.get("limit"), seed=0, log=log)
        named = set(frames[0]["model"]) if frames else set()  # the preset's own persistence stays
        frames.append(ours[~ours["model"].isin(named)])
    return pd.concat(frames, ignore_index=True) if frames else None


def _compare(
    name: str,
    preset: dict[str, Any],
    *,
    data: Path,
    work: Path,
    out: Path,
    seeds: int,
    models,
    overrides,
    jobs,
    collect: bool,
    where: str,
    preset_name: str,
    command: str,
    baselines,
    show_table: bool,
    log,
) -> tuple[Any, dict[str, Any]]:
    """One budget's comparison on a built dataset: train and evaluate what is unfinished (unless
    ``collect``), write its report to ``out``; returns (per-seed metrics, meta)."""
    import pandas as pd

    from scinum.util.provenance import result_provenance
    from scinum.analysis import report
    from scinum.analysis.paired import RESAMPLES, SEED
    from scinum.analysis.scoring import SCORED_COLUMNS, score_runs
    from scinum.analysis.stats import DIVERGENCE_FACTOR
    from scinum.baselines import train_means

    t0 = time.time()
    configs = model_configs(name, preset, data, work, seeds, models, overrides, where)
    plan, lengths = prepare_runs(configs, log)
    e = preset.get("evaluate", {})
    failed = {} if collect else run_pool(name, configs, plan, e, e.get("fields"), jobs, log)
    tables, preds, runs, missing = [], [], {}, []
    for (label, seed), cfg in configs.items():
        o = Path(cfg["out_dir"])
        if not (o / "eval.csv").exists():
            missing.append(f"{label} seed {seed}" + (f" ({failed[(label, seed)]})" if (label, seed) in failed else ""))
            continue
        tables.append(pd.read_csv(o / "eval.csv"))
        preds.append(pd.read_csv(o / "predictions.csv", usecols=SCORED_COLUMNS, dtype={"model": str, "field": str, "split": str}))
        info = json.loads((o / "eval.json").read_text())
        spent = plan[(label, seed)]
        if "seconds" in cfg["budget"] and info.get("steps"):  # what the clock let it see
            spent = dict(zip(("samples", "tokens"), batches_seen(cfg, lengths[(label, seed)], info["steps"])))
        runs[f"{label}/seed{seed}"] = {**spent, **info}
    if not tables:
        raise RecipeError(f"[{name}] no (model, seed) has finished: nothing to report")
    manifest = json.loads((data / "manifest.json").read_text())
    evaluated = pd.concat(preds, ignore_index=True)
    means = train_means(data, list(dict.fromkeys(evaluated["field"])))
    per_seed, predictions = score_runs(_subsets_as_splits(pd.concat(tables, ignore_index=True)), evaluated, means, manifest)
    chosen = list(dict.fromkeys(lb for lb, _ in configs))
    meta = {
        **result_provenance(),
        "recipe": name,
        "preset_name": preset_name,
        "command": command,
        "overrides": override_words(overrides),
        "budget": preset["budget"],
        "seeds": list(range(seeds)),
        "seed_varies": "model initialisation, MLM masking and batch order (training config "
        "seed); the dataset and the evaluated records are fixed",
        "interval": "95 % Student t interval over seeds (mean ± t_{0.975,n-1}·s/√n, a bound beyond the "
        "metric's range clipped to it: MSE >= 0, R² <= 1); a cell with a "
        f"diverged seed (MSE not finite or above {DIVERGENCE_FACTOR:g}x the train mean's): median; paired "
        f"differences: paired bootstrap over test records and seeds ({RESAMPLES} resamples, seed "
        f"{SEED}) of the geometric mean MSE ratio, Holm across each table's paired tests",
        "versions": versions(),
        "build": preset["build"],
        "train": preset["train"],
        "models": {lb: preset["models"][lb] for lb in chosen},
        "tuning": preset.get("tuning"),
        "varies": preset.get("varies"),
        "evaluate": e,
        "row_settings": row_settings(configs),
        "runs": runs,
        "missing": missing,
        "core_seconds": round(sum(r.get("train_seconds", 0) + r.get("eval_seconds", 0) for r in runs.values()), 1),
        "elapsed_s": round(time.time() - t0, 1),
    }
    report.write_comparison(
        out,
        per_seed,
        meta,
        preset.get("table"),
        models=chosen,
        baselines=baselines,
        predictions=predictions,
        train_ranges=manifest.get("evaluation", {}).get("train_ranges", {}),
    )
    if show_table:
        log((out / "table.md").read_text())
    if missing:
        log(f"[{name}] MISSING: {missing}")
    return per_seed, meta
