"""Every model of the planets quick recipe as it trains (its encoding, head, batch size; one
thread), as a share of this CPU's one-thread fp32 GEMM peak, and where each step's time goes.

For each model of ``recipes/planets.yaml`` ``quick``: ms per training step of the bare loop
(:class:`train_step_overhead.BarePath`: model, AdamW, schedule, clipping; Lightning's own cost
per step is measured by ``train_step_overhead.py``), model FLOP/s (trunk FLOPs per real token,
:meth:`scinum.model.trunk.ModelConfig.flops_per_token`; heads and embeddings not counted) and its share
of the peak. Then a profile of the same steps split by operator class — GEMM, attention (the
fused SDPA kernel, forward and backward), GELU, LayerNorm, optimizer, everything else — and the
share of peak the step would reach if only the GEMMs and the attention kernel took time
(``GEMM+attn only``): no elementwise work, no framework cost. Where that ceiling is near or
below the target, no loop tuning can meet it; only a faster attention kernel or a different model.

Records are planets-shaped (:mod:`quick_shapes`: 2-4 planets, 12 time steps).

    python benchmarks/quick_models_share.py [--steps 60] [--models xval p1000] [--smoke]

``--smoke``: the xVal model, a few steps, a small dataset (checks that it runs).
"""

from __future__ import annotations

import argparse
import tempfile
from collections import defaultdict
from pathlib import Path

import torch
import yaml
from torch.profiler import ProfilerActivity, profile

from quick_shapes import fp32_peak_one_thread, make_dataset, quick_config
from train_step_overhead import BarePath

from scinum.train.config import apply_overrides

ROOT = Path(__file__).resolve().parent.parent
TARGET = 0.5

#: operator classes by aten name (self CPU time; autograd wrappers have no self time of note)
CLASSES = (
    ("GEMM", ("aten::mm", "aten::addmm", "aten::bmm")),
    ("attention", ("aten::_scaled_dot_product_flash_attention",)),
    ("GELU", ("aten::gelu",)),
    ("LayerNorm", ("aten::native_layer_norm",)),
    ("optimizer", ("aten::_fused_adam", "aten::_foreach", "Optimizer.")),
)


def op_class(name: str) -> str:
    for cls, prefixes in CLASSES:
        if name.startswith(prefixes):
            return cls
    return "other"


def breakdown(path: BarePath, steps: int) -> dict[str, float]:
    """Self CPU ms per step by operator class over ``steps`` profiled steps."""
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(steps):
            path.step()
    ms: dict[str, float] = defaultdict(float)
    for e in prof.key_averages():
        ms[op_class(e.key)] += e.self_cpu_time_total / 1e3 / steps
    return ms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=60, help="timed steps per model at batch 8 (a quarter at batch 32)")
    ap.add_argument("--skip", type=int, default=8, help="first steps not timed")
    ap.add_argument("--models", nargs="*", help="subset of the quick preset's models")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes: checks that the script runs, measures nothing")
    a = ap.parse_args()
    n_train, peak_seconds = 1200, 0.5
    if a.smoke:
        a.steps, a.skip, a.models, n_train, peak_seconds = 2, 1, ["xval"], 64, 0.01
    torch.set_num_threads(1)
    preset = yaml.safe_load((ROOT / "recipes" / "planets.yaml").read_text())["quick"]
    labels = a.models or list(preset["models"])
    peak, peak_shape = fp32_peak_one_thread(peak_seconds)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        data = make_dataset(Path(tmp) / "data", n_train=n_train, n_val=8)
        for label in labels:
            base = quick_config(data, Path(tmp) / label, 32, 10_000)
            config = apply_overrides(base, preset["models"][label] or {})
            bs = config["data"]["batch_size"]
            steps = max(8, a.steps * 8 // bs)
            path = BarePath(config, "bare")
            cfg = path.model.trunk.cfg
            for _ in range(a.skip):
                path.step()
            rec = [path.step() for _ in range(steps)]
            sec, toks = sum(r[0] for r in rec), sum(r[1] for r in rec)
            seq = toks / (steps * bs)
            flop_step = toks * cfg.flops_per_token(seq) / steps
            ms = breakdown(path, max(4, steps // 2))
            bound = flop_step / ((ms["GEMM"] + ms["attention"]) / 1e3)
            rows.append((label, bs, seq, 1e3 * sec / steps, flop_step / (sec / steps), ms, bound))
            print(f"  {label}: done", flush=True)
    print(f"one-thread fp32 GEMM peak: {peak / 1e9:.1f} GFLOP/s ({peak_shape}); threads=1")
    classes = [c for c, _ in CLASSES] + ["other"]
    print(
        f"{'model':<10} {'batch':>5} {'tokens':>6} {'ms/step':>8} {'GFLOP/s':>8} {'of peak':>8} "
        + " ".join(f"{c:>10}" for c in classes)
        + f" {'GEMM+attn only':>15}"
    )
    for label, bs, seq, ms_step, flops, ms, bound in rows:
        total = sum(ms.values())
        print(
            f"{label:<10} {bs:>5} {seq:>6.0f} {ms_step:>8.2f} {flops / 1e9:>8.2f} {flops / peak:>8.1%} "
            + " ".join(f"{ms[c] / total:>10.0%}" for c in classes)
            + f" {bound / peak:>15.1%}"
        )
    print("(operator columns: share of the profiled step's self CPU time; GEMM+attn only: the share of peak if nothing else took time)")
    worst = min(rows, key=lambda r: r[4])
    print(
        f"headline: the worst model ({worst[0]}) against the one-thread fp32 peak: "
        f"{'met' if worst[4] >= TARGET * peak else 'NOT met'}; best model {max(r[4] for r in rows) / peak:.1%}"
    )
    print(
        f"quick_models_share: {worst[4] / 1e9:.1f} GFLOP/s = {worst[4] / peak:.1%} of bound "
        f"{peak / 1e9:.1f} GFLOP/s (target >= {TARGET:.0%})"
    )


if __name__ == "__main__":
    main()
