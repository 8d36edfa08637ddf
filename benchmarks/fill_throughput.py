"""Fill throughput: ``Model.fill_many`` (batched) vs filling one record at a time, on CPU.

``fill_many`` runs as a user calls it: on Linux this process and a forked copy of it each prepare
and predict their share of the records (``Model.predict_many``'s ``processes``); beside it, the
same call with ``processes=False``, on threads of this process (what the default was before, and
is where the system cannot fork). ``--rounds`` calls of each in turn, the median shown, CPU time
counted for this process and its copies. ``prepare alone`` times the preparation of the same
records by itself, one thread, Python's garbage collector paused as ``fill_many`` pauses it.

The model is the planets quick preset's xVal model (recipes/planets.yaml: the run config's trunk,
xVal); its weights are freshly initialised — throughput does not depend on them. Records are
real planets samples (2–4 planets, 12 steps) from the builder. The task masks
``description.stepsize`` in every record (one forward pass per record).

    python benchmarks/fill_throughput.py [--records 2000] [--batch-size 256] [--rounds 3] [--values-alone] [--mixture] [--smoke]

``--values-alone``: the same model with ``model.structure_tokens: false`` (it reads 87 of a
record's 142 tokens; experiments/planets-values-alone), which the quick preset does not use.
``--mixture``: the quick preset's ``xval+gmm`` head (the Gaussian mixture of the default
configuration): every prediction then carries its mixture and its 68 % and 95 % intervals.

The ``floor`` line profiles ``predict_many`` on one thread and adds up the time torch's own
operations take (the matrix products, attention, GELU...): what filling costs a record if every
bit of Python around them, and the preparation, were free.

``--smoke``: a few records, seconds in all (the test suite runs it to check the script runs).
The last line is the headline, against the target of 4 000 records/s on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import yaml

from scinum.model.checkpoint import CheckpointMeta
from scinum.tokens.codec import Codec, Vocabulary
from scinum.datasets.directory import Dataset
from scinum.fill.batching import no_gc
from scinum.fill.model import Model
from scinum.fill.forked import can_fork
from scinum.model.config import ModelConfig
from scinum.tokens.normalize import Normalizer
from scinum.tokens.structure import read_tokens
from scinum_simulations.planets import PlanetsConfig, build

from peak_flops import gemm_flops  # benchmarks/ is on sys.path when run as a script

ROOT = Path(__file__).resolve().parent.parent
TARGET = 4000  # records/s, fill_many on 2 cores (issue 64)


def quick_model(records: list[dict], structure_tokens: bool = True, mixture: bool = False) -> Model:
    """The quick preset's xVal model on ``records``' vocabulary, freshly initialised (its
    ``xval+gmm`` mixture head with ``mixture``)."""
    preset = yaml.safe_load((ROOT / "recipes" / "planets.yaml").read_text())["quick"]
    vocab = Vocabulary.build(records)
    codec = Codec(vocab)
    encoded = [codec.encode(r) for r in records]
    norm = Normalizer.fit(vocab.fields, [(e.fields, e.values) for e in encoded], "minmax")
    cfg = ModelConfig(
        vocab_size=len(vocab),
        num_dim=1,
        combine="multiply",
        n_fields=len(vocab.fields),
        **preset["train"].get("model", {}),  # the run config's trunk where the preset names none
        max_positions=max(len(e) for e in encoded),
        structure_tokens=structure_tokens,
    )  # as training sizes the learned table and the structure positions' field table
    head = preset["models"]["xval+gmm"]["head"] if mixture else {"kind": "native"}
    meta = CheckpointMeta(model=cfg, encoding={"name": "xval"}, vocab=vocab, normalizer=norm, head=dict(head))
    torch.manual_seed(0)
    return Model(meta, meta.build_model())


def work_per_record(cfg: ModelConfig, tokens: int, masked: int) -> float:
    """FLOPs a record's forward pass does (2 per multiply-add, as
    :meth:`~scinum.model.config.ModelConfig.flops_per_token` counts them), ``tokens`` read and
    ``masked`` of them predicted: every block but the last over every token; the last one projects
    keys and values of every token but queries, attention, output and MLP at the masked rows
    alone (embeddings, norms and the head left out)."""
    d = cfg.d_model
    full = cfg.flops_per_token(tokens, training=False) / cfg.n_layers  # one block, one token
    last = 2 * 2 * d * d * tokens + masked * (2 * (2 * d * d + 2 * cfg.mlp_ratio * d * d) + 4 * tokens * d)
    return (cfg.n_layers - 1) * full * tokens + last


def cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have ended (the fill's copies)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed_fills(model: Model, records: list[dict], mask: list[str], batch_size: int, rounds: int) -> dict[bool, tuple[float, float, list]]:
    """processes -> (median wall s, median CPU s, the last call's results) of ``predict_many``
    with ``processes`` True and False (False alone where the system cannot fork), ``rounds``
    calls of each in turn."""
    ways = (True, False) if can_fork() else (False,)
    runs: dict[bool, list[tuple[float, float]]] = {p: [] for p in ways}
    last: dict[bool, list] = {}
    for _ in range(rounds):
        for processes in ways:
            t, c = time.perf_counter(), cpu_seconds()
            last[processes] = model.predict_many(records, mask, batch_size=batch_size, processes=processes)
            runs[processes].append((time.perf_counter() - t, cpu_seconds() - c))
    return {p: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r), last[p]) for p, r in runs.items()}


def tensor_work(model: Model, records: list[dict], mask: list[str], batch_size: int) -> tuple[float, str]:
    """CPU ms a record that torch's operations themselves take in ``predict_many`` on one thread
    (the self time of every ``aten::`` operation under :mod:`torch.profiler`: the matrix
    products, attention, GELU, norms... as the trunk calls them, without the Python around
    them), and the three largest as text."""
    from torch.profiler import ProfilerActivity, profile

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            model.predict_many(records, mask, batch_size=batch_size)
    finally:
        torch.set_num_threads(threads)
    ops = sorted(((e.self_cpu_time_total, e.key) for e in prof.key_averages() if e.key.startswith("aten::")), reverse=True)
    total_us = sum(us for us, _ in ops)
    top = ", ".join(f"{key.removeprefix('aten::')} {us / total_us:.0%}" for us, key in ops[:3])
    return total_us / 1000 / len(records), top


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", type=int, default=2000)
    p.add_argument("--single", type=int, default=200, help="records timed one at a time")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--rounds", type=int, default=3, help="calls of each fill in turn (the median is shown)")
    p.add_argument(
        "--values-alone",
        action="store_true",
        help="the same model reading the values alone (model.structure_tokens false; the quick preset reads every token)",
    )
    p.add_argument("--mixture", action="store_true", help="the quick preset's xval+gmm head (the default configuration's mixture)")
    p.add_argument("--smoke", action="store_true", help="tiny sizes: checks that the script runs, measures nothing")
    a = p.parse_args()
    if a.smoke:
        a.records, a.single, a.batch_size, a.rounds = 48, 8, 16, 1
    torch.set_num_threads(torch.get_num_threads())
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp) / "d", train=a.records, val=0, test=0, ood=0, seed=0, config=PlanetsConfig(steps=12), workers=1 if a.smoke else 2)
        records = list(Dataset(Path(tmp) / "d").records("train"))
    model = quick_model(records, structure_tokens=not a.values_alone, mixture=a.mixture)
    mask = ["description.stepsize"]
    model.fill_many(records[:64], mask, batch_size=a.batch_size)  # warm-up

    fills = timed_fills(model, records, mask, a.batch_size, a.rounds)
    t_batched, c_batched, batched = fills[can_fork()]  # as a user's call runs here
    t_threads, c_threads, on_threads = fills[False]
    assert [f.predictions[0].value for f in batched] == [f.predictions[0].value for f in on_threads], "processes and threads differ"
    t, c = time.perf_counter(), time.process_time()
    with no_gc():  # as fill_many prepares
        jobs = [model.prepare(r, mask) for r in records]
    t_prep, c_prep = time.perf_counter() - t, time.process_time() - c
    t, c = time.perf_counter(), time.process_time()
    single = [model.fill(r, mask) for r in records[: a.single]]
    t_single, c_single = time.perf_counter() - t, time.process_time() - c
    diff = max(
        abs(b.record["description"]["stepsize"] - s["description"]["stepsize"]) / abs(s["description"]["stepsize"])
        for b, s in zip(batched, single)
    )
    lengths = [len(j.encoded) for j in jobs]
    rate_b, rate_s = len(records) / t_batched, a.single / t_single
    print(
        f"{len(records)} planets records, {np.mean(lengths):.0f} tokens on average "
        f"(min {min(lengths)}, max {max(lengths)}){', the trunk reading the values alone' if a.values_alone else ''}"
        f"{', the mixture head (intervals)' if a.mixture else ''}, "
        f"{torch.get_num_threads()} threads, median of {a.rounds} calls; "
        f"1-min load average {os.getloadavg()[0]:.2f}"
    )
    # CPU ms/record (all threads): what the work costs whatever else shares the cores; on an
    # otherwise idle machine with T cores the wall rate can reach at most T / CPU s per record
    print(f"{'path':<40} {'records/s':>10} {'ms/record':>10} {'CPU ms/rec':>11}")
    n = len(records)
    for label, rate, cpu_ms in (
        (f"fill_many (batch {a.batch_size})", rate_b, 1000 * c_batched / n),
        ("  on threads (processes=False)", n / t_threads, 1000 * c_threads / n),
        ("  prepare alone (1 thread, gc paused)", n / t_prep, 1000 * c_prep / n),
        ("fill, one record at a time (reference)", rate_s, 1000 * c_single / a.single),
    ):
        print(f"{label:<40} {rate:>10.0f} {1000 / rate:>10.3f} {cpu_ms:>11.3f}")
    threads = torch.get_num_threads()
    print(
        f"fill_many used {c_batched / t_batched:.2f} cores on average (CPU s / wall s) of "
        f"{threads} threads: on {threads} idle cores at most about "
        f"{threads * n / c_batched:.0f} records/s"
    )
    print(f"max relative |batched - single| stepsize prediction: {diff:.1e} (float32 rounding: 6e-8 a value)")
    cfg = model.model.trunk.cfg
    read = [int(read_tokens(j.encoded.ids, model.codec).sum()) for j in jobs] if a.values_alone else lengths  # the tokens the trunk reads
    per_record = float(np.mean([cfg.flops_per_token(n, training=False) * n for n in read]))
    threads = torch.get_num_threads()
    peak = (
        gemm_flops(256, 256, 256, torch.float32, threads, seconds=0.05) if a.smoke else gemm_flops(2048, 2048, 2048, torch.float32, threads)
    )
    achieved = rate_b * per_record
    print(
        f"model FLOP/s: {achieved / 1e9:.1f} GFLOP/s ({per_record / 1e6:.1f} MFLOP a record, counted as a full "
        f"forward pass, the usual convention) = {achieved / peak:.1%} of the fp32 GEMM peak {peak / 1e9:.1f} GFLOP/s "
        f"on {threads} threads"
    )
    work = float(np.mean([work_per_record(cfg, n, len(mask)) for n in read]))
    print(
        f"work done: {work / 1e6:.1f} MFLOP a record (the last block at the masked rows alone) = "
        f"{rate_b * work / 1e9:.1f} GFLOP/s, {rate_b * work / peak:.1%} of that peak; at the peak itself at most "
        f"{peak / work:.0f} records/s"
    )
    floor_ms, top = tensor_work(model, records, mask, a.batch_size)
    prep_ms = 1000 * c_prep / n
    print(
        f"floor: torch's own operations (profiled on one thread) take {floor_ms:.3f} CPU ms a record "
        f"({top}), preparing {prep_ms:.3f}: on {threads} cores with no other cost at most "
        f"{threads * 1000 / (floor_ms + prep_ms):.0f} records/s, {threads * 1000 / floor_ms:.0f} if preparing were free"
    )
    print(f"target {TARGET} records/s batched: {'met' if rate_b >= TARGET else 'not met'}")
    print(
        f"fill_throughput: {rate_b:.0f} records/s vs reference {rate_s:.0f} records/s = "
        f"{rate_b / rate_s:.1f}x (target >= {TARGET} records/s)"
    )


if __name__ == "__main__":
    main()
