"""``scinum demo``: tokenize a planets-style record and push its numbers through every encoding.

Shows the token sequence, its length against the xVal reference's, and what each number
encoding gives back after ``decode(encode(x))`` — a quick look at what the model will see.
"""

from __future__ import annotations

import argparse
import math

import numpy as np
import torch

from .. import encodings
from ..tokens.codec import Codec, Vocabulary
from ..tokens.normalize import Normalizer
from ..records.paths import format_path

SAMPLE = {
    "description": {
        "planet0": {"m": 2.3114718207, "a": 1.0, "e": 0.8730163924},
        "planet1": {"m": 4.0209101458, "a": 1.9876543210987654, "e": 0.0312},
        "stepsize": 0.2,
    },
    "data": [
        [[1.0, 0.0], [-0.1532889, 1.9817346]],
        [[0.98006658, 0.19866933], [-0.3411117, 1.9580102]],
        [[0.92106099, 0.38941834], [-0.5261101, 1.9163337]],
    ],
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tokens", action="store_true", help="print every token")


def run(args: argparse.Namespace) -> int:
    codec = Codec(Vocabulary.build([SAMPLE]))
    enc = codec.encode(SAMPLE)
    n_planets, n_steps = 2, len(SAMPLE["data"])
    print(
        f"record -> {len(enc)} tokens (xVal reference: {10 + 12 * n_planets + 3 * n_planets * n_steps}), "
        f"vocabulary of {len(codec.vocab)} tokens, {len(codec.vocab.fields)} numeric fields"
    )
    shown = [codec.vocab.tokens[i] for i in enc.ids]
    print("tokens:", " ".join(shown if args.tokens else shown[:26] + ["…"]))
    assert codec.decode(enc.ids, enc.values) == SAMPLE
    print("decode(encode(record)) == record: exact\n")

    is_num = enc.fields >= 0
    raw, fids = enc.values[is_num], enc.fields[is_num]
    paths = codec.number_paths(SAMPLE)
    print(f"{'encoding':<10} {'dim':>4}  {'field':<24} {'value':>22} {'decoded':>22}  error")
    for name in encodings.names():  # every encoding with features (text spellings have none)
        e = encodings.get(name)
        if not e.dim:
            continue
        norm = Normalizer.fit(codec.vocab.fields, [(fids, raw)], e.default_normalizer)
        x = torch.from_numpy(norm.forward(raw, fids))
        back = norm.inverse(e.decode(e.encode(x)).numpy(), fids)
        worst = int(np.argmax(np.abs(back - raw)))
        for k in sorted({0, worst}):
            err = abs(back[k] - raw[k])
            print(
                f"{name if k == 0 else '':<10} {e.dim if k == 0 else '':>4}  {format_path(paths[k]):<24} "
                f"{float(raw[k])!r:>22} {float(back[k])!r:>22}  {err:.1e}{' (worst)' if k == worst else ''}"
            )
        assert math.isfinite(float(np.abs(back - raw).max()))
    return 0
