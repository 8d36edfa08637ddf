"""Model cards: what an exported model fills, what it trained on, how it does in and out of
distribution, in the Hugging Face card layout (YAML front matter, then Markdown).

:func:`scinum.share.card_results.read_results` picks one model's rows out of a results
directory; :func:`render` writes the card from an export's ``config.json`` content and those
rows; :func:`describe` is the few lines of ``scinum info``.
Values in the card are in the record's units (the dataset's declared units where it has them).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import yaml

from .. import encodings
from ..errors import ScinumError
from ..model.config import value_path_text
from ..records.paths import field_of

__all__ = ["render", "describe"]

_METRICS = (
    ("mse", "MSE"),
    ("r2", "R²"),
    ("log_smape", "log-sMAPE"),
    ("exact", "exact"),
    ("unparseable", "unparseable"),
    ("coverage68", "68 % covers"),
    ("coverage95", "95 % covers"),
)


def _label(config: dict) -> str:
    """:func:`scinum.heads.model_label` of an export's config (heads imported here only: they
    bring torch, which ``scinum info`` does not need before it prints)."""
    from ..heads import model_label

    return model_label(config["encoding"]["name"], config["head"])


def _head(config: dict) -> tuple[str, Any]:
    """The head's kind and :class:`~scinum.heads.HeadOutputs` (not installed here: the default)."""
    from ..heads import HeadOutputs, declared

    kind = config["head"].get("kind", "native")
    try:
        return kind, declared(config["head"])
    except ValueError:  # PluginNotFound
        return kind, HeadOutputs()


def _uncertainty_text(outputs: Any) -> str:
    """What a head's declared uncertainty gives per number, in words ("" for none)."""
    if outputs.uncertainty == "quantiles":
        return "a predictive distribution per number with 68 %/95 % intervals"
    return f"uncertainty of the kind `{outputs.uncertainty}`" if outputs.uncertainty else ""


def _head_text(config: dict) -> str:
    """The head in the card's first sentence: its config and what its kind declares."""
    kind, outputs = _head(config)
    spec = f"`{json.dumps(config['head'])}`"
    if kind == "native":
        return f"its native head ({spec})"
    said = [spec, f"point prediction: {outputs.point}", _uncertainty_text(outputs)]
    return f"the `{kind}` head ({'; '.join(filter(None, said))})"


def _g(x: Any, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    return f"{x:.{digits}g}"


def _line_text(config: dict) -> str:
    """The card's sentence on the fields predicted on top of a least-squares line ("" for none)."""
    line = config.get("line")
    if not line:
        return ""
    fields = ", ".join(f"`{f}`" for f in line["fields"])
    return (
        f" It predicts {fields} on top of a least-squares line of the record's other numbers (fitted on "
        f"its training records, refitted without any number a record hides): the value is the line "
        f"plus the network's part, so between and past the values it saw it follows the line's trend."
    )


def _layers(model: dict) -> str:
    return f"{model['n_layers']} layer{'' if model['n_layers'] == 1 else 's'}"


def _pct(x: Any) -> str:
    return "–" if x is None else f"{100 * x:.1f} %"


def _range_text(r: dict | None) -> str:
    if not r:
        return "not recorded"
    text = f"{_g(r['min'])} – {_g(r['max'])}"
    if "values" in r:
        text += f" (only the values {', '.join(_g(v) for v in r['values'])})"
    atom = r.get("atom")
    if atom:  # scinum.fill.atoms
        text += (
            f" (exactly {_g(atom['value'])} in {atom['count']} of {r['count']}: a prediction next to it is filled as {_g(atom['value'])})"
        )
    return text


def _ranges(config: dict, evaluation: dict | None) -> dict[str, dict]:
    """Field -> training range: recorded at training time (``run.train_ranges``), else from the
    results' ``train_values.json`` (evaluated fields only)."""
    ranges = dict((config.get("run") or {}).get("train_ranges") or {})
    for path, vals in ((evaluation or {}).get("train_values") or {}).items():
        fld = field_of(path)
        if fld not in ranges and vals:
            ranges[fld] = {"min": min(vals), "max": max(vals), **({"values": sorted(vals)} if len(vals) <= 16 else {})}
    return ranges


def _evaluated(config: dict, evaluation: dict | None) -> tuple[list[str], dict[str, str], dict[str, str]]:
    """Evaluated field paths, their units, and split -> the field it is about."""
    declared = ((config.get("run") or {}).get("dataset") or {}).get("evaluation") or {}
    info = (evaluation or {}).get("meta") or {}
    fields = list(dict.fromkeys([*(r["field"] for r in (evaluation or {}).get("rows", [])), *declared.get("fields", [])]))
    units = {**declared.get("units", {}), **info.get("units", {})}
    return fields, units, {**declared.get("ood_fields", {}), **info.get("ood_fields", {})}


def _front_matter(config: dict, evaluation: dict | None, label: str) -> str:
    ds = (config.get("run") or {}).get("dataset") or {}
    builder = ds.get("builder") or ((evaluation or {}).get("meta") or {}).get("builder")
    tags = ["scinum", "number-encoding", config["encoding"]["name"], "masked-language-model", "json", "scientific-data"]
    kind, outputs = _head(config)
    if kind != "native":
        tags.append(outputs.label or kind)
    if outputs.uncertainty:
        tags.append("uncertainty")
    fm: dict[str, Any] = {"library_name": "scinum", "tags": tags, "license": "mit"}
    if builder:
        fm["datasets"] = [str(builder)]
    if evaluation:
        fm["metrics"] = ["mse", "r2"]
        results = []
        for r in evaluation["rows"]:
            if r.get("subset", "all") != "all":
                continue
            results.append(
                {
                    "task": {"type": "fill-mask", "name": f"fill {r['field']}"},
                    "dataset": {"name": f"{builder or 'dataset'} {r['split']}", "type": str(builder or "dataset"), "split": r["split"]},
                    "metrics": [{"type": k, "name": f"{k} {r['field']}", "value": r[k]} for k in ("mse", "r2") if r.get(k) is not None],
                }
            )
        fm["model-index"] = [{"name": label, "results": results}]
    return "---\n" + yaml.safe_dump(fm, sort_keys=False, allow_unicode=True) + "---\n"


def render(config: dict, evaluation: dict | None = None, name: str | None = None) -> str:
    """The model card (Markdown with YAML front matter) of an export's ``config`` and, where
    given, its :func:`read_results` evaluation."""
    run = config.get("run") or {}
    ds, training, model = run.get("dataset") or {}, run.get("training") or {}, config["model"]
    label = name or (evaluation or {}).get("label") or _label(config)
    enc = config["encoding"]
    fields, units, ood_fields = _evaluated(config, evaluation)
    ranges = _ranges(config, evaluation)
    rows = (evaluation or {}).get("rows", [])
    test = {r["field"]: r for r in rows if r["split"] == "test"}
    builder = ds.get("builder") or ((evaluation or {}).get("meta") or {}).get("builder") or "JSON"
    out = [
        _front_matter(config, evaluation, label),
        f"# {label}: a scinum filler for {builder} records\n",
        f"A masked-language transformer that fills numeric fields of JSON records, every number one "
        f"token through the **{enc['name']}** number encoding (`{json.dumps(enc)}`) and "
        f"{_head_text(config)}. {_layers(model)} × {model['d_model']} "
        f"({model['n_heads']} heads), {model.get('positions', 'learned')} positions{value_path_text(model)}, "
        f"{_g((config.get('weights') or {}).get('parameters'), 6)} parameters.{_line_text(config)}\n",
        "## Use\n",
        "```python\nimport scinum\nmodel = scinum.load(\"THIS_DIRECTORY\")  # "
        "safetensors + JSON: loading runs no code\n"
        f"model.fill(record, mask=[{json.dumps(fields[0] if fields else 'a.field')}])\n```\n",
        "`scinum fill --ckpt THIS_DIRECTORY --mask FIELD < in.jsonl > out.jsonl`; `scinum info THIS_DIRECTORY` prints what it expects.\n",
        "## What it fills\n",
    ]
    if fields:
        out.append("| field | unit | training range | test R² | test MSE |\n|---|---|---|---|---|")
        for f in fields:
            t = test.get(f, {})
            out.append(
                f"| `{f}` | {units.get(f, '–')} | {_range_text(ranges.get(field_of(f)))} | {_g(t.get('r2'), 3)} | {_g(t.get('mse'))} |"
            )
        out.append("")
    known = config["vocab"].get("fields", [])
    out.append(f"It knows {len(known)} numeric fields (any of them can be masked and filled); their training ranges:\n")
    out.append("| field | numbers in training | min | max |\n|---|---|---|---|")
    for f in known[:40]:
        r = ranges.get(f) or {}
        out.append(f"| `{f}` | {_g(r.get('count'), 9)} | {_g(r.get('min'))} | {_g(r.get('max'))} |")
    if len(known) > 40:
        out.append(f"\n… and {len(known) - 40} more (all in `config.json`, `run.train_ranges`).")
    out.append(
        f"\nRecords up to {config.get('context_length') or 'an unrecorded number of'} tokens "
        f"(the longest it trained on); keys and strings must be in its vocabulary of "
        f"{len(config['vocab'].get('tokens', []))} tokens (`config.json`, `vocab`).\n"
    )
    out += _training_section(config, ds, training, run)
    out += _evaluation_section(evaluation, test, units, ood_fields, ranges)
    out += _calibration_section(config, rows)
    out += _limits_section(config, test, ranges, fields)
    return "\n".join(out).rstrip() + "\n"


def _training_section(config: dict, ds: dict, training: dict, run: dict) -> list[str]:
    out = ["## How it was trained\n"]
    if ds:
        counts = ", ".join(f"{s} {n}" for s, n in (ds.get("counts") or {}).items())
        out.append(
            f"* data: `{ds.get('builder')}` builder version {ds.get('builder_version')}, seed "
            f"{ds.get('seed')} ({counts} records; manifest sha256 "
            f"`{str(ds.get('manifest_sha256', ''))[:16]}`)"
        )
    elif run.get("data"):
        out.append(f"* data: `{run['data']}` (identity not recorded)")
    if training:
        steps, bs = training.get("max_steps"), training.get("batch_size")
        seen = f" = {steps * bs:,} samples seen" if isinstance(steps, int) and isinstance(bs, int) else ""
        out.append(
            f"* budget: {steps} steps × batch {bs}{seen}; learning rate {training.get('lr')}, "
            f"masking probability {training.get('mask_prob')}"
            + (f", trained to fill {training['mask_fields']}" if training.get("mask_fields") else "")
            + (" (asked alone)" if training.get("mask_fields") and training.get("mask_fields_alone") else "")
        )
    n = config["normalizer"]
    out.append(f"* normalizer: `{n.get('method')}` per field (power-of-two scales, fitted on the train split)")
    out.append(f"* seed {run.get('seed', '–')}, commit `{run.get('commit') or 'not recorded'}`")
    if run.get("versions"):
        out.append("* packages: " + ", ".join(f"{k} {v}" for k, v in run["versions"].items()))
    return out + [""]


def _evaluation_section(evaluation: dict | None, test: dict, units: dict, ood_fields: dict, ranges: dict) -> list[str]:
    out = ["## Evaluation: in distribution (test) vs out of distribution\n"]
    if not evaluation:
        return out + ["No evaluation was attached to this export (`scinum export --results DIR`).\n"]
    rows, info = evaluation["rows"], evaluation["meta"]
    where = f"`{Path(evaluation['source']).name}`" + (f" at commit `{str(info['commit'])[:10]}`" if info.get("commit") else "")
    out.append(f"From the results {where}: every record of each split with one field masked, all its numbers predicted at once.\n")
    cols = [(k, n) for k, n in _METRICS if any(r.get(k) not in (None, 0, 0.0) for r in rows) or k in ("mse", "r2")]
    out.append("| field | split | n | " + " | ".join(n for _, n in cols) + " | MSE ÷ test MSE |")
    out.append("|---|---|---|" + "---|" * len(cols) + "---|")
    for r in rows:
        base = test.get(r["field"], {}).get("mse")
        ratio = f"×{r['mse'] / base:.3g}" if r["split"] != "test" and base and r.get("mse") is not None else "–"
        split = (
            r["split"]
            if r.get("subset", "all") == "all"
            else (f"{r['split']}, {'inside' if r.get('subset') == 'interp' else 'outside'} the training range")
        )
        out.append(f"| `{r['field']}` | {split} | {_g(r.get('n'), 9)} | " + " | ".join(_g(r.get(k)) for k, _ in cols) + f" | {ratio} |")
    out += _baselines_table(evaluation.get("baselines") or [], rows)
    out += ["", "### What this means for you\n"]
    for s in dict.fromkeys(r["split"] for r in rows if r["split"] != "test"):
        declared = ood_fields.get(s)
        whole = [r for r in rows if r["split"] == s and r.get("subset", "all") == "all"]
        about = [r for r in whole if r["field"] == declared] or whole  # no declaration: every field
        for r in about:
            out.append(_meaning(s, r, test.get(r["field"], {}), units, ranges, (evaluation.get("ood_values") or {}).get((s, r["field"]))))
    return out + [""]


def _baselines_table(refs: list[dict], rows: list[dict]) -> list[str]:
    """The model's MSE beside the standard references' on the same records (scinum evaluate's
    rows of kind regressor / reference / oracle), one line per (field, split, subset)."""
    if not refs:
        return []
    names = list(dict.fromkeys((r["model"], r.get("kind")) for r in refs))
    mse = {(r["model"], r["field"], r["split"], r.get("subset") or "all"): r.get("mse") for r in refs}
    out = [
        "",
        "### Beside standard references (same records, same metric: MSE)\n",
        "Fitted on the training split from the records' structure alone (`scinum.baselines`); "
        "**oracles read the true value**: they show the best a model can do that never leaves "
        "the training range / only outputs training values.\n",
        "| field | split | this model | " + " | ".join(f"{m} ({k})" for m, k in names) + " |",
        "|---|---|---|" + "---|" * len(names),
    ]
    for r in rows:
        sub = r.get("subset", "all")
        split = r["split"] if sub == "all" else f"{r['split']} ({sub})"
        cells = [_g(mse.get((m, r["field"], r["split"], sub))) for m, _ in names]
        out.append(f"| `{r['field']}` | {split} | {_g(r.get('mse'))} | " + " | ".join(cells) + " |")
    return out


def _meaning(split: str, r: dict, base: dict, units: dict, ranges: dict, values: Any) -> str:
    """One bullet: what an OOD split holds of a field against its training range, and how much
    the error grows there. ``values``: the split's true values of the field (or None)."""
    fld = r["field"]
    rng = ranges.get(field_of(fld))
    if rng and "values" in rng:
        trained = f"trained only on the values {', '.join(_g(v) for v in rng['values'])}"
    else:
        trained = f"trained on {_range_text(rng)}"
    here = ""
    if values is not None and len(values):
        here = f"; this split holds {_g(float(values.min()))} – {_g(float(values.max()))}"
        if rng and "values" in rng:
            here += f", {int(sum(x in rng['values'] for x in values.tolist()))} of {len(values)} a training value"
        elif rng:
            outside = int(((values < rng["min"]) | (values > rng["max"])).sum())
            here += f", {outside} of {len(values)} ({outside / len(values):.0%}) outside that range"
    if base.get("mse") and r.get("mse") is not None:
        factor = f"error ×{r['mse'] / base['mse']:.3g} vs test"
        verdict = (
            "Expect fills there about as good as in distribution."
            if r["mse"] <= 1.5 * base["mse"]
            else "Fills there are extrapolation: check them, or train on that range."
        )
    else:
        factor, verdict = "no test error to compare", ""
    return (
        f"* **{split}** — `{fld}` ({units.get(fld, 'record units')}), {trained}{here}: {factor} "
        f"(MSE {_g(r.get('mse'))} vs {_g(base.get('mse'))}; R² {_g(r.get('r2'), 3)} vs "
        f"{_g(base.get('r2'), 3)}). {verdict}"
    ).rstrip()


def _calibration_section(config: dict, rows: list[dict]) -> list[str]:
    cal = config.get("calibration") or {}
    covered = [r for r in rows if r.get("coverage68") is not None]
    kind, outputs = _head(config)
    if not outputs.uncertainty and not cal:
        return []
    columns = ", ".join(f"`{c}`" for c in outputs.columns)
    recal = (
        f" Its intervals were recalibrated on the validation split for {', '.join(f'`{f}`' for f in cal)}."
        if cal
        else " Its intervals were not recalibrated."
        if outputs.uncertainty == "quantiles"
        else ""
    )
    out = [
        "## Uncertainty\n",
        f"The `{kind}` head gives {_uncertainty_text(outputs) or 'intervals'} "
        f"(`model.predict(...)`{f'; evaluation columns {columns}' if columns else ''}).{recal}",
    ]
    if covered:
        out += ["", "| field | split | 68 % interval covers | 95 % interval covers |", "|---|---|---|---|"]
        out += [f"| `{r['field']}` | {r['split']} | {_pct(r['coverage68'])} | {_pct(r.get('coverage95'))} |" for r in covered]
    return out + [""]


def _limits_section(config: dict, test: dict, ranges: dict, fields: list[str]) -> list[str]:
    enc = config["encoding"]
    out = ["## Known limits\n"]
    weak = [f for f in fields if test.get(f, {}).get("r2") is not None and test[f]["r2"] < 0.5]
    if weak:
        out.append(f"* not learned at this budget (test R² < 0.5): {', '.join(f'`{f}`' for f in weak)} — do not rely on their fills.")
    out.append("* outside the training ranges above a fill is extrapolation; the evaluation shows how much its error grows there.")
    try:
        text = encodings.from_config(enc).limits_text()
    except (KeyError, TypeError, ValueError, ScinumError):  # a plug-in encoding not installed here
        text = ""
    if text:
        out.append(f"* {text}")
    if not _head(config)[1].uncertainty:
        out.append("* its head gives a point, no uncertainty.")
    out.append(
        f"* records longer than {config.get('context_length')} tokens are refused; an unknown "
        "key, string or numeric field is an error that names its path."
    )
    return out + [""]


def describe(config: dict, source: str = "") -> list[str]:
    """``scinum info``: a few lines on what a model (its export ``config`` or checkpoint
    metadata as a dict, with ``weights.parameters`` where known) holds and expects."""
    run = config.get("run") or {}
    ds, tr, m = run.get("dataset") or {}, run.get("training") or {}, config["model"]
    ranges = _ranges(config, None)
    declared = ds.get("evaluation") or {}
    units = declared.get("units", {})
    lines = [
        f"{source or 'model'}: {_label(config)} — encoding {json.dumps(config['encoding'])}, head {json.dumps(config['head'])}",
        f"  trunk: {_layers(m)} × {m['d_model']} ({m['n_heads']} heads), "
        f"{m.get('positions', 'learned')} positions{value_path_text(m)}, "
        f"{_g((config.get('weights') or {}).get('parameters'), 9)} parameters; context "
        f"{config.get('context_length')} tokens; normalizer {config['normalizer'].get('method')}",
    ]
    known = config["vocab"].get("fields", [])
    lines.append(f"  fills {len(known)} numeric fields; evaluated: " + (", ".join(declared.get("fields", [])) or "none declared"))
    for f in (declared.get("fields") or known)[:12]:
        unit = f" [{units[f]}]" if f in units else ""
        lines.append(f"    {f}{unit}: trained on {_range_text(ranges.get(field_of(f)))}")
    steps = f"{tr.get('max_steps')} steps × batch {tr.get('batch_size')}" if tr else "budget not recorded"
    src = f"{ds.get('builder')} v{ds.get('builder_version')} seed {ds.get('seed')}" if ds else run.get("data", "?")
    lines.append(f"  from: {src}; {steps}; seed {run.get('seed')}; commit {run.get('commit') or 'not recorded'}")
    if config.get("calibration"):
        lines.append(f"  calibrated intervals: {', '.join(config['calibration'])}")
    if config.get("line"):
        lines.append(f"  on a least-squares line of the record's other numbers: {', '.join(config['line']['fields'])}")
    return lines
