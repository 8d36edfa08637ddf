"""The numbers a fill task names: which tokens of a split ``data.mask_fields`` patterns
mark, computed once from the shards (not the JSONL) and cached next to them; and, where the
patterns are asked with different probabilities, which probability each number takes."""

from __future__ import annotations

import hashlib
import json
from typing import Mapping, Sequence

import numpy as np

from ..util.atomic import write_bytes_atomic
from ..tokens.codec import Codec
from ..errors import RecordError
from ..records.paths import numbers_named, parse_path
from .token_shards import TokenShards

__all__ = ["targeted_numbers", "asked_numbers"]


def targeted_numbers(shards: TokenShards, codec: Codec, patterns: Sequence[str]) -> np.ndarray:
    """bool[tokens of ``shards``]: True at the (first token of the) numbers that any of
    ``patterns`` names in each record (:func:`scinum.records.paths.numbers_named`, the rule fill uses; a
    pattern may name nothing in some records). Computed once from the records decoded out of
    the shards (the JSONL is not read again) and cached next to them (``targets-<hash>.bin``),
    so later runs memory-map it."""
    for p in patterns:
        parse_path(p)  # a malformed pattern fails here, before any reading
    digest = hashlib.sha256(json.dumps(sorted(patterns)).encode()).hexdigest()[:16]
    cache = shards.path / f"targets-{digest}.bin"
    n_tok = int(shards.offsets[-1])
    if not cache.exists():
        out = np.zeros(n_tok, bool)
        for i in range(len(shards)):
            seq = shards[i]
            record = codec.decode(seq.ids, seq.values)  # exact: the shards hold float64 values
            slot = {p: j for j, p in enumerate(codec.number_paths(record))}
            starts = shards.offsets[i] + codec.number_starts(seq.ids)
            for pattern in patterns:
                try:
                    named = numbers_named(record, pattern)
                except RecordError:  # names nothing (or no number) in this record
                    continue
                out[starts[[slot[p] for p in named if p in slot]]] = True
        write_bytes_atomic(cache, out.astype(np.uint8).tobytes())
    return np.fromfile(cache, dtype=np.uint8).astype(bool) if n_tok else np.zeros(0, bool)


def asked_numbers(shards: TokenShards, codec: Codec, probs: Mapping[str, float]) -> np.ndarray:
    """uint8[tokens of ``shards``]: at the first token of each number a pattern of ``probs`` names,
    ``g`` >= 1 when its probability of being asked is the ``g``-th of ``sorted(set(probs.values()))``
    (0 where no pattern names it); a number two patterns name takes the higher probability. Each
    probability's marks are :func:`targeted_numbers`' (cached)."""
    levels = sorted(set(probs.values()))
    if len(levels) > 255:
        raise ValueError(f"at most 255 distinct probabilities of mask_fields, got {len(levels)}")
    out = np.zeros(int(shards.offsets[-1]), np.uint8)
    for g, p in enumerate(levels, 1):  # ascending: a higher probability overwrites a lower one
        out[targeted_numbers(shards, codec, [f for f, q in probs.items() if q == p])] = g
    return out
