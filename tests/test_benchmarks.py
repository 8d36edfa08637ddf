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


@pytest.fixture
def paper_gpu_throughput(monkeypatch):
    """The GPU benchmark's module with CUDA's events and synchronisation stood in for by host
    clocks, so its step meter runs on a CPU fit."""
    import time

    class HostEvent:
        def __init__(self, enable_timing=True):
            self.t = None

        def record(self):
            self.t = time.perf_counter()

        def elapsed_time(self, end):
            return (end.t - self.t) * 1e3

    monkeypatch.setattr(torch.cuda, "Event", HostEvent)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    monkeypatch.syspath_prepend(str(BENCH))
    import paper_gpu_throughput

    return paper_gpu_throughput


def test_the_gpu_benchmark_marks_each_batch_length_new_once_per_process(paper_gpu_throughput, tmp_path):
    """The step meter: a step's length is new the first time any model of the run trains on it;
    every step gets its GPU time; the counts split the steps; a second model on the same batches
    meets no new length."""
    from conftest import tiny_config
    from scinum.train.config import load_config
    from scinum.train.fit import fit

    data = tmp_path / "records"
    paper_gpu_throughput.write_records(data, 64, (3, 9))
    seen: set[int] = set()
    meters = []
    for k in range(2):
        meter = paper_gpu_throughput.Meter(2, seen)
        fit(
            load_config(overrides=tiny_config(data, tmp_path / f"run{k}", trainer={"max_steps": 8, "limit_val_batches": 0})),
            callbacks=[meter],
        )
        meters.append(meter)
    first, second = meters
    lengths = [s["length"] for s in first.per_step]
    assert len(lengths) == 8 and len(set(lengths)) > 2 and first.steps == 6 and first.samples == 6 * 8
    assert [s["new"] for s in first.per_step] == [x not in lengths[:i] for i, x in enumerate(lengths)]
    assert all(s["gpu_ms"] > 0 for s in first.per_step) and first.per_step[0]["wait_ms"] is None
    summary = first.by_novelty()
    assert summary["new_steps"] == len(set(lengths)) and summary["new_steps"] + summary["seen_steps"] == 8
    assert [s["length"] for s in second.per_step] == lengths  # same seed, same batches
    assert second.by_novelty()["new_steps"] == 0 and second.by_novelty()["new_median_ms"] is None


def test_the_gpu_benchmarks_records_come_in_81_lengths_under_xval_and_90_under_p1000(paper_gpu_throughput, tmp_path):
    """experiments/training-on-gpus.md: the benchmark's 4 096 records tokenize to 81 distinct lengths
    under xVal and 90 under P1000 (each length's first step is the slow one)."""
    from scinum import encodings
    from scinum.datasets.token_shards import tokenize_dataset

    paper_gpu_throughput.write_records(tmp_path / "records", 4096, (30, 59))
    counts = {
        name: len(set(tokenize_dataset(tmp_path / "records", encoding=encodings.get(name))[1]["train"].lengths.tolist()))
        for name in ("xval", "p1000")
    }
    assert counts == {"xval": 81, "p1000": 90}
    doc = " ".join((BENCH.parent / "experiments" / "training-on-gpus.md").read_text().split())
    assert "these records come in 81 lengths under xVal (90 under P1000" in doc
