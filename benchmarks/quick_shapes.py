"""Shared by the training-speed benchmarks: a planets-shaped dataset at the quick recipe's record
sizes (2-4 planets, 12 time steps: about 100-200 tokens), a fit config (:func:`quick_config`), and the
one-thread fp32 GEMM peak of this CPU (:func:`peak_flops.gemm_flops`).

Records are drawn analytically (circular orbits), not by REBOUND: the step cost depends on the
records' token counts and the model's shapes, not on the physics.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch

from peak_flops import SHAPES, gemm_flops

STEPS = 12  # recipes/planets.yaml quick preset: build.steps


def record(i: int) -> dict:
    """A planets-shaped record (seed 002, App. B.2 layout) with ``STEPS`` time steps."""
    r = np.random.default_rng(i)
    n = int(r.integers(2, 5))
    a = np.linspace(1, r.uniform(1.5, 3), n)
    desc = {
        f"planet{k}": {"m": round(float(r.uniform(1, 5)), 4), "a": round(float(a[k]), 4), "e": round(float(r.uniform(0, 2)), 4)}
        for k in range(n)
    }
    dt = float(r.choice([0.2, 0.3, 0.5, 0.8]))
    desc["stepsize"] = dt
    ang = np.arange(STEPS)[:, None] * dt * a[None, :] ** -1.5
    data = [
        [[round(float(a[k] * math.cos(ang[s, k])), 5), round(float(a[k] * math.sin(ang[s, k])), 5)] for k in range(n)] for s in range(STEPS)
    ]
    return {"description": desc, "data": data}


class _Sample:
    def __call__(self, i):
        return record(i), {}


def make_dataset(path: Path, n_train: int = 1200, n_val: int = 64) -> Path:
    """Write (once) a dataset directory of :func:`record` samples at ``path``."""
    from scinum.datasets.directory import DatasetWriter

    if (path / "manifest.json").exists():
        return path
    w = DatasetWriter(path, builder="quick-shapes", version="1", parameters={"steps": STEPS}, seed=0, shard_size=1000)
    w.write_split("train", n_train, _Sample())
    w.write_split("val", n_val, _Sample())
    w.finish(evaluation={"fields": ["description.planet0.a", "description.stepsize"]})
    return path


def quick_config(data: Path, out: Path, batch_size: int, max_steps: int, seed: int = 0, **trainer) -> dict:
    """The training config of the CPU benchmarks: xVal on the 64 x 2 trunk of two heads at lr 2e-3
    (the planets quick preset's trunk when these benchmarks were written; the preset now trains
    the run config's four heads at lr 1.4e-3, and the published step costs are of this one), one
    thread, no progress bar."""
    from scinum.train.config import load_config

    t = {
        "max_steps": max_steps,
        "accelerator": "cpu",
        "devices": 1,
        "val_check_interval": 400,
        "limit_val_batches": 5,
        "checkpoint_every_n_steps": 400,
        "progress_bar": False,
        **trainer,
    }
    return load_config(
        None,
        {
            "seed": seed,
            "out_dir": str(out),
            "encoding": {"name": "xval"},
            "data": {"path": str(data), "batch_size": batch_size, "mask_prob": 0.2},
            "model": {"d_model": 64, "n_layers": 2, "n_heads": 2},
            "optim": {"lr": 2.0e-3, "warmup_steps": 50, "min_lr_ratio": 0.1},
            "trainer": t,
        },
    )


def fp32_peak_one_thread(seconds: float = 0.5) -> tuple[float, str]:
    """The best fp32 one-thread GEMM FLOP/s over :data:`peak_flops.SHAPES` and its shape's name."""
    best = max((gemm_flops(m, k, n, torch.float32, 1, seconds), name) for name, m, k, n in SHAPES)
    return best
