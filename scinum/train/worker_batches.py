"""Batches sent from a data-loader worker by value.

A :class:`~torch.utils.data.DataLoader` worker hands each batch to the training process through
a pipe. By default torch sends every tensor by moving its storage to a shared-memory file and
passing that file's descriptor over a fresh socket connection: 15 tensors a batch of the planets
``best`` preset, about 12 ms of the training process's time a step (of about 100; cProfile, one
thread) besides the worker's own work to share them. A batch is a few hundred kilobytes, so
copying its bytes through the pipe costs far less: :func:`by_value` wraps a collate function so
that, in a worker, its batch pickles as NumPy arrays and unpickles as tensors over them. The
tensors that arrive hold the same values, dtypes and shapes (the same training, bit for bit);
only how they travel changes. In the training process itself (``num_workers: 0``) the collate's
batch is returned as it is.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import torch
from torch.utils.data import get_worker_info

__all__ = ["by_value", "SentBatch"]


def _to_arrays(value: Any) -> Any:
    """``value`` with every CPU tensor in it (in dicts, named tuples, lists, tuples) as a NumPy
    array in a :class:`_Array` box, so that unpickling can tell it from an array the batch holds."""
    if isinstance(value, torch.Tensor):
        return _Array(value.numpy())
    if isinstance(value, dict):
        return {k: _to_arrays(v) for k, v in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple (HiddenLayout)
        return type(value)(*(_to_arrays(v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_to_arrays(v) for v in value)
    return value


def _to_tensors(value: Any) -> Any:
    """:func:`_to_arrays` undone: every boxed array a tensor over its memory (no copy)."""
    if isinstance(value, _Array):
        return torch.from_numpy(value.array)
    if isinstance(value, dict):
        return {k: _to_tensors(v) for k, v in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_to_tensors(v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_to_tensors(v) for v in value)
    return value


class _Array:
    """A tensor's values on their way through the pipe (a box, so a NumPy array that a batch
    holds as such stays an array)."""

    __slots__ = ("array",)

    def __init__(self, array: Any):
        self.array = array

    def __getstate__(self) -> Any:
        return self.array

    def __setstate__(self, array: Any) -> None:
        self.array = array


def _received(arrays: dict) -> dict:
    """The batch a worker sent: a plain dict of tensors again."""
    return _to_tensors(arrays)


class SentBatch(dict):
    """A batch (a dict of tensors) that pickles by value: NumPy arrays through the pipe instead of
    one shared-memory file and one socket connection per tensor. Unpickled, it is a plain dict."""

    def __reduce__(self) -> tuple[Callable[[dict], dict], tuple[dict]]:
        return _received, (_to_arrays(dict(self)),)


class by_value:
    """``collate`` whose batches leave a data-loader worker by value (:class:`SentBatch`); called
    in the training process itself it returns the batch as ``collate`` made it."""

    def __init__(self, collate: Callable[[Sequence[Any]], Mapping[str, Any]]):
        self.collate = collate

    def __call__(self, items: Sequence[Any]) -> Mapping[str, Any]:
        batch = self.collate(items)
        return batch if get_worker_info() is None else SentBatch(batch)
