"""``import scinum`` shortens how long torch's CPU threads spin before they sleep while waiting
for each other (scinum.util.threads): the OpenMP runtime reads ``GOMP_SPINCOUNT`` once, when torch
loads, so each case runs in a fresh interpreter with the wait variables removed from its
environment."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from scinum.util.threads import SPIN_COUNT

WAITS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
CHECK = "import os, sys; {imports}; print(os.environ.get('GOMP_SPINCOUNT'))"


def spin_count_after(imports: str, **env: str) -> str:
    """``GOMP_SPINCOUNT`` as a fresh interpreter sees it after ``imports``."""
    clean = {k: v for k, v in os.environ.items() if k not in WAITS}
    out = subprocess.run(
        [sys.executable, "-c", CHECK.format(imports=imports)], env={**clean, **env}, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_importing_scinum_before_torch_sets_a_short_spin():
    assert spin_count_after("import scinum; import torch") == str(SPIN_COUNT) == "1000"


def test_the_command_line_sets_it_before_torch_loads():
    # the `scinum` entry point imports scinum.cli.main, which imports scinum first
    assert spin_count_after("import scinum.cli.main; assert 'torch' not in sys.modules") == "1000"


@pytest.mark.parametrize("env", [{"GOMP_SPINCOUNT": "300000"}, {"OMP_WAIT_POLICY": "active"}])
def test_a_spin_count_or_wait_policy_the_user_set_is_kept(env):
    assert spin_count_after("import scinum", **env) == env.get("GOMP_SPINCOUNT", "None")


def test_after_torch_is_imported_the_runtime_is_left_alone():
    # torch's OpenMP runtime has read the environment already: setting it now would only mislead
    assert spin_count_after("import torch; import scinum") == "None"
