"""Every probe-cost script here runs to its last line at tiny size (``--smoke``), and that line is
its ratio to the reference in the form the README gives.

Self-contained: needs only the repository root on ``sys.path`` (``scinum``, ``recipes``); the
scripts put ``benchmarks/`` there themselves."""

from __future__ import annotations

import re
import runpy
import sys
from pathlib import Path

import pytest
import torch

HERE = Path(__file__).resolve().parent

COST = re.compile(r"^.+ training cost: \d[\d.]* ms/sample vs reference \d[\d.]* ms/sample \(.+\) = \d[\d.]*x \(target <= \d[\d.]*x\)$")
RATIO = re.compile(
    r"^(?P<name>[a-z0-9_]+): \d[\d.]* (?P<unit>[^=()]+?) vs reference \d[\d.]* (?P=unit) = \d[\d.]*x \(target >= \d[\d.]*x\)$"
)

#: script -> its last line's form
SCRIPTS = {
    "mixup_cost": COST,
    "positions_cost": COST,
    "curvature_cost": COST,
    "heads_cost": COST,
    "value_path_cost": COST,
    "weight_average_cost": COST,
    "multiseed": RATIO,
}


def run_script(path: Path, args: list[str], capsys) -> list[str]:
    """Run a script in this process as ``python path args`` would (its folder first on sys.path,
    torch's thread count restored after) and return its stdout lines."""
    argv, threads = sys.argv, torch.get_num_threads()
    sys.argv = [str(path), *args]
    sys.path.insert(0, str(path.parent))
    try:
        runpy.run_path(str(path), run_name="__main__")
    except SystemExit as e:
        assert e.code in (0, None), f"{path.name} exited {e.code}"
    finally:
        sys.argv = argv
        sys.path.remove(str(path.parent))
        torch.set_num_threads(threads)
    return [line for line in capsys.readouterr().out.splitlines() if line.strip()]


def test_every_probe_script_has_a_smoke_test():
    assert {p.stem for p in HERE.glob("*.py") if not p.stem.startswith("test_")} == set(SCRIPTS)
    readme = (HERE / "README.md").read_text()
    assert all(f"`{name}.py`" in readme for name in SCRIPTS)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_probe_cost_smoke_runs_to_its_ratio(name, capsys):
    lines = run_script(HERE / f"{name}.py", ["--smoke"], capsys)
    assert lines and SCRIPTS[name].match(lines[-1]), f"{name}'s last line: {lines[-1] if lines else None!r}"
