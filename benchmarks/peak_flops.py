"""The machine's own limit: matrix-multiply FLOP/s of this CPU with torch, fp32 and bf16, one
thread and all threads, at the quick models' shapes and at a large square size.

A model's training or fill speed is judged against this (``train_throughput.py`` and
``fill_throughput.py`` import :func:`gemm_flops` and print their share of it in the same run).
The last line: all threads' fp32 FLOP/s at the square sizes against one thread's (how well the
cores add up; target: 0.8 x the thread count).

``--device cuda``: the GPU's bf16 and fp32 (TF32 off) matrix-product FLOP/s at 4096³ and 8192³
(CUDA events, mean of 10 after 3 warm-ups), the last line the best bf16 figure as a share of
the card's datasheet dense bf16 rate. ``--json PATH`` also writes the figures there.
``--smoke``: tiny sizes and times, on the CPU (checks that the script runs).

    python benchmarks/peak_flops.py [--seconds 1.0] [--device cpu|cuda] [--json out.json] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

#: (name, m, k, n): a batch of 32 planets records (~2200 tokens) through the quick model
#: (d_model 64, MLP 256) and a square size where the kernels reach their peak
SHAPES = (
    ("quick qkv", 2200, 64, 192),
    ("quick mlp-up", 2200, 64, 256),
    ("quick mlp-down", 2200, 256, 64),
    ("square 1024", 1024, 1024, 1024),
    ("square 2048", 2048, 2048, 2048),
)


def gemm_flops(m: int, k: int, n: int, dtype: torch.dtype = torch.float32, threads: int = 1, seconds: float = 1.0) -> float:
    """FLOP/s of ``[m, k] @ [k, n]`` (2·m·k·n per product) over ``seconds`` of repeats, with
    ``threads`` intra-op threads (restored afterwards)."""
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        a, b = torch.randn(m, k, dtype=dtype), torch.randn(k, n, dtype=dtype)
        t0 = time.perf_counter()
        a @ b
        if time.perf_counter() - t0 < seconds / 4:  # a slow product (emulated bf16) warms up once
            for _ in range(2):
                a @ b
        reps, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            a @ b
            reps += 1
        return 2.0 * m * k * n * reps / (time.perf_counter() - t0)
    finally:
        torch.set_num_threads(before)


#: dense bf16 matrix FLOP/s from the vendors' datasheets (SXM parts, without sparsity)
DATASHEET_BF16 = {"H100": 989e12, "H200": 989e12, "A100": 312e12}


def cuda_gemm_flops(n: int, dtype: torch.dtype, reps: int = 10) -> float:
    """FLOP/s of an ``n``³ matrix product on the current CUDA device (random data, CUDA events,
    mean of ``reps`` after 3 warm-ups)."""
    a, b = (torch.randn(n, n, device="cuda", dtype=dtype) for _ in range(2))
    for _ in range(3):
        a @ b
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        a @ b
    end.record()
    torch.cuda.synchronize()
    return reps * 2 * n**3 / (start.elapsed_time(end) / 1e3)


def datasheet_bf16(card: str) -> float | None:
    """The datasheet dense bf16 FLOP/s of a card by its name (None: not known here)."""
    return next((v for k, v in DATASHEET_BF16.items() if k in card), None)


def gpu_main(json_out: Path | None) -> int:
    """The ``--device cuda`` table and headline."""
    if not torch.cuda.is_available():
        print("peak_flops: no CUDA GPU here (--device cuda)")
        return 2
    torch.backends.cuda.matmul.allow_tf32 = False
    card = torch.cuda.get_device_name()
    print(f"device: {card}")
    print(f"{'size':>6} {'bf16 TFLOP/s':>13} {'fp32 TFLOP/s':>13}")
    res: dict[str, float] = {}
    for n in (4096, 8192):
        bf, fp = cuda_gemm_flops(n, torch.bfloat16), cuda_gemm_flops(n, torch.float32, reps=3)
        res[f"bf16_{n}"], res[f"fp32_{n}"] = bf, fp
        print(f"{n:>6} {bf / 1e12:>13.1f} {fp / 1e12:>13.1f}")
    best = max(res["bf16_4096"], res["bf16_8192"])
    sheet = datasheet_bf16(card)
    if json_out:
        json_out.write_text(json.dumps({"device": card, "peak_bf16_measured": best, "datasheet_bf16": sheet, **res}, indent=1))
    if sheet is None:
        print(f"{card} is not in the datasheet table: the bound is the measured figure itself")
    bound = sheet or best
    print(f"peak_flops: {best / 1e12:.1f} TFLOP/s = {best / bound:.1%} of bound {bound / 1e12:.1f} TFLOP/s (target >= 70%)")
    return 0


def bf16_native() -> bool:
    """Whether this CPU has native bf16 dot products (AVX-512 BF16 or AMX)."""
    try:
        flags = open("/proc/cpuinfo").read()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=1.0, help="timed seconds per measurement")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--json", type=Path, default=None, help="also write the figures here")
    p.add_argument("--smoke", action="store_true", help="tiny sizes on the CPU: checks that the script runs, measures nothing")
    a = p.parse_args()
    if a.device == "cuda" and not a.smoke:
        return gpu_main(a.json)
    shapes = SHAPES
    if a.smoke:
        a.seconds, shapes = 0.01, (("quick qkv", 220, 64, 192), ("square 1024", 128, 128, 128), ("square 2048", 256, 256, 256))
    cores = torch.get_num_threads()
    print(f"device: cpu; threads available: {cores}; native bf16: {bf16_native()}")
    print(f"{'shape':<16} {'m×k×n':>16} {'fp32 1t':>9} {'fp32 all':>9} {'bf16 1t':>9} {'bf16 all':>9}  GFLOP/s")
    best = {}
    native = bf16_native()
    square: dict[int, float] = {}
    for name, m, k, n in shapes:
        row = []
        for dtype in (torch.float32, torch.bfloat16):
            for threads in (1, cores):
                if dtype == torch.bfloat16 and not native and name.startswith("square"):
                    row.append("emulated")  # tens of seconds a product, and no peak to find
                    continue
                f = gemm_flops(m, k, n, dtype, threads, a.seconds) / 1e9
                best[(dtype, threads)] = max(best.get((dtype, threads), 0.0), f)
                if dtype == torch.float32 and name.startswith("square"):
                    square[threads] = max(square.get(threads, 0.0), f)
                row.append(f"{f:.1f}")
        print(f"{name:<16} {f'{m}×{k}×{n}':>16} " + " ".join(f"{f:>9}" for f in row))
    print(
        f"peak_flops: {best[(torch.float32, 1)]:.1f} GFLOP/s fp32 one thread, "
        f"{best[(torch.float32, cores)]:.1f} all {cores}; bf16 {best[(torch.bfloat16, 1)]:.1f} one "
        f"thread, {best[(torch.bfloat16, cores)]:.1f} all"
        + ("" if native else " (no native bf16: emulated, measured at the quick shapes only)")
    )
    if a.json:
        a.json.write_text(
            json.dumps({"device": "cpu", "threads": cores, **{f"{d}_{t}t": v * 1e9 for (d, t), v in best.items()}}, indent=1, default=str)
        )
    one, every = square[1], square[cores]
    print(f"headline: fp32 at the square sizes, all {cores} threads vs one thread")
    print(f"peak_flops: {every:.1f} GFLOP/s vs reference {one:.1f} GFLOP/s = {every / one:.2f}x (target >= {0.8 * cores:.1f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
