"""Scans of a tokenized split's numbers, chunk by chunk: the normalizer fitted on them, and the
check that the encoding can represent every one after normalization."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ..tokens.codec import Codec, Vocabulary
from ..errors import ValueOutOfRange
from ..tokens.normalize import BOUND, Normalizer
from ..records.paths import format_path
from ..records.strict import read_jsonl
from .token_shards import TokenShards

__all__ = ["fit_normalizer", "check_representable"]


def fit_normalizer(shards: TokenShards, vocab: Vocabulary, method: str, bound: float = BOUND) -> Normalizer:
    """Fit a :class:`Normalizer` on a (train) split's shards, chunk by chunk."""
    return Normalizer.fit(vocab.fields, ((f, v) for _, f, v in shards.chunks()), method, bound)


def check_representable(shards: TokenShards, normalizer: Normalizer, encoding: Any, codec: Codec) -> None:
    """Raise :class:`ValueOutOfRange` (file, line, JSON path) at the first number the encoding
    cannot represent after normalization."""
    for start, f, v in shards.chunks():
        on = f >= 0
        ok = np.ones(len(f), bool)
        ok[on] = encoding.representable(torch.from_numpy(normalizer.forward(v[on], f[on]))).numpy()
        if ok.all():
            continue
        tok = start + int(np.flatnonzero(~ok)[0])
        rec = int(np.searchsorted(shards.offsets, tok, side="right") - 1)
        file, line = shards.location(rec)
        record = next(r for n, r in read_jsonl(file) if n == line)
        k = int((shards.fields[shards.offsets[rec] : tok] >= 0).sum())
        path = format_path(codec.number_paths(record)[k])
        raise ValueOutOfRange(
            f"value {float(shards.values[tok])!r} (normalized "
            f"{float(normalizer.forward(shards.values[tok : tok + 1], shards.fields[tok : tok + 1])[0])!r}) "
            f"is outside the exact range of encoding {encoding.config()} "
            f"({encoding.range_text()})",
            file=file,
            line=line,
            path=path,
        )
