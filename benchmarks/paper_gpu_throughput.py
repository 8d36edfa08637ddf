"""GPU training throughput of the planets ``paper`` preset, through ``scinum fit``: the steady share
of the measured bf16 peak, and the first steps' rate against the steady rate.

Each model of ``recipes/planets.yaml``'s ``paper`` preset (768 × 6 trunk, batches of 64,
bf16-mixed, 4 loader workers: the xVal paper's App. B.2 settings) trains ``--first`` +
``--steady`` steps on planets-shaped records with the paper's lengths (2-4 planets, 30-59 time
steps: the reference's draw; orbits drawn analytically, so nothing is simulated or downloaded),
once per *variant* of the training path:

* ``preset``: the preset as it is (every batch its own length, eager, unfused AdamW);
* ``buckets``: batch lengths rounded up to a multiple of 128 (``data.pad_to``): a handful of
  lengths, so nothing is re-tuned mid-run;
* ``tuned``: ``buckets`` with 8 loader workers, 4 batches prefetched each, page-locked batches
  (``data.num_workers``, ``data.prefetch_factor``, ``data.pin_memory``) and fused AdamW
  (``optim.fused``);
* ``tuned+compile``: ``tuned`` with the trunk ``torch.compile``'d once for any batch length
  (``trainer.compile``, dynamic shapes).

The same ``scinum fit`` a user runs does the training; a callback (:class:`Meter`) times the
first ``--first`` steps (new batch shapes, compilation, the allocator warming up: the first
minute of a run) and the ``--steady`` steps after them, synchronising the device at the window
edges, and every step's GPU time and whether its batch shape was new to the process.

Printed per run: steps, samples and real tokens per second of the steady window, the model's
FLOP/s (:meth:`scinum.model.config.ModelConfig.flops_per_token` at the mean context: trunk
matrix products and attention, forward + backward) and its share of the bf16 matrix product
measured in the same process (8192³, mean of 10 after 3 warm-ups) and of the card's datasheet
figure; the first window's rate against the steady one (a step on a batch shape new to the
process costs several times a step on a seen one: experiments/gpu-check-h200); the hours
of the paper's 500k steps. The last line is the best steady share of the measured peak (target: 40 %, issue 64).

    python benchmarks/paper_gpu_throughput.py [--variants preset,tuned+compile] [--models xval]
        [--first 500 --steady 500] [--max-seconds 150] [--pad-to 64] [--json rows.json]

Needs a CUDA GPU; on a CPU-only machine it says so and exits 2, except with ``--smoke``: a tiny
model, a few steps of each variant on the CPU (where pinning, fusing and compiling are off by
design), against this CPU's fp32 matrix-product rate (checks that the script runs).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
import time
from pathlib import Path

import lightning as L
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # recipes/ from a source checkout
from recipes.presets import model_config  # noqa: E402
from recipes.runner import load_preset  # noqa: E402
from scinum.datasets.directory import DatasetWriter  # noqa: E402
from scinum.tokens.batch import row_count, row_multiple  # noqa: E402
from scinum.train.fit import fit  # noqa: E402
from peak_flops import cuda_gemm_flops, datasheet_bf16, gemm_flops  # noqa: E402  (benchmarks/ is on sys.path as a script)
from train_throughput import planets_like  # noqa: E402

RECIPE = Path(__file__).resolve().parents[1] / "recipes" / "planets.yaml"
TARGET = 0.4  # steady model FLOP/s as a share of the measured bf16 matrix-product peak


def merged(a: dict, b: dict) -> dict:
    """``a`` with ``b`` merged in, section by section (a partial overrides dict; ``a`` unchanged)."""
    out = copy.deepcopy(a)
    for k, v in b.items():
        out[k] = merged(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else copy.deepcopy(v)
    return out


_BUCKETS = {"data": {"pad_to": 128}}
_TUNED = merged(_BUCKETS, {"data": {"num_workers": 8, "prefetch_factor": 4, "pin_memory": True}, "optim": {"fused": True}})
#: variant -> config overrides on top of the preset's model
VARIANTS: dict[str, dict] = {
    "preset": {},
    "buckets": _BUCKETS,
    "tuned": _TUNED,
    "tuned+compile": merged(_TUNED, {"trainer": {"compile": True}}),
}
#: --smoke: a tiny trunk on the CPU, in full precision, no loader workers
SMOKE = {
    "model": {"d_model": 32, "n_layers": 1, "n_heads": 2},
    "data": {"batch_size": 8, "num_workers": 0, "prefetch_factor": None},
    "trainer": {"accelerator": "cpu", "devices": 1, "precision": "32-true"},
}


def measured_bf16_peak(n: int = 8192) -> float:
    """FLOP/s of an ``n``³ bf16 matrix product on the current GPU (random data, CUDA events)."""
    return cuda_gemm_flops(n, torch.bfloat16)


class _HostEvent:
    """A host clock with :class:`torch.cuda.Event`'s interface (a CPU run's step timer)."""

    def __init__(self, enable_timing: bool = True):
        self.t = 0.0

    def record(self) -> None:
        self.t = time.perf_counter()

    def elapsed_time(self, end: "_HostEvent") -> float:
        return (end.t - self.t) * 1e3


class Meter(L.Callback):
    """Times the first ``warmup`` training steps as one window (wall clock from the first step's
    start) and the steps after them as the steady window (real tokens, samples, seconds); and
    every step: its batch length, the rows its last block computes
    (:func:`~scinum.tokens.batch.hidden_rows`' M, rounded as the model rounds it on this device),
    whether this process had trained on that (length, rows) shape before (``new``; ``seen`` is
    shared by the runs of one process), the GPU time from the step's start to its end
    (CUDA events, no synchronisation inside a window; host clocks with ``cuda=False``) and the
    host's wait for the batch before it (data loading), and on a GPU the allocator's count of
    device allocations so far. ``max_seconds``: training stops after this
    long (the windows keep what ran). ``steady``: the steady window ends after this many steps
    (None: at the run's end), so that steps after it (a profiled window) are not counted."""

    def __init__(
        self, warmup: int, seen: set[tuple[int, int]], cuda: bool = True, max_seconds: float | None = None, steady: int | None = None
    ):
        self.warmup, self.seen, self.cuda, self.max_seconds, self.steady = warmup, seen, cuda, max_seconds, steady
        self.t_start: float | None = None  # the first step's start
        self.t0: float | None = None  # the steady window's start (the first window's end)
        self.t1: float | None = None
        self.tokens, self.samples, self.steps, self.model_config = None, 0, 0, None
        self.per_step: list[dict] = []  # length, new, wait_ms; gpu_ms filled in at the end
        self._events: list[tuple] = []
        self._last_end: float | None = None

    def _sync(self) -> None:
        if self.cuda:
            torch.cuda.synchronize()

    def _event(self):
        return torch.cuda.Event(enable_timing=True) if self.cuda else _HostEvent()

    def on_train_batch_start(self, trainer, module, batch, batch_idx):
        now = time.perf_counter()
        if self.t_start is None:
            self._sync()
            self.t_start = now = time.perf_counter()
        if trainer.global_step == self.warmup and self.t0 is None:
            self._sync()
            self.t0 = time.perf_counter()
        length = int(batch["attend"].shape[1])
        wait = None if self._last_end is None else (now - self._last_end) * 1e3
        hidden = batch["targets"] != -100
        rows = row_count(int(hidden.sum(1).max()), length, row_multiple(hidden.device))
        self.per_step.append({"length": length, "rows": rows, "new": (length, rows) not in self.seen, "wait_ms": wait})
        self.seen.add((length, rows))
        start = self._event()
        start.record()
        self._events.append((start, self._event()))

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        self._events[-1][1].record()
        self._last_end = time.perf_counter()
        if self.cuda:  # the caching allocator's calls of cudaMalloc so far (a new shape's new blocks)
            self.per_step[-1]["device_allocs"] = torch.cuda.memory_stats().get("num_device_alloc")
        if self.max_seconds is not None and self._last_end - self.t_start > self.max_seconds:
            trainer.should_stop = True
        if self.t0 is None or self.t1 is not None:
            return
        real = batch["attend"].sum()
        self.tokens = real if self.tokens is None else self.tokens + real
        self.samples += batch["attend"].shape[0]
        self.steps += 1
        if self.steady is not None and self.steps == self.steady:
            self._sync()
            self.t1 = time.perf_counter()

    def on_train_end(self, trainer, module):
        self._sync()
        if self.t1 is None:
            self.t1 = time.perf_counter()
        self.model_config = module.model.trunk.cfg  # the trunk as built: its FLOPs per token
        for step, (start, end) in zip(self.per_step, self._events):
            step["gpu_ms"] = start.elapsed_time(end)

    def first_window(self) -> dict:
        """The first ``warmup`` steps (or as many as ran): steps, seconds and steps per second."""
        n = min(self.warmup, len(self.per_step))
        secs = (self.t0 if self.t0 is not None else self.t1) - self.t_start
        return {"first_steps": n, "first_s": secs, "first_steps_per_s": n / secs if secs > 0 else None}

    def by_novelty(self) -> dict:
        """Median GPU milliseconds of the steps on a batch shape new to the process and of those
        on a shape seen before, with their counts, and the host's total wait for batches (s)."""
        out = {"wait_s": sum(s["wait_ms"] or 0 for s in self.per_step) / 1e3}
        for key, new in (("new", True), ("seen", False)):
            ms = sorted(s["gpu_ms"] for s in self.per_step if s["new"] is new)
            out[f"{key}_steps"] = len(ms)
            out[f"{key}_median_ms"] = ms[len(ms) // 2] if ms else None
        return out


class StepProfiler(L.Callback):
    """Profiles ``steps`` training steps from global step ``start`` (torch.profiler, CPU and CUDA
    activity) and writes two tables to ``out``: operators and kernels by total device time, and by
    host time, with the window's wall seconds and the device's busy seconds (the sum of kernel
    times: far below the wall time means the step waits on the host, launching kernels)."""

    def __init__(self, start: int, steps: int, out: Path):
        self.start, self.steps, self.out = start, steps, out
        self.prof: torch.profiler.profile | None = None
        self.t0 = 0.0

    def on_train_batch_start(self, trainer, module, batch, batch_idx):
        if trainer.global_step == self.start and self.prof is None:
            acts = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA] if torch.cuda.is_available() else [])
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            self.prof = torch.profiler.profile(activities=acts)
            self.prof.__enter__()
            self.t0 = time.perf_counter()

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        if self.prof is not None and trainer.global_step >= self.start + self.steps:
            self._finish()

    def on_train_end(self, trainer, module):
        if self.prof is not None:
            self._finish()

    def _finish(self) -> None:
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        wall = time.perf_counter() - self.t0
        prof, self.prof = self.prof, None
        prof.__exit__(None, None, None)
        events = prof.key_averages()
        device_us = sum(  # the kernels' own time (not the annotations that span them, like the optimizer step's)
            e.time_range.elapsed_us()
            for e in prof.events()
            if e.device_type == torch.autograd.DeviceType.CUDA and not getattr(e, "is_user_annotation", False)
        )
        lines = [
            f"profiled {self.steps} steps from step {self.start}: {wall:.3f} s wall, device busy {device_us / 1e6:.3f} s "
            f"({device_us / 1e6 / wall:.0%} of the wall time)",
            "",
            events.table(sort_by="self_device_time_total" if torch.cuda.is_available() else "self_cpu_time_total", row_limit=40),
            "",
            events.table(sort_by="cpu_time_total", row_limit=25),
        ]
        self.out.write_text("\n".join(lines))
        print(lines[0], flush=True)


def write_records(out: Path, n_train: int, steps: tuple[int, int]) -> None:
    """A dataset directory of ``n_train`` training and 64 validation planets-like records."""
    w = DatasetWriter(out, builder="benchmark-planets-like", version="1", parameters={"steps": list(steps)}, seed=0)
    w.write_split("train", n_train, lambda i: (planets_like(i, steps), {}))
    w.write_split("val", 64, lambda i: (planets_like(10**6 + i, steps), {}))
    w.finish()


def run_config(preset: dict, label: str, variant: str, data: Path, out: Path, steps: int, smoke: bool, pad_to: int | None = None) -> dict:
    """The fit config of one (model, variant) run: the preset's model, the variant's overrides,
    ``steps`` steps, no validation or checkpoints (and the tiny CPU settings with ``smoke``;
    ``pad_to``: data.pad_to whatever the variant says)."""
    overrides = merged(
        VARIANTS[variant],
        {
            "budget": None,
            "trainer": {"max_steps": steps, "limit_val_batches": 0, "checkpoint_every_n_steps": 10**9, "progress_bar": False},
        },
    )
    if smoke:
        overrides = merged(overrides, SMOKE)
    if pad_to is not None:
        overrides = merged(overrides, {"data": {"pad_to": pad_to}})
    return model_config(preset, label, data, out, overrides=overrides)


def row_of(meter: Meter, shown: str, variant: str, peak: float, sheet: float | None) -> dict:
    """One run's figures (the steady window's rates; the first window's against them)."""
    first = meter.first_window()
    row: dict = {"model": shown, "variant": variant, "steps": meter.steps, **first, **meter.by_novelty()}
    secs = (meter.t1 - meter.t0) if meter.t0 is not None else 0.0
    if meter.steps == 0 or secs <= 0:  # stopped inside the first window: no steady rate
        return {**row, "steps_per_s": None, "model_tflops": None, "mfu_measured": None, "mfu_datasheet": None}
    tokens = int(meter.tokens)
    context = tokens / meter.samples
    flops = tokens / secs * meter.model_config.flops_per_token(context)
    steady = meter.steps / secs
    return {
        **row,
        "steps_per_s": steady,
        "samples_per_s": meter.samples / secs,
        "tokens_per_s": tokens / secs,
        "mean_context": context,
        "model_tflops": flops / 1e12,
        "mfu_measured": flops / peak,
        "mfu_datasheet": flops / sheet if sheet else None,
        "first_vs_steady": first["first_steps_per_s"] / steady if first["first_steps_per_s"] else None,
        "hours_500k_steps": 5e5 / steady / 3600,
    }


def print_tables(rows: list[dict], first: int, unit: str, scale: float) -> None:
    print(
        f"\n{'model':<10} {'variant':<14} {'steps/s':>8} {'samples/s':>10} {'tokens/s':>10} {'context':>8} {unit:>9} "
        f"{'of peak':>8} {'of sheet':>9} {'500k steps':>11}"
    )
    for r in rows:
        if r["steps_per_s"] is None:
            print(f"{r['model']:<10} {r['variant']:<14} {'(no steady steps)':>8}")
            continue
        sheet = f"{r['mfu_datasheet']:.1%}" if r["mfu_datasheet"] is not None else "-"
        print(
            f"{r['model']:<10} {r['variant']:<14} {r['steps_per_s']:>8.2f} {r['samples_per_s']:>10.0f} {r['tokens_per_s']:>10.0f} "
            f"{r['mean_context']:>8.0f} {r['model_tflops'] * 1e12 / scale:>9.2f} {r['mfu_measured']:>8.1%} {sheet:>9} "
            f"{r['hours_500k_steps']:>9.1f} h"
        )
    print(f"\nthe first {first} steps (new shapes, compilation, warm-up) against the steady window")
    print(
        f"{'model':<10} {'variant':<14} {'first steps/s':>14} {'steady steps/s':>15} {'ratio':>6} {'new shapes':>12} "
        f"{'median ms':>10} {'seen':>6} {'median ms':>10} {'data wait':>10}"
    )
    for r in rows:
        fmt = lambda v, f: "-" if v is None else format(v, f)  # noqa: E731
        print(
            f"{r['model']:<10} {r['variant']:<14} {fmt(r['first_steps_per_s'], '.2f'):>14} {fmt(r['steps_per_s'], '.2f'):>15} "
            f"{fmt(r.get('first_vs_steady'), '.2f'):>6} {r['new_steps']:>12} {fmt(r['new_median_ms'], '.1f'):>10} "
            f"{r['seen_steps']:>6} {fmt(r['seen_median_ms'], '.1f'):>10} {r['wait_s']:>9.1f}s"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", default="preset,tuned+compile", help=f"comma-separated, of {', '.join(VARIANTS)}")
    ap.add_argument("--models", nargs="+", default=["xval"], help="labels of the paper preset")
    ap.add_argument("--first", type=int, default=500, help="steps of the first window (a first minute of training)")
    ap.add_argument("--steady", type=int, default=500, help="steps timed after the first window")
    ap.add_argument("--max-seconds", type=float, default=None, help="a run stops after this long (its windows keep what ran)")
    ap.add_argument("--records", type=int, default=4096, help="training records written")
    ap.add_argument("--pad-to", type=int, default=None, help="data.pad_to for every variant (default: each variant's own)")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows and every step's timing here (after each run)")
    ap.add_argument(
        "--profile",
        type=int,
        default=0,
        help="profile this many steps after the steady window (torch.profiler) into --profile-dir",
    )
    ap.add_argument("--profile-dir", type=Path, default=Path("."), help="where --profile writes profile-<model>-<variant>.txt")
    ap.add_argument(
        "--attention",
        choices=("auto", "no-cudnn"),
        default="auto",
        help="SDPA kernels: PyTorch's choice, or every kernel but cuDNN's (which plans per shape)",
    )
    ap.add_argument("--smoke", action="store_true", help="a tiny model a few steps on the CPU: checks that the script runs")
    args = ap.parse_args(argv)
    variants = [v for v in args.variants.split(",") if v]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        ap.error(f"unknown variants {unknown}: choose from {', '.join(VARIANTS)}")
    preset = load_preset(RECIPE, "paper")
    lengths = tuple(preset["build"]["steps"])
    if args.smoke:
        args.first, args.steady, args.records, lengths = 3, 3, 48, (3, 6)
        card, unit, scale = "cpu (smoke: a tiny model, fp32)", "GFLOP/s", 1e9
        peak, sheet = gemm_flops(256, 256, 256, torch.float32, torch.get_num_threads(), 0.05), None
    elif not torch.cuda.is_available():
        print("paper_gpu_throughput: no CUDA GPU here; this benchmark measures the paper preset on a GPU")
        return 2
    else:
        card, unit, scale = torch.cuda.get_device_name(), "TFLOP/s", 1e12
        peak, sheet = measured_bf16_peak(), datasheet_bf16(torch.cuda.get_device_name())
    print(
        f"device: {card}; matrix-product peak {peak / scale:.1f} {unit} measured"
        + (f", datasheet bf16 {sheet / scale:.0f}" if sheet else "")
        + f"; torch {torch.__version__}, Lightning {L.__version__}",
        flush=True,
    )
    rows: list[dict] = []
    seen: set[tuple[int, int]] = set()
    per_step: dict[str, list] = {}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "records"
        write_records(data, args.records, lengths)
        for k, (label, variant) in enumerate((m, v) for m in args.models for v in variants):
            meter = Meter(args.first, seen, cuda=not args.smoke, max_seconds=args.max_seconds, steady=args.steady)
            total = args.first + args.steady + args.profile
            cfg = run_config(preset, label, variant, data, Path(tmp) / f"run{k}", total, args.smoke, args.pad_to)
            callbacks: list[L.Callback] = [meter]
            if args.profile:
                name = f"profile-{label}-{variant.replace('+', '-')}.txt"
                callbacks.append(StepProfiler(args.first + args.steady, args.profile, args.profile_dir / name))
            try:
                if args.attention == "no-cudnn":
                    torch.backends.cuda.enable_cudnn_sdp(False)
                fit(cfg, callbacks=callbacks)
            except Exception as e:  # one run's failure is its row's result, not the benchmark's end
                print(f"{label} {variant}: training failed: {type(e).__name__}: {e}", flush=True)
                continue
            row = row_of(meter, label, variant, peak, sheet)
            d = cfg["data"]
            row["settings"] = {
                "attention": args.attention,
                "pad_to": d["pad_to"],
                "num_workers": d["num_workers"],
                "prefetch_factor": d["prefetch_factor"],
                "pin_memory": d["pin_memory"],
                "fused": cfg["optim"]["fused"],
                "compile": cfg["trainer"]["compile"],
                "precision": cfg["trainer"]["precision"],
            }
            rows.append(row)
            per_step[f"{label} {variant}"] = meter.per_step
            print(json.dumps(row), flush=True)
            if args.json:  # after each run: a run killed later keeps the rows before it
                args.json.write_text(json.dumps({"device": card, "peak_measured": peak, "rows": rows, "per_step": per_step}, indent=1))
    print_tables(rows, args.first, unit, scale)
    steady = [r for r in rows if r["mfu_measured"] is not None]
    if not steady:
        print("paper_gpu_throughput: no run reached its steady window")
        return 1
    best = max(steady, key=lambda r: r["mfu_measured"])
    print(f"headline: the best steady window ({best['model']}, {best['variant']}) against the matrix-product peak measured here")
    print(
        f"paper_gpu_throughput: {best['model_tflops'] * 1e12 / scale:.2f} {unit} = {best['mfu_measured']:.1%} of bound "
        f"{peak / scale:.2f} {unit} (target >= {TARGET:.0%})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
