"""CPU training throughput: scinum's MLM path vs a plain ``nn.TransformerEncoder`` reference.

Same planets-like records (2-4 planets, 4-40 time steps: 60-500 tokens), same width/depth,
same xVal multiplicative input, same masking (``make_batch``), same optimizer, one process,
interleaved rounds. Counted: real (non-pad) tokens per second of wall time, collation included.

* scinum: length-bucketed batches (:class:`scinum.train.data.BucketBatchSampler`), pre-LN bias-free
  blocks with RoPE and ``scaled_dot_product_attention``, token logits only at masked positions;
* reference: random batches padded to their longest record, ``nn.TransformerEncoder``
  (pre-LN, GELU, learned positions, ``src_key_padding_mask``), logits at every position.

Run: ``python benchmarks/train_throughput.py [--seconds 6 --rounds 3] [--smoke]``; last line is the
headline. ``--smoke``: a few records and a fraction of a second per path (checks that it runs).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from scinum import encodings
from scinum.tokens.codec import Codec, Vocabulary
from scinum.tokens.batch import make_batch
from scinum.train.sampler import BucketBatchSampler
from scinum.heads import make_head
from scinum.model.config import ModelConfig
from scinum.model.mlm import NumberMLM
from scinum.tokens.normalize import Normalizer

from peak_flops import gemm_flops  # benchmarks/ is on sys.path when run as a script

D, LAYERS, HEADS, BATCH, N_RECORDS = 128, 4, 4, 16, 1024


def planets_like(i: int, steps: tuple[int, int] = (4, 40)) -> dict:
    """A record shaped like the planets dataset (seed 002, App. B.2), orbits drawn analytically;
    2-4 planets, a time-step count drawn from ``steps`` (inclusive)."""
    r = np.random.default_rng(i)
    n, steps = int(r.integers(2, 5)), int(r.integers(steps[0], steps[1] + 1))
    a = np.linspace(1, r.uniform(1.5, 3), n)
    desc = {
        f"planet{k}": {"m": round(float(r.uniform(1, 5)), 2), "a": round(float(a[k]), 2), "e": round(float(r.uniform(0, 2)), 2)}
        for k in range(n)
    }
    dt = float(r.choice([0.2, 0.3, 0.5, 0.8]))
    desc["stepsize"] = dt
    t = np.arange(steps)[:, None] * dt
    ang = t * a[None, :] ** -1.5
    data = [
        [[round(float(a[k] * math.cos(ang[s, k])), 2), round(float(a[k] * math.sin(ang[s, k])), 2)] for k in range(n)] for s in range(steps)
    ]
    return {"description": desc, "data": data}


class Reference(nn.Module):
    """``nn.TransformerEncoder`` with xVal's multiplicative number input and learned positions."""

    def __init__(self, vocab_size: int, max_len: int):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, D)
        self.pos = nn.Embedding(max_len, D)
        layer = nn.TransformerEncoderLayer(D, HEADS, 4 * D, dropout=0.0, activation="gelu", batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        self.ln = nn.LayerNorm(D)
        self.lm = nn.Linear(D, vocab_size)
        self.num = nn.Sequential(nn.Linear(D, D), nn.GELU(), nn.Linear(D, 1))

    def loss(self, b: dict) -> torch.Tensor:
        L = b["ids"].shape[1]
        x = self.tok(b["ids"]) * b["feats"] + self.pos(torch.arange(L))
        h = self.ln(self.enc(x, src_key_padding_mask=~b["attend"]))
        logits = self.lm(h)
        ce = F.cross_entropy(logits.transpose(1, 2), b["targets"], ignore_index=-100)
        num = self.num(h).squeeze(-1)[b["num_hidden"]]
        return ce + F.mse_loss(num, b["num_target"].float())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=6.0, help="timed seconds per path per round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--smoke", action="store_true", help="tiny sizes: checks that the script runs, measures nothing")
    args = ap.parse_args()
    n_records, steps, gemm_seconds, square = N_RECORDS, (4, 40), 1.0, 2048
    if args.smoke:
        args.seconds, args.rounds, n_records, steps, gemm_seconds, square = 0.1, 1, 48, (4, 8), 0.02, 256
    torch.manual_seed(0)
    records = [planets_like(i, steps) for i in range(n_records)]
    vocab = Vocabulary.build(records)
    codec = Codec(vocab)
    seqs = [codec.encode(r) for r in records]
    lengths = np.array([len(s) for s in seqs])
    enc = encodings.get("xval")
    norm = Normalizer.fit(vocab.fields, [(s.fields, s.values) for s in seqs], "minmax")
    rng = np.random.default_rng(0)

    def batch_of(idx, seed):
        hide = [np.random.default_rng([seed, int(i)]).random(len(seqs[i])) < 0.2 for i in idx]
        return make_batch([seqs[i] for i in idx], hide, codec=codec, normalizer=norm, encoding=enc, structure=structure)

    cfg = ModelConfig(
        vocab_size=len(vocab), d_model=D, n_layers=LAYERS, n_heads=HEADS, max_positions=int(lengths.max()), n_fields=len(vocab.fields)
    )  # as training sizes the learned table (and the structure positions' field table)
    structure = cfg.positions == "structure"  # the model default: the batch carries the JSON structure
    ours = NumberMLM(cfg, make_head(enc, D))
    ref = Reference(len(vocab), int(lengths.max()))
    opt_ours = torch.optim.AdamW(ours.parameters(), lr=3e-4)
    opt_ref = torch.optim.AdamW(ref.parameters(), lr=3e-4)

    def step_ours(b):
        loss = ours.losses(b)["loss"]  # what training computes
        opt_ours.zero_grad(set_to_none=True)
        loss.backward()
        opt_ours.step()

    def step_ref(b):
        loss = ref.loss(b)
        opt_ref.zero_grad(set_to_none=True)
        loss.backward()
        opt_ref.step()

    bucketed = iter(BucketBatchSampler(lengths, BATCH, seed=0))
    paths = {
        "scinum": (step_ours, lambda: [i for i, _ in next(bucketed)]),
        "reference": (step_ref, lambda: rng.choice(len(seqs), BATCH, replace=False)),
    }
    totals = {k: [0, 0.0, 0] for k in paths}  # real tokens, seconds, padded tokens
    for name, (step, draw) in paths.items():  # warm-up
        step(batch_of(draw(), 0))
    for rnd in range(args.rounds):
        for name, (step, draw) in paths.items():
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < args.seconds:
                idx = draw()
                b = batch_of(idx, rnd)
                step(b)
                totals[name][0] += int(b["attend"].sum())
                totals[name][2] += b["ids"].numel()
            totals[name][1] += time.perf_counter() - t0
    print(
        f"config: d={D} layers={LAYERS} heads={HEADS} batch={BATCH} records={n_records} "
        f"lengths {lengths.min()}-{lengths.max()} (mean {lengths.mean():.0f}) threads={torch.get_num_threads()}"
    )
    print(f"{'path':<10} {'real tok/s':>11} {'pad share':>10}")
    rate = {}
    for name, (tok, sec, padded) in totals.items():
        rate[name] = tok / sec
        print(f"{name:<10} {rate[name]:>11.0f} {1 - tok / padded:>10.1%}")
    # the machine's limit in the same run: model FLOP/s (ModelConfig.flops_per_token at the
    # mean real length) against the GEMM peak of this CPU at the model's shapes and at 2048²
    threads = torch.get_num_threads()
    per_token = cfg.flops_per_token(float(lengths.mean()))
    peaks = {
        "model shapes": gemm_flops(BATCH * int(lengths.mean()), D, 4 * D, torch.float32, threads, gemm_seconds),
        f"{square}² square": gemm_flops(square, square, square, torch.float32, threads, gemm_seconds),
    }
    for name, peak in peaks.items():
        print(
            f"scinum model FLOP/s {rate['scinum'] * per_token / 1e9:.1f} GFLOP/s = "
            f"{rate['scinum'] * per_token / peak:.1%} of the fp32 GEMM peak at {name} "
            f"({peak / 1e9:.1f} GFLOP/s, {threads} threads)"
        )
    r = rate["scinum"] / rate["reference"]
    print(f"train_throughput: {rate['scinum']:.0f} tokens/s vs reference {rate['reference']:.0f} tokens/s = {r:.2f}x (target >= 2.3x)")


if __name__ == "__main__":
    main()
