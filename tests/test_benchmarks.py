"""The benchmark scripts' own pieces: what they feed a model and how they refuse a missing GPU."""

from __future__ import annotations

import re
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
        [sys.executable, str(BENCH / "paper_gpu_throughput.py"), "--first", "1", "--steady", "1"],
        capture_output=True,
        text=True,
        timeout=300,
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


def test_the_gpu_benchmarks_steady_window_ends_before_its_profiled_steps(paper_gpu_throughput, tmp_path):
    """--steady N ends the steady window after N steps, and --profile's steps after it are profiled
    (a table written, its first line naming the window) and never counted in the steady rates."""
    from conftest import tiny_config
    from scinum.train.config import load_config
    from scinum.train.fit import fit

    data = tmp_path / "records"
    paper_gpu_throughput.write_records(data, 64, (3, 9))
    meter = paper_gpu_throughput.Meter(2, set(), steady=3)
    profiler = paper_gpu_throughput.StepProfiler(5, 2, tmp_path / "profile.txt")
    config = tiny_config(data, tmp_path / "run", trainer={"max_steps": 7, "limit_val_batches": 0})
    fit(load_config(overrides=config), callbacks=[meter, profiler])
    assert len(meter.per_step) == 7 and meter.steps == 3 and meter.samples == 3 * 8
    assert meter.t0 is not None and meter.t1 is not None and meter.t1 > meter.t0
    text = (tmp_path / "profile.txt").read_text()
    assert text.startswith("profiled 2 steps from step 5: ") and "of the wall time)" in text and "aten::" in text


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


# -- every script in benchmarks/ runs to its headline (--smoke: tiny sizes, seconds) ---------------

#: DESIGN.md's two headline forms: against a reference run in the same process, or against a bound
RATIO = re.compile(
    r"^(?P<name>[a-z0-9_]+): (?P<value>\d[\d.]*) (?P<unit>[^=()]+?) vs reference (?P<ref>\d[\d.]*) (?P=unit) "
    r"= (?P<ratio>\d[\d.]*)x \(target (>=|<=) \d[\d.]*(x| (?P=unit))\)$"
)
BOUND = re.compile(
    r"^(?P<name>[a-z0-9_]+): (?P<value>\d[\d.]*) (?P<unit>[^=()]+?) = (?P<share>\d[\d.]*)% of bound (?P<bound>\d[\d.]*) (?P=unit) "
    r"\(target >= \d[\d.]*%\)$"
)

#: script -> the headline form it prints (every script of benchmarks/ but the shared helper)
SCRIPTS = {
    "fill_throughput": RATIO,
    "train_throughput": RATIO,
    "peak_flops": RATIO,  # on the CPU: all threads vs one; --device cuda: share of the datasheet
    "era5_throughput": RATIO,
    "planets_throughput": BOUND,
    "train_step_overhead": BOUND,
    "best_trunk_throughput": RATIO,
    "quick_models_share": BOUND,
    "paper_gpu_throughput": BOUND,
    "regressor_fit_time": RATIO,  # a time: its target is an upper bound (target <= 10 s)
    "loader_transfer": RATIO,  # a cost: at most torch's own sharing (target <= 1x)
}
HELPERS = {"quick_shapes"}  # imported by the scripts, runs nothing itself


def run_script(path: Path, args: list[str], capsys) -> list[str]:
    """Run a benchmark script in this process as ``python path args`` would (its folder first on
    sys.path, torch's thread count restored after) and return its stdout lines."""
    import runpy

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


def test_every_benchmark_script_has_a_smoke_test():
    assert {p.stem for p in BENCH.glob("*.py")} == set(SCRIPTS) | HELPERS


def test_every_benchmark_script_is_listed_in_the_reference():
    reference = (BENCH.parent / "docs" / "reference" / "benchmarks.md").read_text()
    listed = set(re.findall(r"^\| `benchmarks/(\w+)\.(?:py|sh)` \|", reference, re.M))
    assert listed == set(SCRIPTS) | {"gpu_check"}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_benchmark_smoke_runs_to_its_headline(name, capsys):
    lines = run_script(BENCH / f"{name}.py", ["--smoke"], capsys)
    assert lines, f"{name} printed nothing"
    m = SCRIPTS[name].match(lines[-1])
    assert m, f"{name}'s last line is not a headline: {lines[-1]!r}"
    assert m["name"] == name
    if name == "paper_gpu_throughput":  # the CPU path says so
        assert any(line.startswith("device: cpu") for line in lines)
    if name == "regressor_fit_time":  # the selector's share: deciding costs no more than every edge
        selector = [line for line in lines if line.startswith("selector: ")]
        assert len(selector) == 1, lines
        quick, full, bends = (float(v) for v in re.findall(r"(\d+\.\d+)(?: CPU)? s", selector[0]))
        assert 0 < quick and 0 < full and 0 < bends
    if name == "fill_throughput":  # the bound its target is read against
        floor = [line for line in lines if line.startswith("floor: ")]
        assert len(floor) == 1 and re.search(
            r"take \d+\.\d+ CPU ms a record \(.+%.*\), preparing \d+\.\d+: .* at most \d+ records/s", floor[0]
        ), floor
        work = [line for line in lines if line.startswith("work done: ")]
        assert len(work) == 1 and re.search(r"\d+\.\d+ MFLOP a record .* at most \d+ records/s$", work[0]), work


def test_the_fill_benchmarks_work_count_is_the_full_count_where_every_row_is_asked():
    """``work_per_record``: one block with every token masked is the model-FLOPs count of a full
    pass; with one of 142 tokens masked in the last of two blocks, the last block's Q, O and MLP
    shrink to one row, its keys and values and the first block stay."""
    sys.path.insert(0, str(BENCH))
    try:
        from fill_throughput import work_per_record
    finally:
        sys.path.remove(str(BENCH))
    from scinum.model.config import ModelConfig

    def cfg(layers):
        return ModelConfig(vocab_size=10, num_dim=1, combine="multiply", n_layers=layers, max_positions=200, n_fields=5)

    one = cfg(1)
    assert work_per_record(one, 142, 142) == pytest.approx(one.flops_per_token(142, training=False) * 142)
    two, d, r = cfg(2), cfg(2).d_model, cfg(2).mlp_ratio
    first = two.flops_per_token(142, training=False) / 2 * 142
    assert work_per_record(two, 142, 1) == pytest.approx(first + 4 * d * d * 142 + 2 * (2 * d * d + 2 * r * d * d) + 4 * 142 * d)


def test_the_fill_benchmark_measures_a_values_alone_trunk_when_asked(capsys):
    lines = run_script(BENCH / "fill_throughput.py", ["--smoke", "--values-alone"], capsys)
    assert "the trunk reading the values alone" in lines[0] and SCRIPTS["fill_throughput"].match(lines[-1])


def test_the_fill_benchmark_measures_the_mixture_head_when_asked(capsys):
    lines = run_script(BENCH / "fill_throughput.py", ["--smoke", "--mixture"], capsys)
    assert "the mixture head (intervals)" in lines[0] and SCRIPTS["fill_throughput"].match(lines[-1])


def test_the_gpu_benchmarks_variants_are_off_on_the_cpu(paper_gpu_throughput, tmp_path):
    """The tuned variant's keys (pad_to, workers, prefetch, pinning, fused AdamW, compile) make a
    valid config, and on the CPU the optimizer stays unfused and the trunk uncompiled."""
    from recipes.runner import load_preset
    from scinum.train.config import validate_config

    preset = load_preset(paper_gpu_throughput.RECIPE, "paper")
    cfg = paper_gpu_throughput.run_config(preset, "xval", "tuned+compile", tmp_path / "d", tmp_path / "o", 6, smoke=True)
    assert cfg["data"]["pad_to"] == 128 and cfg["optim"]["fused"] and cfg["trainer"]["compile"] and cfg["data"]["pin_memory"]
    assert cfg["trainer"]["accelerator"] == "cpu" and cfg["model"]["d_model"] == 32
    validate_config(cfg)


def test_the_gpu_options_are_no_ops_on_the_cpu(paper_gpu_throughput, tmp_path):
    """optim.fused, trainer.compile and data.pin_memory / prefetch_factor train on the CPU as
    without them: AdamW unfused, the trunk eager, the loader unpinned."""
    import lightning as L
    from conftest import tiny_config
    from scinum.train.config import load_config
    from scinum.train.fit import fit

    seen = {}

    class Look(L.Callback):
        def on_train_start(self, trainer, module):
            seen["fused"] = trainer.optimizers[0].defaults.get("fused")
            seen["compiled"] = module.model.trunk._compiled_call_impl is not None
            seen["pinned"] = trainer.train_dataloader.pin_memory

    data = tmp_path / "records"
    paper_gpu_throughput.write_records(data, 32, (3, 6))
    cfg = tiny_config(
        data,
        tmp_path / "run",
        data={"pin_memory": True, "prefetch_factor": 2, "pad_to": 16},
        optim={"warmup_steps": 2, "fused": True},
        trainer={"max_steps": 3, "limit_val_batches": 0, "compile": True},
    )
    fit(load_config(overrides=cfg), callbacks=[Look()])
    assert seen == {"fused": False, "compiled": False, "pinned": False} or seen == {"fused": None, "compiled": False, "pinned": False}


def test_the_gpu_check_script_parses():
    done = subprocess.run(["bash", "-n", str(BENCH / "gpu_check.sh")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_the_gpu_check_runs_its_smoke_path_on_the_cpu(tmp_path):
    """benchmarks/gpu_check.sh --smoke: every step at tiny size on the CPU, the files it writes."""
    import json
    import os

    env = {**os.environ, "OUT": str(tmp_path), "PYTHON": sys.executable}
    done = subprocess.run(["bash", str(BENCH / "gpu_check.sh"), "--smoke"], capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stdout[-3000:]
    names = ("peak_flops", "paper_tuned", "paper_preset", "paper_tuned_compile")
    assert {p.name for p in tmp_path.iterdir()} >= {"env.txt", "gpu_check.log", "summary.json", *(f"{n}.json" for n in names)}
    runs = json.loads((tmp_path / "summary.json").read_text())["runs"]
    assert [runs[n]["exit"] for n in names] == ["0"] * 4
    assert RATIO.match(runs["peak_flops"]["last_line"])
    assert all(BOUND.match(runs[n]["last_line"]) for n in names[1:])
