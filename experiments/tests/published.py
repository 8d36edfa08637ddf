"""Reading an experiment folder from its tests: a script of the folder, its README as one line."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

EXPERIMENTS = Path(__file__).resolve().parents[1]


def script(folder: str, name: str) -> ModuleType:
    """``experiments/<folder>/<name>.py`` loaded under a name of its own (other folders have
    scripts of the same names)."""
    spec = importlib.util.spec_from_file_location(f"{folder.replace('-', '_')}_{name}", EXPERIMENTS / folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def readme(folder: str) -> str:
    """``experiments/<folder>/README.md`` with every run of whitespace one space (quotes that
    wrap across lines match)."""
    return re.sub(r"\s+", " ", (EXPERIMENTS / folder / "README.md").read_text(encoding="utf-8"))


def published_summary(folder: str) -> str:
    """What ``experiments/<folder>/summary.py`` prints, checked equal to the folder's published
    ``summary.txt``."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, str(EXPERIMENTS / folder / "summary.py")], capture_output=True, text=True, check=True).stdout
    assert out == (EXPERIMENTS / folder / "summary.txt").read_text()
    return out
