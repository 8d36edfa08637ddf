"""The LightningDataModule over token shards: tokenized train/val splits -> seeded, bucketed
MLM batches.

* Token shards on disk (tokenize once, memory-mapped): :mod:`scinum.datasets`.
* MLM masking: :mod:`scinum.train.masking` (:class:`MLMCollator`).
* Length-bucketed batches: :mod:`scinum.train.sampler` (:class:`BucketBatchSampler`).

Encodings that spell a number in ``k`` tokens (the text baselines P10/P1000/B1999/FP15): the
vocabulary gets their number tokens and the codec writes each number as ``k`` tokens (the cache
key includes the encoding).

The module's keyword arguments are the ``data:`` section of a run config
(:class:`scinum.train.config.DataConfig`, whose defaults they take).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader

from ..tokens.batch import padded_length, row_multiple
from ..tokens.codec import Codec, Encoded, Vocabulary
from .config import DataConfig, RunConfig, field_probs
from ..datasets.directory import Dataset
from ..errors import ConfigError
from .masking import MLMCollator, check_mask_probs
from ..tokens.normalize import Normalizer
from ..tokens.record_line import RecordLine
from .sampler import BucketBatchSampler
from .worker_batches import by_value
from ..datasets.token_shards import TokenShards, tokenize_dataset
from ..datasets.shard_values import check_representable, fit_normalizer
from ..datasets.shard_targets import asked_numbers

__all__ = ["MLMDataModule"]


class _Items(torch.utils.data.Dataset):
    """Record ``i`` of ``shards`` with its batch seed and its ``targeted`` numbers (or None)."""

    def __init__(self, shards: TokenShards, targeted: np.ndarray | None = None):
        self.shards, self.targeted = shards, targeted

    def __len__(self) -> int:
        return len(self.shards)

    def __getitem__(self, item: tuple[int, int]) -> tuple[Encoded, int, np.ndarray | None]:
        i, batch_seed = item
        a, b = self.shards.offsets[i], self.shards.offsets[i + 1]
        targeted = None if self.targeted is None else np.array(self.targeted[a:b])
        return self.shards[i], batch_seed, targeted


class MLMDataModule(L.LightningDataModule):
    """Tokenized train/val shards -> seeded, bucketed MLM batches.

    ``prepare_data`` tokenizes (once, cached; Lightning calls it on one process per node),
    ``setup`` loads the shards, fits the normalizer on train and checks every train/val number
    is representable by the encoding (error: file, line, path). ``mask_fields`` (JSON path patterns): the numbers they name are
    hidden with probability ``mask_fields_prob`` (one, or one per pattern: a mapping) on top of the MLM masking (``mask_fields_alone``:
    instead of it, in the records where they are) — training for the fill task a user has
    (:func:`scinum.datasets.shard_targets.asked_numbers`). With several devices each
    rank takes every ``world_size``-th batch (``use_distributed_sampler=False`` in the Trainer).
    ``max_record_tokens``: the longest record :meth:`longest_record` lets a run attend over.
    ``structure``: batches carry the tokens' JSON-structure positions (``model.positions:
    structure``); ``structure_tokens`` False: without bracket runs and the keys of numbers
    (``model.structure_tokens``). ``pad_to``: each batch's length is rounded up to a multiple of it.
    ``line`` (field names): those fields are predicted on top of a least-squares line of the
    record's other numbers, fitted on train in ``setup`` (:mod:`scinum.tokens.record_line`).
    ``pin_memory`` (only where CUDA is available) and ``prefetch_factor`` (only with workers): the
    :class:`~torch.utils.data.DataLoader`'s arguments of the same name.
    """

    def __init__(
        self,
        path: str,
        encoding: Any,
        *,
        normalizer: str = "minmax",
        seed: int = RunConfig.seed,
        batch_size: int = DataConfig.batch_size,
        mask_prob: float = DataConfig.mask_prob,
        num_workers: int = DataConfig.num_workers,
        pool: int = DataConfig.pool,
        cache_dir: str | Path | None = DataConfig.cache_dir,
        max_run: int = DataConfig.max_run,
        val_split: str | None = DataConfig.val_split,
        mask_fields: Sequence[str] = (),
        mask_fields_prob: float | Mapping[str, float] = DataConfig.mask_fields_prob,
        mask_fields_alone: bool = DataConfig.mask_fields_alone,
        max_record_tokens: int = DataConfig.max_record_tokens,
        pad_to: int = DataConfig.pad_to,
        pin_memory: bool = DataConfig.pin_memory,
        prefetch_factor: int | None = DataConfig.prefetch_factor,
        structure: bool = False,
        structure_tokens: bool = True,
        line: Sequence[str] = (),
    ):
        super().__init__()
        self.path, self.encoding, self.method = path, encoding, normalizer
        self.batch_size, self.mask_prob, self.seed = batch_size, mask_prob, seed
        self.num_workers, self.pool, self.cache_dir, self.max_run = num_workers, pool, cache_dir, max_run
        self.val_split, self.max_record_tokens = val_split, max_record_tokens
        self.structure, self.structure_tokens, self.pad_to = structure, structure_tokens, pad_to
        self.pin_memory, self.prefetch_factor = pin_memory, prefetch_factor
        self.mask_fields = list(mask_fields)
        self.field_probs = field_probs(self.mask_fields, mask_fields_prob)  # path -> its probability
        self.mask_fields_alone = mask_fields_alone
        self.targeted: dict[str, np.ndarray] = {}
        #: the distinct probabilities of the paths, ascending (``targeted``'s value g: the g-th, as asked_numbers marks them)
        self.asked_levels: list[float] = sorted(set(self.field_probs.values()))
        check_mask_probs(mask_prob, self.asked_levels or 0.0)
        self.vocab: Vocabulary | None = None
        self.normalizer: Normalizer | None = None
        self.line_fields = list(line)
        self.line: RecordLine | None = None

    def prepare_data(self) -> None:
        """Lightning calls this once per node (local rank 0) before :meth:`setup`: tokenize the
        splits and mark the ``mask_fields`` numbers into the caches next to the dataset (a no-op
        when they are there). Sets no state."""
        vocab, shards = self._tokenize()
        if self.mask_fields:
            codec = Codec(vocab, self.encoding)
            for split in shards.values():
                asked_numbers(split, codec, self.field_probs)

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
        if self.line_fields:
            train = self.shards["train"]
            self.line = RecordLine.fit((train[i] for i in range(len(train))), codec, self.line_fields)
        if self.mask_fields:
            self.targeted = {split: asked_numbers(shards, codec, self.field_probs) for split, shards in self.shards.items()}
            if not self.targeted["train"].any():
                raise ConfigError(f"data.mask_fields {self.mask_fields} name no number of any training record of {self.path}")

    def prepare(self) -> None:
        """Outside a Trainer: :meth:`prepare_data` then :meth:`setup`, in this process."""
        self.prepare_data()
        self.setup()

    def longest_record(self) -> int:
        """The longest train/validation record in tokens (after :meth:`setup`), rounded up to
        ``pad_to`` — the context the model must hold; a record longer than ``max_record_tokens`` raises
        :class:`~scinum.errors.ConfigError` naming the split, the record and the cost (attention
        grows with the square of the length)."""
        longest = {split: (int(s.lengths.max()), int(s.lengths.argmax())) for split, s in self.shards.items()}
        split, (n, i) = max(longest.items(), key=lambda kv: kv[1][0])
        if n > self.max_record_tokens:
            raise ConfigError(
                f"{self.path}: {split} record {i} is {n} tokens long, over data.max_record_tokens "
                f"{self.max_record_tokens}: the model would attend over {n} positions ({n * n / 1e6:.0f} M "
                f"pairs per layer and head, every step); shorten the records or raise data.max_record_tokens"
            )
        return padded_length(n, self.pad_to)

    @property
    def splits(self) -> list[str]:
        """The splits this module reads: ``train`` and, if the dataset has it, ``val_split``. A
        ``val_split`` set to another name than the default that the dataset lacks is a
        :class:`ConfigError` (it would train without validation, and a mixture head without
        calibration, silently)."""
        have = Dataset(self.path).splits
        if self.val_split not in (None, DataConfig.val_split, *have):
            raise ConfigError(
                f"data.val_split = {self.val_split!r}: {self.path} has no such split "
                f"(it has {', '.join(have)}); name one of them, or null for none"
            )
        return ["train"] + ([self.val_split] if self.val_split in have else [])

    def _tokenize(self) -> tuple[Vocabulary, dict[str, TokenShards]]:
        return tokenize_dataset(self.path, self.splits, cache_dir=self.cache_dir, max_run=self.max_run, encoding=self.encoding)

    def _loader(self, split: str, sampler: BucketBatchSampler) -> DataLoader:
        assert self.vocab is not None and self.normalizer is not None  # set in setup
        collate = MLMCollator(
            self.vocab,
            self.normalizer,
            self.encoding,
            self.mask_prob,
            self.seed,
            pad_to=self.pad_to,
            mask_fields_prob=self.asked_levels or 0.0,
            structure=self.structure,
            mask_fields_alone=self.mask_fields_alone,
            structure_tokens=self.structure_tokens,
            line=self.line,
            row_multiple=row_multiple(self.trainer.strategy.root_device) if self.trainer is not None else 1,
        )
        items = _Items(self.shards[split], self.targeted.get(split))
        return DataLoader(
            items,
            batch_sampler=sampler,
            collate_fn=by_value(collate),
            num_workers=self.num_workers,
            persistent_workers=self.num_workers > 0,
            pin_memory=self.pin_memory and torch.cuda.is_available(),  # a no-op without CUDA
            prefetch_factor=self.prefetch_factor if self.num_workers > 0 else None,
        )

    def _rank(self) -> tuple[int, int]:
        t = self.trainer
        return (t.global_rank, t.world_size) if t is not None else (0, 1)

    def train_dataloader(self) -> DataLoader:
        rank, world = self._rank()
        t = self.trainer
        start = t.global_step * t.accumulate_grad_batches if t is not None else 0
        return self._loader(
            "train",
            BucketBatchSampler(
                self.shards["train"].lengths, self.batch_size, seed=self.seed, pool=self.pool, rank=rank, world_size=world, start=start
            ),
        )

    def val_dataloader(self) -> DataLoader | list:
        if self.val_split not in self.shards:
            return []
        rank, world = self._rank()
        return self._loader(
            self.val_split,
            BucketBatchSampler(self.shards[self.val_split].lengths, self.batch_size, infinite=False, rank=rank, world_size=world),
        )
