"""The benchmark scripts' own pieces: what they feed a model and how they refuse a missing GPU."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def train_throughput():
    sys.path.insert(0, str(BENCH))
    try:
        import train_throughput

        yield train_throughput
    finally:
        sys.path.remove(str(BENCH))


def test_paper_shaped_records_take_the_papers_step_counts(train_throughput):
    records = [train_throughput.planets_like(i, (30, 59)) for i in range(200)]
    steps = {len(r["data"]) for r in records}
    assert min(steps) >= 30 and max(steps) <= 59 and len(steps) > 20
    planets = {len(r["data"][0]) for r in records}
    assert planets == {2, 3, 4}
    assert all(len(r["description"]) == len(r["data"][0]) + 1 for r in records)  # planets + stepsize
    # the default keeps the CPU benchmark's records as they were
    assert train_throughput.planets_like(7) == train_throughput.planets_like(7, (4, 40))


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is here: the benchmark would run")
def test_the_gpu_benchmark_says_it_needs_a_gpu_and_exits_2():
    done = subprocess.run(
        [sys.executable, str(BENCH / "paper_gpu_throughput.py"), "--steps", "1"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert "no CUDA GPU here" in done.stdout
