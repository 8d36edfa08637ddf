"""Tokenized shards on disk: a dataset directory tokenized once into memory-mapped arrays
(:mod:`.store`), scans of their numbers (:mod:`.values`: the normalizer, the representable
check) and the numbers a fill task names (:mod:`.targets`)."""
from .store import TokenShards, tokenize_dataset
from .targets import targeted_numbers
from .values import check_representable, fit_normalizer

__all__ = ["tokenize_dataset", "TokenShards", "fit_normalizer", "check_representable",
           "targeted_numbers"]
