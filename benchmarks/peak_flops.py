"""The machine's own limit: matrix-multiply FLOP/s of this CPU with torch, fp32 and bf16, one
thread and all threads, at the quick models' shapes and at a large square size.

A model's training or fill speed is judged against this (``train_throughput.py`` and
``fill_throughput.py`` import :func:`gemm_flops` and print their share of it in the same run).

    python benchmarks/peak_flops.py [--seconds 1.0]
"""

from __future__ import annotations

import argparse
import time

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


def bf16_native() -> bool:
    """Whether this CPU has native bf16 dot products (AVX-512 BF16 or AMX)."""
    try:
        flags = open("/proc/cpuinfo").read()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=1.0, help="timed seconds per measurement")
    a = p.parse_args()
    cores = torch.get_num_threads()
    print(f"threads available: {cores}; native bf16: {bf16_native()}")
    print(f"{'shape':<16} {'m×k×n':>16} {'fp32 1t':>9} {'fp32 all':>9} {'bf16 1t':>9} {'bf16 all':>9}  GFLOP/s")
    best = {}
    native = bf16_native()
    for name, m, k, n in SHAPES:
        row = []
        for dtype in (torch.float32, torch.bfloat16):
            for threads in (1, cores):
                if dtype == torch.bfloat16 and not native and name.startswith("square"):
                    row.append("emulated")  # tens of seconds a product, and no peak to find
                    continue
                f = gemm_flops(m, k, n, dtype, threads, a.seconds) / 1e9
                best[(dtype, threads)] = max(best.get((dtype, threads), 0.0), f)
                row.append(f"{f:.1f}")
        print(f"{name:<16} {f'{m}×{k}×{n}':>16} " + " ".join(f"{f:>9}" for f in row))
    print(
        f"peak_flops: {best[(torch.float32, 1)]:.1f} GFLOP/s fp32 one thread, "
        f"{best[(torch.float32, cores)]:.1f} all {cores}; bf16 {best[(torch.bfloat16, 1)]:.1f} one "
        f"thread, {best[(torch.bfloat16, cores)]:.1f} all"
        + ("" if native else " (no native bf16: emulated, measured at the quick shapes only)")
    )


if __name__ == "__main__":
    main()
