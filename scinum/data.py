"""MLM masking, length-bucketed batches and the LightningDataModule over token shards.

* Token shards on disk (tokenize once, memory-mapped): :mod:`scinum.shards`.
* :class:`MLMCollator` draws the MLM masks (seeded per batch) and builds batches with
  :func:`scinum.batch.make_batch` (shared with inference, which never imports Lightning).
* :class:`BucketBatchSampler` groups records of similar length so padding costs little.

Encodings that spell a number in ``k`` tokens (the text baselines P10/P1000/B1999/FP15): the
vocabulary gets their number tokens and the codec writes each number as ``k`` tokens (the cache
key includes the encoding). A masked number masks *all* its tokens: :func:`make_batch` widens
any hidden token of a number to its whole span, and :class:`MLMCollator` draws one mask decision
per number (at its first token), so a number is hidden with probability ``mask_prob`` whatever
``k`` is.
"""
from __future__ import annotations

from typing import Any, Iterator, Sequence

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader

from .codec import MAX_RUN, Codec, Encoded, Vocabulary
from .batch import MASK_PROB, make_batch
from .datasets import Dataset
from .errors import ConfigError
from .normalize import Normalizer
from .shards import TokenShards, check_representable, fit_normalizer, targeted_numbers, tokenize_dataset

__all__ = ["MLMCollator", "BucketBatchSampler", "MLMDataModule", "check_batches", "check_mask_probs"]

class MLMCollator:
    """Collate ``(Encoded, batch_seed)`` or ``(Encoded, batch_seed, targeted)`` items into a
    :func:`make_batch` dict with random masking.

    Each real token is hidden with probability ``mask_prob`` (xVal: 0.2; 0 is allowed with
    ``mask_fields_prob > 0``), and each number of ``targeted`` (bool[L]: the numbers of the
    fields named by ``data.mask_fields``, at their first token) is hidden with probability
    ``mask_fields_prob`` in addition. Draws come from a generator seeded by
    ``(seed, batch_seed)``, so a batch's masks depend only on the seeds — not on worker
    processes or on the order batches are produced.

    A number spelled in several tokens is hidden iff the draw at its first token says so, and
    then all its tokens are (the draws at its other tokens are ignored): each number is hidden
    with probability ``mask_prob``, whatever its token count, rather than ``1-(1-p)^k``.
    """

    def __init__(self, vocab: Vocabulary, normalizer: Normalizer, encoding: Any,
                 mask_prob: float = MASK_PROB, seed: int = 0, pad_to: int = 1,
                 mask_fields_prob: float = 0.0):
        check_mask_probs(mask_prob, mask_fields_prob)
        self.vocab, self.normalizer, self.encoding = vocab, normalizer, encoding
        self.mask_prob, self.seed, self.pad_to = mask_prob, seed, pad_to
        self.mask_fields_prob = mask_fields_prob
        self.codec = Codec(vocab, encoding)

    def __call__(self, items: Sequence[tuple]) -> dict[str, torch.Tensor]:
        seqs = [it[0] for it in items]
        rng = np.random.default_rng([self.seed, int(items[0][1])])
        hide = [rng.random(len(s)) < self.mask_prob for s in seqs]
        if self.codec.tokens_per_number > 1:
            for s, h in zip(seqs, hide):  # one decision per number: the draw at its start
                starts = self.codec.number_starts(s.ids)
                drawn = h[starts]
                h[s.fields >= 0] = False
                h[starts] = drawn
        for it, h in zip(items, hide):
            if len(it) > 2 and it[2] is not None:
                h |= it[2] & (rng.random(len(h)) < self.mask_fields_prob)
        return make_batch(seqs, hide, codec=self.codec, normalizer=self.normalizer,
                          encoding=self.encoding, pad_to=self.pad_to)


def check_mask_probs(mask_prob: float, mask_fields_prob: float) -> None:
    """Raise :class:`~scinum.errors.ConfigError` unless ``0 <= mask_prob < 1``,
    ``0 <= mask_fields_prob <= 1`` and something is hidden (``mask_prob`` 0 needs mask_fields)."""
    if not 0 <= mask_prob < 1:
        raise ConfigError(f"data.mask_prob must be in [0, 1), got {mask_prob}")
    if not 0 <= mask_fields_prob <= 1:
        raise ConfigError(f"data.mask_fields_prob must be in [0, 1], got {mask_fields_prob}")
    if mask_prob == 0 and mask_fields_prob == 0:
        raise ConfigError("data.mask_prob is 0 and no data.mask_fields are hidden: nothing to "
                          "learn from (name the fields to fill in data.mask_fields, or raise mask_prob)")


def check_batches(n_records: int, batch_size: int, world_size: int, split: str = "a split") -> None:
    """Raise :class:`~scinum.errors.ConfigError` saying what to change when ``n_records`` records
    in batches of ``batch_size`` give fewer batches than there are ranks (each needs one)."""
    if (-(-n_records // batch_size)) // world_size == 0:
        raise ConfigError(
            f"{split}: {n_records} records make {-(-n_records // batch_size)} batch(es) of "
            f"{batch_size}, fewer than the {world_size} ranks that each need one: lower "
            f"data.batch_size to at most {max(1, n_records // world_size)}, use fewer devices, "
            f"or (validation) set trainer.limit_val_batches: 0")


class BucketBatchSampler:
    """Batches of ``batch_size`` records of similar length; yields lists of ``(index, batch_seed)``.

    One *pass* = a seeded permutation of the records, cut into pools of ``pool`` batches, each
    pool sorted by length and cut into batches, the batches shuffled. Batch ``g`` (counted over
    all passes) gets seed ``g`` and goes to rank ``g % world_size``, so the stream is a pure
    function of ``(seed, g)``: resuming at step ``start`` (``start`` batches of this rank already
    consumed) replays exactly what an uninterrupted run would have seen. ``infinite=False``: one
    pass, unshuffled, fixed seeds (validation).
    """

    def __init__(self, lengths: np.ndarray, batch_size: int, *, seed: int = 0, pool: int = 50,
                 infinite: bool = True, rank: int = 0, world_size: int = 1, start: int = 0):
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
            return [order[i:i + self.bs] for i in range(0, n, self.bs)][:self.per_pass]
        rng = np.random.default_rng([self.seed, p])
        perm, chunk = rng.permutation(n), self.bs * self.pool
        batches = []
        for a in range(0, n, chunk):
            part = perm[a:a + chunk]
            part = part[np.argsort(self.lengths[part], kind="stable")]
            batches += [part[i:i + self.bs] for i in range(0, len(part), self.bs)]
        return [batches[i] for i in rng.permutation(len(batches))][:self.per_pass]

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


class _Items(torch.utils.data.Dataset):
    """Record ``i`` of ``shards`` with its batch seed and its ``targeted`` numbers (or None)."""

    def __init__(self, shards: TokenShards, targeted: np.ndarray | None = None):
        self.shards, self.targeted = shards, targeted

    def __len__(self) -> int:
        return len(self.shards)

    def __getitem__(self, item: tuple[int, int]) -> tuple[Encoded, int, np.ndarray | None]:
        i, batch_seed = item
        a, b = self.shards.offsets[i], self.shards.offsets[i + 1]
        targeted = None if self.targeted is None else np.array(self.targeted[a:b], bool)
        return self.shards[i], batch_seed, targeted


class MLMDataModule(L.LightningDataModule):
    """Tokenized train/val shards -> seeded, bucketed MLM batches.

    ``prepare_data`` tokenizes (once, cached; Lightning calls it on one process per node),
    ``setup`` loads the shards, fits the normalizer on train and checks every train/val number
    is representable by the encoding (error: file, line, path). ``mask_fields`` (JSON path patterns): the numbers they name are
    hidden with probability ``mask_fields_prob`` on top of the MLM masking — training for the
    fill task a user has (:func:`scinum.shards.targeted_numbers`). With several devices each
    rank takes every ``world_size``-th batch (``use_distributed_sampler=False`` in the Trainer).
    """

    def __init__(self, path: str, encoding: Any, *, normalizer: str = "minmax", batch_size: int = 32,
                 mask_prob: float = MASK_PROB, seed: int = 0, num_workers: int = 0, pool: int = 50,
                 cache_dir: str | None = None, max_run: int = MAX_RUN, val_split: str | None = "val",
                 mask_fields: Sequence[str] = (), mask_fields_prob: float = 0.5):
        super().__init__()
        self.path, self.encoding, self.method = path, encoding, normalizer
        self.batch_size, self.mask_prob, self.seed = batch_size, mask_prob, seed
        self.num_workers, self.pool, self.cache_dir, self.max_run = num_workers, pool, cache_dir, max_run
        self.val_split = val_split
        self.mask_fields = list(mask_fields)
        self.mask_fields_prob = mask_fields_prob if self.mask_fields else 0.0
        self.targeted: dict[str, np.ndarray] = {}
        check_mask_probs(mask_prob, self.mask_fields_prob)
        self.vocab: Vocabulary | None = None
        self.normalizer: Normalizer | None = None

    def prepare_data(self) -> None:
        """Lightning calls this once per node (local rank 0) before :meth:`setup`: tokenize the
        splits and mark the ``mask_fields`` numbers into the caches next to the dataset (a no-op
        when they are there). Sets no state."""
        vocab, shards = self._tokenize()
        if self.mask_fields:
            codec = Codec(vocab, self.encoding)
            for split in shards.values():
                targeted_numbers(split, codec, self.mask_fields)

    def setup(self, stage: str | None = None) -> None:
        """Load the shards and the vocabulary from the cache, fit the normalizer on train, check
        every number is representable (error: file, line, path), load the ``mask_fields``
        marks (idempotent; every rank does it)."""
        if self.vocab is not None:
            return
        self.vocab, self.shards = self._tokenize()
        self.normalizer = fit_normalizer(self.shards["train"], self.vocab, self.method)
        codec = Codec(self.vocab, self.encoding)
        for s in self.shards.values():
            check_representable(s, self.normalizer, self.encoding, codec)
        if self.mask_fields:
            self.targeted = {split: targeted_numbers(shards, codec, self.mask_fields)
                             for split, shards in self.shards.items()}
            if not self.targeted["train"].any():
                raise ConfigError(f"data.mask_fields {self.mask_fields} name no number of any "
                                  f"training record of {self.path}")

    def prepare(self) -> None:
        """Outside a Trainer: :meth:`prepare_data` then :meth:`setup`, in this process."""
        self.prepare_data()
        self.setup()

    @property
    def splits(self) -> list[str]:
        """The splits this module reads: ``train`` and, if the dataset has it, ``val_split``."""
        return ["train"] + ([self.val_split] if self.val_split in Dataset(self.path).splits else [])

    def _tokenize(self) -> tuple[Vocabulary, dict[str, TokenShards]]:
        return tokenize_dataset(self.path, self.splits, cache_dir=self.cache_dir,
                                max_run=self.max_run, encoding=self.encoding)

    def _loader(self, split: str, sampler: BucketBatchSampler) -> DataLoader:
        collate = MLMCollator(self.vocab, self.normalizer, self.encoding, self.mask_prob, self.seed,
                              mask_fields_prob=self.mask_fields_prob)
        items = _Items(self.shards[split], self.targeted.get(split))
        return DataLoader(items, batch_sampler=sampler, collate_fn=collate,
                          num_workers=self.num_workers, persistent_workers=self.num_workers > 0)

    def _rank(self) -> tuple[int, int]:
        t = self.trainer
        return (t.global_rank, t.world_size) if t is not None else (0, 1)

    def train_dataloader(self) -> DataLoader:
        rank, world = self._rank()
        t = self.trainer
        start = t.global_step * t.accumulate_grad_batches if t is not None else 0
        return self._loader("train", BucketBatchSampler(
            self.shards["train"].lengths, self.batch_size, seed=self.seed, pool=self.pool,
            rank=rank, world_size=world, start=start))

    def val_dataloader(self) -> DataLoader | list:
        if self.val_split not in self.shards:
            return []
        rank, world = self._rank()
        return self._loader(self.val_split, BucketBatchSampler(
            self.shards[self.val_split].lengths, self.batch_size, infinite=False, rank=rank,
            world_size=world))
