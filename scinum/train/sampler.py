"""Length-bucketed batches: records of similar length together, a stream that is a pure
function of ``(seed, batch index)`` so a resumed or distributed run sees what an uninterrupted
single one would."""

from __future__ import annotations

from typing import Iterator

import numpy as np

from .config import DataConfig, RunConfig
from ..errors import ConfigError

__all__ = ["BucketBatchSampler", "check_batches"]


def check_batches(n_records: int, batch_size: int, world_size: int, split: str = "a split") -> None:
    """Raise :class:`~scinum.errors.ConfigError` saying what to change when ``n_records`` records
    in batches of ``batch_size`` give fewer batches than there are ranks (each needs one)."""
    if (-(-n_records // batch_size)) // world_size == 0:
        raise ConfigError(
            f"{split}: {n_records} records make {-(-n_records // batch_size)} batch(es) of "
            f"{batch_size}, fewer than the {world_size} ranks that each need one: lower "
            f"data.batch_size to at most {max(1, n_records // world_size)}, use fewer devices, "
            f"or (validation) set trainer.limit_val_batches: 0"
        )


class BucketBatchSampler:
    """Batches of ``batch_size`` records of similar length; yields lists of ``(index, batch_seed)``.

    One *pass* = a seeded permutation of the records, cut into pools of ``pool`` batches, each
    pool sorted by length and cut into batches, the batches shuffled. Batch ``g`` (counted over
    all passes) gets seed ``g`` and goes to rank ``g % world_size``, so the stream is a pure
    function of ``(seed, g)``: resuming at step ``start`` (``start`` batches of this rank already
    consumed) replays exactly what an uninterrupted run would have seen. ``infinite=False``: one
    pass, unshuffled, fixed seeds (validation).
    """

    def __init__(
        self,
        lengths: np.ndarray,
        batch_size: int,
        *,
        seed: int = RunConfig.seed,
        pool: int = DataConfig.pool,
        infinite: bool = True,
        rank: int = 0,
        world_size: int = 1,
        start: int = 0,
    ):
        self.lengths, self.bs, self.seed, self.pool = np.asarray(lengths), batch_size, seed, pool
        self.infinite, self.rank, self.world, self.start = infinite, rank, world_size, start
        if batch_size < 1 or world_size < 1:  # would spin forever cutting empty batches
            raise ConfigError(f"batch size {batch_size} and world size {world_size} must be >= 1")
        check_batches(len(self.lengths), batch_size, world_size)
        self.per_pass = (-(-len(self.lengths) // batch_size) // world_size) * world_size

    def _pass(self, p: int) -> list[np.ndarray]:
        n = len(self.lengths)
        if not self.infinite:
            order = np.argsort(self.lengths, kind="stable")
            return [order[i : i + self.bs] for i in range(0, n, self.bs)][: self.per_pass]
        rng = np.random.default_rng([self.seed, p])
        perm, chunk = rng.permutation(n), self.bs * self.pool
        batches = []
        for a in range(0, n, chunk):
            part = perm[a : a + chunk]
            part = part[np.argsort(self.lengths[part], kind="stable")]
            batches += [part[i : i + self.bs] for i in range(0, len(part), self.bs)]
        return [batches[i] for i in rng.permutation(len(batches))][: self.per_pass]

    def __iter__(self) -> Iterator[list[tuple[int, int]]]:
        g = self.start * self.world + self.rank
        while self.infinite or g < self.per_pass:
            p, k = divmod(g, self.per_pass)
            batches = self._pass(p)
            while k < self.per_pass:
                yield [(int(i), p * self.per_pass + k) for i in batches[k]]
                g, k = g + self.world, k + self.world
            if not self.infinite:
                return

    def __len__(self) -> int:
        if self.infinite:
            raise TypeError("an infinite sampler has no length")
        return self.per_pass // self.world
