"""The numbers a fill task names: which tokens of a split ``data.mask_fields`` patterns
mark, computed once and cached next to the shards."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Sequence

import numpy as np

from ..util.atomic import write_bytes_atomic
from ..tokens.codec import Codec
from ..errors import RecordError
from ..records.paths import numbers_named, parse_path
from ..records.strict import read_jsonl
from .token_shards import TokenShards

__all__ = ["targeted_numbers"]


def targeted_numbers(shards: TokenShards, codec: Codec, patterns: Sequence[str]) -> np.ndarray:
    """bool[tokens of ``shards``]: True at the (first token of the) numbers that any of
    ``patterns`` names in each record (:func:`scinum.records.paths.numbers_named`, the rule fill uses; a
    pattern may name nothing in some records). Computed by reading the records once and cached
    next to the shards (``targets-<hash>.bin``), so later runs memory-map it."""
    for p in patterns:
        parse_path(p)  # a malformed pattern fails here, before any reading
    digest = hashlib.sha256(json.dumps(sorted(patterns)).encode()).hexdigest()[:16]
    cache = shards.path / f"targets-{digest}.bin"
    n_tok = int(shards.offsets[-1])
    if not cache.exists():
        out = np.zeros(n_tok, bool)
        base = shards.dataset_path if shards.dataset_path else Path(".")
        i = 0
        for k, rel in enumerate(shards.files):
            for line, record in read_jsonl(base / rel):
                slot = {p: j for j, p in enumerate(codec.number_paths(record))}
                starts = shards.offsets[i] + codec.number_starts(shards[i].ids)
                for pattern in patterns:
                    try:
                        named = numbers_named(record, pattern)
                    except RecordError:  # names nothing (or no number) in this record
                        continue
                    out[starts[[slot[p] for p in named if p in slot]]] = True
                i += 1
        write_bytes_atomic(cache, out.astype(np.uint8).tobytes())
    return np.fromfile(cache, dtype=np.uint8).astype(bool) if n_tok else np.zeros(0, bool)
