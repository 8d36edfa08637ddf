"""One ``scinum fit`` config per model of a recipe preset, assembled the same way by every
recipe (runner, comparisons, arithmetic): the preset's ``train`` section with the dataset and
output directory, then the model's own settings, then the command line's overrides (and those
overrides written back as ``--set`` words, for a result's command)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from scinum.train.config import apply_overrides, assemble_config


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
