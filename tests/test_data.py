"""Tokenized shards, error locations, seeded masking, bucketing/resumable batch streams."""

import itertools
import json
import random

import numpy as np
import pytest
import torch

from scinum import encodings
from scinum.tokens.codec import Codec
from scinum.tokens.batch import hidden_positions
from scinum.train.sampler import BucketBatchSampler
from scinum.train.masking import MLMCollator
from scinum.train.data import MLMDataModule
from scinum.datasets.shard_targets import targeted_numbers
from scinum.datasets.token_shards import TokenShards, tokenize_dataset
from scinum.datasets.directory import Dataset, DatasetWriter
from scinum.errors import RecordError, ValueOutOfRange, VocabularyError


class Toy:
    """Picklable sample function: 1-6 points of [x, y] plus a scalar and a tag."""

    def __init__(self, bad_key_at: int = -1, big_at: int = -1):
        self.bad_key_at, self.big_at = bad_key_at, big_at

    def __call__(self, i):
        r = random.Random(i)
        rec = {
            "c": round(r.uniform(0, 9), 3),
            "tag": r.choice(["p", "q"]),
            "pts": [[round(r.uniform(-1, 1), 4), k] for k in range(r.randint(1, 6))],
        }
        if i == self.bad_key_at:
            rec["unseen"] = 1.0
        if i == self.big_at:
            rec["c"] = 123456.5
        return rec, {}


def make_dataset(path, n_train=40, n_val=10, **bad):
    w = DatasetWriter(path, builder="toy", version="1", parameters={"bad": bad}, seed=0, shard_size=16)
    w.write_split("train", n_train, Toy())
    w.write_split("val", n_val, Toy(**bad))
    w.finish()
    return path


def test_shards_round_trip_and_are_cached(tmp_path):
    ds = make_dataset(tmp_path / "ds")
    vocab, shards = tokenize_dataset(ds)
    codec = Codec(vocab)
    train = shards["train"]
    assert isinstance(train.ids.base, np.memmap) and isinstance(train.values.base, np.memmap)  # views of the mappings: nothing read
    records = list(Dataset(ds).located_records("train"))
    assert len(train) == len(records) == 40
    for i, (file, line, rec) in enumerate(records):
        enc = codec.encode(rec)
        got = train[i]
        assert np.array_equal(got.ids, enc.ids) and np.array_equal(got.fields, enc.fields)
        assert np.array_equal(got.values, enc.values, equal_nan=True)
        assert train.location(i) == (str(file), line)
        assert codec.decode(got.ids, got.values) == rec
    stamp = (train.path / "ids.bin").stat().st_mtime_ns
    vocab2, shards2 = tokenize_dataset(ds)
    assert vocab2 == vocab and (shards2["train"].path / "ids.bin").stat().st_mtime_ns == stamp
    assert train.path.parent.parent == ds / ".tokens"


def test_mask_field_targets_come_from_the_shards_not_the_jsonl(tmp_path):
    """Issue 39: ``targeted_numbers`` read every JSONL part again to find the numbers
    ``data.mask_fields`` names; the tokenized shards hold the records exactly, so the parts are
    not read (here they are overwritten with bytes that are not JSON after tokenizing)."""
    ds = make_dataset(tmp_path / "ds")
    records = [rec for _, _, rec in Dataset(ds).located_records("train")]
    vocab, shards = tokenize_dataset(ds)
    for part in Dataset(ds).files("train"):
        part.write_bytes(b"not json\n")
    train = shards["train"]
    marked = targeted_numbers(train, Codec(vocab), ["c", "pts[-1][0]"])
    expected = sorted(v for rec in records for v in (rec["c"], rec["pts"][-1][0]))
    assert sorted(train.values[marked].tolist()) == expected


def test_unknown_key_error_names_file_line_and_path(tmp_path):
    ds = make_dataset(tmp_path / "ds", bad_key_at=7)
    with pytest.raises(VocabularyError) as e:
        tokenize_dataset(ds)
    msg = str(e.value)
    assert "val/part-00000.jsonl:8" in msg and "unseen" in msg


def test_unrepresentable_value_error_names_file_line_and_path(tmp_path):
    ds = make_dataset(tmp_path / "ds", big_at=5)
    dm = MLMDataModule(str(ds), encodings.get("fone", int_digits=3, frac_digits=4), normalizer="none")
    with pytest.raises(ValueOutOfRange) as e:
        dm.prepare()
    msg = str(e.value)
    assert "val/part-00000.jsonl:6" in msg and "path c" in msg and "123456.5" in msg


def _items(tmp_path):
    vocab, shards = tokenize_dataset(make_dataset(tmp_path / "ds"))
    return vocab, shards["train"]


def test_collator_masks_are_seeded_and_sized(tmp_path):
    from scinum.datasets.shard_values import fit_normalizer

    vocab, train = _items(tmp_path)
    enc = encodings.get("xval")
    norm = fit_normalizer(train, vocab, "minmax")
    col = MLMCollator(vocab, norm, enc, mask_prob=0.2, seed=7)
    items = [(train[i], 3) for i in range(40)]
    a, b = col(items), col(items)
    assert torch.equal(a["targets"], b["targets"])
    c = col([(s, 4) for s, _ in items])
    assert not torch.equal(a["targets"], c["targets"])
    frac = (a["targets"] != -100).sum() / a["attend"].sum()
    assert 0.12 < frac < 0.28
    assert (a["targets"][~a["attend"]] == -100).all()  # padding is never a target
    assert a["num_target"].dtype == torch.float64 and a["num_target"].abs().max() <= 5
    # the hidden tokens' layout rides with the batch, its rows rounded to the training device's multiple
    tok = a["targets"] != -100
    assert torch.equal(a["hidden_layout"].targets, a["targets"][tok]) and a["hidden_layout"].rows.shape[1] == int(tok.sum(1).max())
    rounded = MLMCollator(vocab, norm, enc, mask_prob=0.2, seed=7, row_multiple=16)(items)["hidden_layout"].rows
    assert rounded.shape[1] == min(-(-int(tok.sum(1).max()) // 16) * 16, tok.shape[1])


def test_hidden_positions_by_path():
    from scinum.tokens.codec import Vocabulary

    rec = {"c": 1.0, "pts": [[0.5, 1], [0.25, 2], [0.125, 3]], "tag": "p"}
    codec = Codec(Vocabulary.build([rec]))
    enc = codec.encode(rec)
    hide = hidden_positions(codec, rec, ["pts[-1][*]", "c"])
    vals = enc.values[hide]
    assert sorted(vals.tolist()) == [0.125, 1.0, 3.0]
    assert hidden_positions(codec, rec, ["pts[1]"]).sum() == 2
    with pytest.raises(RecordError):
        hidden_positions(codec, rec, ["tag"])


def test_bucket_sampler_resumes_exactly_and_splits_ranks():
    lengths = np.random.default_rng(0).integers(10, 300, size=103)
    full = BucketBatchSampler(lengths, 8, seed=1)
    it = iter(full)
    stream = [next(it) for _ in range(40)]  # crosses a pass boundary (13 batches per pass)
    it = iter(BucketBatchSampler(lengths, 8, seed=1, start=17))
    assert [next(it) for _ in range(23)] == stream[17:]
    ranks = [BucketBatchSampler(lengths, 8, seed=1, rank=r, world_size=2) for r in (0, 1)]
    r0, r1 = (iter(r) for r in ranks)
    b0, b1 = [next(r0) for _ in range(6)], [next(r1) for _ in range(6)]
    assert {i for b in b0 for i, _ in b}.isdisjoint({i for b in b1 for i, _ in b})
    # bucketing: far less padding than random batches
    pad = sum(len(b) * max(lengths[i] for i, _ in b) - sum(lengths[i] for i, _ in b) for b in stream[:12])
    rnd = [np.random.default_rng(k).choice(103, 8, replace=False) for k in range(12)]
    pad_rnd = sum(8 * lengths[b].max() - lengths[b].sum() for b in rnd)
    assert pad < 0.3 * pad_rnd
    val = BucketBatchSampler(lengths, 8, infinite=False)
    assert len(val) == len(list(val)) == 13 and sorted(i for b in val for i, _ in b) == list(range(103))


def test_token_shards_are_read_only_views(tmp_path):
    _, train = _items(tmp_path)
    again = TokenShards(train.path, train.dataset_path)
    assert np.array_equal(again.offsets, train.offsets)
    meta = json.loads((train.path / "meta.json").read_text())
    assert meta["records"] == 40 and meta["tokens"] == int(train.offsets[-1])
    with pytest.raises(ValueError):
        train.ids[0] = 1


def test_pad_to_rounds_batch_lengths_and_learned_positions_cover_them(tmp_path):
    """``data.pad_to``: every batch's length is a multiple of it, the real tokens and their targets
    are those of the unpadded batch, and the learned position table a fit sizes from
    :meth:`longest_record` covers the padded length (it was sized to the raw longest record, so a
    padded batch overran it)."""
    from conftest import tiny_config
    from scinum.train.config import load_config
    from scinum.train.fit import fit

    ds = make_dataset(tmp_path / "ds")
    enc = encodings.get("xval")
    plain, padded = (MLMDataModule(str(ds), enc, batch_size=8, seed=3, pad_to=p) for p in (1, 16))
    for dm in (plain, padded):
        dm.prepare()
    assert plain.longest_record() % 16 != 0  # the toy records' longest is not already a multiple
    assert padded.longest_record() == -(-plain.longest_record() // 16) * 16
    for a, b in itertools.islice(zip(plain.train_dataloader(), padded.train_dataloader()), 6):  # the stream is endless
        T = a["attend"].shape[1]
        assert b["attend"].shape[1] % 16 == 0 and T <= b["attend"].shape[1] < T + 16
        assert torch.equal(b["attend"][:, :T], a["attend"]) and not b["attend"][:, T:].any()
        assert torch.equal(b["targets"][:, :T], a["targets"]) and torch.equal(b["num_target"], a["num_target"])
    fit(load_config(overrides=tiny_config(ds, tmp_path / "run", data={"pad_to": 16}, model={"positions": "learned"})))
    assert (tmp_path / "run" / "model.ckpt").exists()
