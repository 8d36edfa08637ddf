"""Records of the arithmetic recipe: multi-digit multiplication and addition, deterministic.

A task is one operation on operands of a fixed number of decimal digits:

* ``mul`` — the xVal paper's multi-digit multiplication (seed 002, §3.1 and Table 2: 3-, 4- and
  5-digit operands). Record ``{"a": 123, "b": 456, "product": 56088}``.
* ``add`` — FoNE's 6-digit addition (seed 000, *Main Results*), scored with BitTokens' metrics
  (seeds 003/004: exact match and log-sMAPE). Record ``{"a": 123456, "b": 654321, "sum": 777777}``.

Neither paper gives the record layout or the operand distribution (seed 002 only names the task
and the digit counts; the xVal reference repository, PolymathicAI/xVal, holds no arithmetic data
code — its files are the planets simulation, the tokenizer and the model). Here a *d-digit*
operand is an integer drawn uniformly from ``[10^(d-1), 10^d - 1]`` (no leading zero), the two
operands independently, and the masked field is the result (``product`` or ``sum``). Every value
is an exact integer in float64 (5-digit products stay below 10^10 < 2^53).

Splits are disjoint as *unordered* pairs: ``a*b`` and ``b*a`` are the same problem, so a test
pair never appears in training in either order. Pairs are drawn from one generator seeded by
``(seed, op, digits)``; each new pair goes to ``test`` until it is full, then ``val``, then
``train`` (a pair already drawn is skipped). So the test and validation records do not depend on
the training size: a bigger preset with the same seed is scored on the same test records.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping

import numpy as np

__all__ = ["OPS", "SPLITS", "Task", "task_from_config", "operand_range", "generate", "write_jsonl"]

#: operation -> (name of the result field, the operation on int64 arrays)
OPS = {"mul": ("product", np.multiply), "add": ("sum", np.add)}
#: the order in which drawn pairs fill the splits (module docstring)
SPLITS = ("test", "val", "train")
_BLOCK = 4096  # pairs drawn at a time


#: what a task name may be: one path part, never ``.``, ``..`` or hidden
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


class Task:
    """One arithmetic task: ``op`` (``mul``/``add``) on ``digits``-digit operands, with the number
    of records per split (``train``, ``val``, ``test``)."""

    def __init__(self, name: str, op: str, digits: int, train: int, val: int, test: int):
        where = f"arithmetic task {name!r}"
        if not isinstance(name, str) or not _NAME.fullmatch(name):  # a path part under --work
            raise ValueError(
                f"{where}: a task name is letters, digits, '_', '-' and '.' (not first), so that it names one directory under --work"
            )
        if op not in OPS:
            raise ValueError(f"{where}: op must be one of {sorted(OPS)}, got {op!r}")
        if not isinstance(digits, int) or not 1 <= digits <= 7:
            raise ValueError(f"{where}: digits must be an integer in 1..7 (exact results in float64), got {digits!r}")
        counts = {"train": train, "val": val, "test": test}
        for k, n in counts.items():
            if not isinstance(n, int) or n < 0:
                raise ValueError(f"{where}: {k} must be a non-negative integer, got {n!r}")
        lo, hi = operand_range(digits)
        pairs = (hi - lo + 1) * (hi - lo + 2) // 2  # unordered pairs, a == b included
        if sum(counts.values()) > pairs // 2:  # keep rejection sampling cheap
            raise ValueError(
                f"{where}: {sum(counts.values())} records asked for, but "
                f"{digits}-digit operands allow {pairs} distinct unordered pairs; "
                f"ask for at most {pairs // 2}"
            )
        self.name, self.op, self.digits, self.counts = name, op, digits, counts

    @property
    def field(self) -> str:
        """The result's JSON path (the masked, scored field): ``product`` or ``sum``."""
        return OPS[self.op][0]

    def max_result(self) -> int:
        """Largest possible result (for encodings with a fixed digit range)."""
        hi = operand_range(self.digits)[1]
        return int(OPS[self.op][1](np.int64(hi), np.int64(hi)))

    def __repr__(self) -> str:
        return f"Task({self.name!r}, op={self.op!r}, digits={self.digits}, {self.counts})"


def task_from_config(name: str, cfg: Mapping[str, Any]) -> Task:
    """A :class:`Task` from a preset's ``tasks.<name>`` mapping (``op, digits, train, val,
    test``); an unknown or missing key is an error naming the task and the key."""
    keys = {"op", "digits", "train", "val", "test"}
    if not isinstance(cfg, Mapping):
        raise ValueError(f"arithmetic task {name!r}: expected a mapping of {sorted(keys)}, got {cfg!r}")
    unknown, missing = set(cfg) - keys, keys - set(cfg)
    if unknown or missing:
        raise ValueError(
            f"arithmetic task {name!r}: "
            + "; ".join([f"unknown key(s) {sorted(unknown)}"] * bool(unknown) + [f"missing key(s) {sorted(missing)}"] * bool(missing))
            + f" (keys: {sorted(keys)})"
        )
    return Task(name, **cfg)


def operand_range(digits: int) -> tuple[int, int]:
    """Inclusive range ``(10^(d-1), 10^d - 1)`` of a ``digits``-digit operand (1 digit: 0..9)."""
    return (0 if digits == 1 else 10 ** (digits - 1)), 10**digits - 1


def generate(task: Task, seed: int) -> dict[str, list[dict[str, int]]]:
    """``split -> records`` for ``task`` (module docstring): deterministic in ``(seed, task.op,
    task.digits, counts)``; splits disjoint as unordered operand pairs."""
    result, fn = OPS[task.op]
    lo, hi = operand_range(task.digits)
    rng = np.random.default_rng([int(seed), list(OPS).index(task.op), task.digits])
    out: dict[str, list[dict[str, int]]] = {s: [] for s in SPLITS}
    seen: set[tuple[int, int]] = set()
    order = [s for s in SPLITS if task.counts[s] > 0]
    k = 0
    while k < len(order):
        a = rng.integers(lo, hi + 1, size=_BLOCK, dtype=np.int64)
        b = rng.integers(lo, hi + 1, size=_BLOCK, dtype=np.int64)
        r = fn(a, b)
        for x, y, z in zip(a.tolist(), b.tolist(), r.tolist()):
            key = (x, y) if x <= y else (y, x)
            if key in seen:
                continue
            seen.add(key)
            split = order[k]
            out[split].append({"a": x, "b": y, result: z})
            if len(out[split]) == task.counts[split]:
                k += 1
                if k == len(order):
                    break
    return out


def write_jsonl(records: dict[str, list[dict]], directory: Path) -> dict[str, Path]:
    """Write ``<directory>/<split>.jsonl`` for each split (atomically); returns split -> file."""
    from scinum.util.atomic import write_text_atomic
    from scinum.records.strict import dumps

    directory.mkdir(parents=True, exist_ok=True)
    files = {}
    for split, recs in records.items():
        files[split] = directory / f"{split}.jsonl"
        write_text_atomic(files[split], "".join(dumps(r) + "\n" for r in recs))
    return files
