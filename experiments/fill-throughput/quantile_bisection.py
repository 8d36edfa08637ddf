"""A mixture quantile call's time by its CDF terms (rows × levels × 8 components), bisected in numpy
and in torch, one thread: where ``MixtureHead.quantile`` switches between them
(``scinum.heads.mixture.NUMPY_TERMS``). Random mixtures, seeded; the median of three repeats.

    python experiments/fill-throughput/quantile_bisection.py
"""

import os
import time

import torch

import scinum.heads.mixture as mx

torch.set_num_threads(1)
torch.manual_seed(0)
print(f"load average {os.getloadavg()[0]:.2f}")
for N, Q in ((30, 4), (64, 4), (128, 4), (256, 4), (3, 500), (100, 500)):
    out = (torch.log_softmax(torch.randn(N, 8) * 3, -1), torch.randn(N, 8) * 3, torch.rand(N, 8) * 0.5 + 1e-3)
    q = torch.rand(N, Q, dtype=torch.float64) * 0.98 + 0.01
    terms = mx._cdf_terms(out)
    ms = {}
    for name, bisect in (("torch", mx._bisect_torch), ("numpy", mx._bisect_numpy)):
        bisect(terms, q, 60)
        n = 5 if N * Q > 10000 else 30
        repeats = []
        for _ in range(3):
            t = time.perf_counter()
            for _ in range(n):
                bisect(terms, q, 60)
            repeats.append((time.perf_counter() - t) / n * 1000)
        ms[name] = sorted(repeats)[1]
    print(f"{N * Q * 8:>7} terms (N={N}, Q={Q}): torch {ms['torch']:8.2f} ms, numpy {ms['numpy']:8.2f} ms (median of 3)")
