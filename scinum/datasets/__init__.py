"""Dataset directories and what is made from them: the directory and its writer
(:mod:`.directory`, :mod:`.writing`), the builder protocol and registry (:mod:`.builders`),
``scinum build jsonl`` (:mod:`.jsonl`), token shards on disk (:mod:`.token_shards`) and scans
of them (:mod:`.shard_values`, :mod:`.shard_targets`). Imports :mod:`scinum.tokens` and below;
never the model (torch only where :mod:`.shard_values` asks the encoding what it represents).

A builder (a plug-in too) writes its dataset with ``scinum.datasets.DatasetWriter``."""

from .directory import Dataset, DatasetWriter

__all__ = ["Dataset", "DatasetWriter"]
