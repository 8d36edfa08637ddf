"""Recipe presets: the schema of a preset file (:data:`PRESET_KEYS`, docs/reference/presets.md),
loading one preset checked against it (:func:`load_preset`), and one ``scinum fit`` config per
model of a preset, assembled the same way by every recipe (runner, comparisons, arithmetic): the
preset's ``train`` section with the dataset and output directory, then the model's own settings,
then the command line's overrides (and those overrides written back as ``--set`` words, for a
result's command)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml

from scinum.errors import RecipeError, brief
from scinum.train.config import apply_overrides, assemble_config, check_budget

__all__ = ["PRESET_KEYS", "check_preset", "load_preset", "model_config", "override_words"]

#: every key a preset may hold: its type and what it means (docs/reference/presets.md shows this table)
PRESET_KEYS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "build": (dict, "the builder's keyword arguments (`scinum build <recipe> OUT ...`); `source: null` asks for --source"),
    "builder": (str, "the registered builder to call (default: the recipe's name)"),
    "source_help": (str, "how to get the data, printed when `build.source` is null and no --source is given"),
    "train": (dict, "a `scinum fit` config without data.path and out_dir, over the run config's defaults"),
    "models": (dict, "label -> that model's config overrides over `train` (null: none)"),
    "evaluate": (dict, "`limit` (records per split), `batch_size`, `fields` (JSON paths), `baselines` (true: standard regressors)"),
    "budget": (dict, "a comparison: one budget for every model, {samples: N} | {tokens: N} | {seconds: S}"),
    "budgets": (dict, "a comparison at several budgets: name -> budget"),
    "varies": (list, "a comparison: the config sections its rows may differ in besides encoding, head, normalizer"),
    "tuning": (dict, "a comparison whose rows were tuned: how (printed with the table)"),
    "baselines": (str, "a comparison's own reference rows: `module:function`"),
    "table": (dict, "a comparison's report: metric, reference, source, columns, departures, paper rows"),
    "tasks": (dict, "arithmetic: task name -> {op: mul|add, digits, train, val, test}"),
    "seed": (int, "arithmetic: the seed its task records are drawn from"),
}


def check_preset(preset: Any, where: str) -> dict[str, Any]:
    """``preset`` if it follows :data:`PRESET_KEYS` (a mapping of known keys of the right types,
    ``models`` non-empty, budgets valid), else :class:`~scinum.errors.RecipeError` in one line
    naming ``where`` and the key."""
    if not isinstance(preset, dict):
        raise RecipeError(f"{where}: a preset must be a mapping, got {brief(preset)}")
    for key, value in preset.items():
        if key not in PRESET_KEYS:
            raise RecipeError(f"{where}.{key}: not a preset key (the keys: {', '.join(PRESET_KEYS)})")
        kind = PRESET_KEYS[key][0]
        if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
            raise RecipeError(f"{where}.{key}: must be a {getattr(kind, '__name__', kind)}, got {brief(value)}")
    if not preset.get("models"):
        raise RecipeError(f"{where}.models: a preset trains at least one model")
    for label, own in preset["models"].items():
        if own is not None and not isinstance(own, dict):
            raise RecipeError(f"{where}.models.{label}: must be a mapping of config overrides, got {brief(own)}")
    if "budget" in preset:
        check_budget(preset["budget"], f"{where}.budget")
    for name, budget in (preset.get("budgets") or {}).items():
        check_budget(budget, f"{where}.budgets.{name}")
    return preset


def load_preset(presets_yaml: str | Path, preset: str) -> dict[str, Any]:
    """Preset ``preset`` of the file ``presets_yaml`` (``recipes/<recipe>.yaml``, or a past
    experiment's ``experiments/presets/<recipe>.yaml``), checked by :func:`check_preset`."""
    path = Path(presets_yaml)
    try:
        presets = yaml.safe_load(path.read_text())
    except OSError as e:
        raise RecipeError(f"{path}: cannot read the presets ({e.strerror or e})") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark else ""
        raise RecipeError(f"{path}: not valid YAML{at}") from None
    if not isinstance(presets, dict) or preset not in presets:
        raise RecipeError(f"{path.name}: no preset {preset!r} (have {sorted(presets) if isinstance(presets, dict) else []})")
    return check_preset(presets[preset], f"{path.name}: {preset}")


def model_config(
    preset: dict[str, Any],
    label: str,
    data: str | Path,
    out_dir: str | Path,
    overrides: dict | None = None,
    data_section: dict | None = None,
) -> dict[str, Any]:
    """The resolved config of model ``label`` of ``preset``: defaults <- ``preset["train"]``
    (its ``data`` section gets ``path = data`` and ``data_section``; ``out_dir``) <-
    ``preset["models"][label]`` <- ``overrides``; checked by the fit that runs it."""
    base = copy.deepcopy(preset.get("train") or {})
    base["data"] = {**base.get("data", {}), "path": str(data), **(data_section or {})}
    base["out_dir"] = str(out_dir)
    cfg = apply_overrides(assemble_config(overrides=base), preset["models"][label] or {})
    return apply_overrides(cfg, overrides or {})


def override_words(overrides: dict | None, prefix: str = "") -> list[str]:
    """``--set`` words (``model.value_path=linear_mlp``) of a nested overrides dict, in order."""
    words = []
    for key, value in (overrides or {}).items():
        if isinstance(value, dict):
            words += override_words(value, f"{prefix}{key}.")
        else:
            words.append(f"{prefix}{key}={json.dumps(value) if not isinstance(value, str) else value}")
    return words
