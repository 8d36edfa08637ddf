"""GPU training throughput and MFU of the planets ``paper`` preset's models, through ``scinum fit``.

Each model of ``recipes/planets.yaml``'s ``paper`` preset (768 × 6 trunk, batches of 64,
bf16-mixed, 4 loader workers: the xVal paper's App. B.2 settings) trains ``--warmup`` +
``--steps`` steps on planets-shaped records with the paper's lengths (2-4 planets, 30-59 time steps:
the reference's draw; orbits drawn analytically, so nothing is simulated or downloaded). The
same ``scinum fit`` a user runs does the training; a callback counts the real (non-padding)
tokens and times the steps after ``--warmup`` steps, synchronising the device at both ends.

Printed per model: steps per second, samples per second, real tokens per second, the model's
FLOP/s (:meth:`scinum.model.config.ModelConfig.flops_per_token` at the mean context: trunk
matrix products and attention, forward + backward) and its share of two peaks: the bf16 matrix
product measured in the same run (8192³, mean of 10 after 3 warm-ups) and the card's datasheet
dense bf16 figure where the card is known. Also: the hours the paper's 500k steps would take,
and for every step (warm-up included) whether the process had trained on its batch length before
and its GPU time. The first model is timed again after the others ("again"): a step on a batch
length new to the process costs several times a step on a seen one (measured on an H200,
experiments/training-on-gpus.md), so the first model of a run is slow and the repeat shows the steady
rate; ``--pad-to 64`` (``data.pad_to``) leaves fewer lengths to pay for.

    python benchmarks/paper_gpu_throughput.py [--steps 100] [--models xval fone ...] [--pad-to 64] [--json rows.json]

Needs a CUDA GPU; on a CPU-only machine it says so and exits 2.
"""

from __future__ import annotations

import argparse
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
from scinum.train.fit import fit  # noqa: E402
from train_throughput import planets_like  # noqa: E402  (benchmarks/ is on sys.path as a script)

RECIPE = Path(__file__).resolve().parents[1] / "recipes" / "planets.yaml"
#: dense bf16 matrix FLOP/s from the vendors' datasheets (SXM parts, without sparsity)
DATASHEET_BF16 = {"H100": 989e12, "H200": 989e12, "A100": 312e12}


def measured_bf16_peak(n: int = 8192) -> float:
    """FLOP/s of an ``n``³ bf16 matrix product on the current GPU (random data, CUDA events)."""
    a, b = (torch.randn(n, n, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    for _ in range(3):
        a @ b
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(10):
        a @ b
    end.record()
    torch.cuda.synchronize()
    return 10 * 2 * n**3 / (start.elapsed_time(end) / 1e3)


class Meter(L.Callback):
    """Real tokens, samples and seconds of the training steps after the first ``warmup``, and of
    every step (warm-up included): its batch length, whether this process had trained on that
    length before (``seen``, shared by the models of one run), the GPU time from the step's start
    to its end (CUDA events, no synchronisation inside the run) and the host's wait for the batch
    before it (data loading)."""

    def __init__(self, warmup: int, seen: set[int]):
        self.warmup, self.t0, self.t1, self.seen = warmup, None, None, seen
        self.tokens, self.samples, self.steps, self.model_config = None, 0, 0, None
        self.per_step: list[dict] = []  # length, new, wait_ms; gpu_ms filled in at the end
        self._events: list[tuple] = []
        self._last_end: float | None = None

    def on_train_batch_start(self, trainer, module, batch, batch_idx):
        now = time.perf_counter()
        if trainer.global_step == self.warmup and self.t0 is None:
            torch.cuda.synchronize()
            self.t0 = time.perf_counter()
        length = int(batch["attend"].shape[1])
        wait = None if self._last_end is None else (now - self._last_end) * 1e3
        self.per_step.append({"length": length, "new": length not in self.seen, "wait_ms": wait})
        self.seen.add(length)
        start = torch.cuda.Event(enable_timing=True)
        start.record()
        self._events.append((start, torch.cuda.Event(enable_timing=True)))

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        self._events[-1][1].record()
        self._last_end = time.perf_counter()
        if self.t0 is None:
            return
        real = batch["attend"].sum()
        self.tokens = real if self.tokens is None else self.tokens + real
        self.samples += batch["attend"].shape[0]
        self.steps += 1

    def on_train_end(self, trainer, module):
        torch.cuda.synchronize()
        self.t1 = time.perf_counter()
        self.model_config = module.model.trunk.cfg  # the trunk as built: its FLOPs per token
        for step, (start, end) in zip(self.per_step, self._events):
            step["gpu_ms"] = start.elapsed_time(end)

    def by_novelty(self) -> dict:
        """Median GPU milliseconds of the steps on a batch length new to the process and of those
        on a length seen before, with their counts, and the host's total wait for batches (s)."""
        out = {"wait_s": sum(s["wait_ms"] or 0 for s in self.per_step) / 1e3}
        for key, new in (("new", True), ("seen", False)):
            ms = sorted(s["gpu_ms"] for s in self.per_step if s["new"] is new)
            out[f"{key}_steps"] = len(ms)
            out[f"{key}_median_ms"] = ms[len(ms) // 2] if ms else None
        return out


def write_records(out: Path, n_train: int, steps: tuple[int, int]) -> None:
    """A dataset directory of ``n_train`` training and 64 validation planets-like records."""
    w = DatasetWriter(out, builder="benchmark-planets-like", version="1", parameters={"steps": list(steps)}, seed=0)
    w.write_split("train", n_train, lambda i: (planets_like(i, steps), {}))
    w.write_split("val", 64, lambda i: (planets_like(10**6 + i, steps), {}))
    w.finish()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=100, help="timed training steps per model")
    ap.add_argument("--warmup", type=int, default=20, help="steps left out of the timing")
    ap.add_argument("--models", nargs="+", default=None, help="labels of the paper preset (default: all)")
    ap.add_argument("--records", type=int, default=4096, help="training records written")
    ap.add_argument("--pad-to", type=int, default=1, help="data.pad_to: batch lengths rounded up to a multiple of this")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows and every step's timing here")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("paper_gpu_throughput: no CUDA GPU here; this benchmark measures the paper preset on a GPU")
        return 2
    preset = load_preset(RECIPE, "paper")
    labels = args.models or list(preset["models"])
    steps = tuple(preset["build"]["steps"])
    card = torch.cuda.get_device_name()
    peak = measured_bf16_peak()
    sheet = next((v for k, v in DATASHEET_BF16.items() if k in card), None)
    print(
        f"device: {card}; bf16 matrix product 8192³: {peak / 1e12:.0f} TFLOP/s measured"
        + (f", datasheet {sheet / 1e12:.0f}" if sheet else ""),
        flush=True,
    )
    rows, seen, per_step = [], set(), {}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "records"
        write_records(data, args.records, steps)
        for k, label in enumerate([*labels, labels[0]]):
            shown = f"{label} (again)" if k == len(labels) else label
            meter = Meter(args.warmup, seen)
            cfg = model_config(
                preset,
                label,
                data,
                Path(tmp) / f"run{k}",
                overrides={
                    "budget": None,
                    "data": {"pad_to": args.pad_to},
                    "trainer": {
                        "max_steps": args.warmup + args.steps,
                        "limit_val_batches": 0,
                        "checkpoint_every_n_steps": 10**9,
                        "progress_bar": False,
                    },
                },
            )
            try:
                fit(cfg, callbacks=[meter])
            except Exception as e:  # one model's failure is its row's result, not the run's end
                print(f"{shown}: training failed: {type(e).__name__}: {e}", flush=True)
                continue
            secs = meter.t1 - meter.t0
            tokens = int(meter.tokens)
            context = tokens / meter.samples
            flops = tokens / secs * meter.model_config.flops_per_token(context)
            row = {
                "model": shown,
                "steps": meter.steps,
                "steps_per_s": meter.steps / secs,
                "samples_per_s": meter.samples / secs,
                "tokens_per_s": tokens / secs,
                "mean_context": context,
                "model_tflops": flops / 1e12,
                "mfu_measured": flops / peak,
                "mfu_datasheet": flops / sheet if sheet else None,
                "hours_500k_steps": 5e5 / (meter.steps / secs) / 3600,
                "pad_to": args.pad_to,
                **meter.by_novelty(),
            }
            rows.append(row)
            per_step[shown] = meter.per_step
            print(json.dumps(row), flush=True)
    print(
        f"\n{'model':<16} {'steps/s':>8} {'samples/s':>10} {'tokens/s':>10} {'context':>8} {'TFLOP/s':>8} "
        f"{'MFU meas.':>10} {'MFU sheet':>10} {'500k steps':>11}"
    )
    for r in rows:
        sheet_mfu = f"{r['mfu_datasheet']:.1%}" if r["mfu_datasheet"] is not None else "-"
        print(
            f"{r['model']:<16} {r['steps_per_s']:>8.2f} {r['samples_per_s']:>10.0f} {r['tokens_per_s']:>10.0f} "
            f"{r['mean_context']:>8.0f} {r['model_tflops']:>8.1f} {r['mfu_measured']:>10.1%} {sheet_mfu:>10} "
            f"{r['hours_500k_steps']:>9.1f} h"
        )
    print(
        "\nevery step, warm-up included (GPU time per step; a length is new the first time this process "
        f"trains on it; pad_to {args.pad_to})"
    )
    print(f"{'model':<16} {'new lengths':>12} {'median ms':>10} {'seen lengths':>13} {'median ms':>10} {'data wait':>10}")
    for r in rows:
        new, old = (f"{r[k]:.1f}" if r[k] is not None else "-" for k in ("new_median_ms", "seen_median_ms"))
        print(f"{r['model']:<16} {r['new_steps']:>12} {new:>10} {r['seen_steps']:>13} {old:>10} {r['wait_s']:>9.1f}s")
    if args.json:
        args.json.write_text(json.dumps({"device": card, "peak_bf16_measured": peak, "rows": rows, "per_step": per_step}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
