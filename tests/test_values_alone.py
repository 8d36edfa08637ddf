"""A trunk that reads the values alone (``model.structure_tokens: false``): which tokens it reads,
the batches it gets, and that training, fill and attention all give it those batches."""

import random

import numpy as np
import pytest
import torch
from hypothesis import given

import scinum
from scinum import encodings
from scinum.analysis.attention import OTHER, attention_report
from scinum.model.config import ModelConfig
from scinum.tokens.batch import hidden_positions, make_batch
from scinum.tokens.codec import Codec, Vocabulary
from scinum.tokens.normalize import Normalizer
from scinum.tokens.structure import read_tokens
from scinum.train.config import load_config
from scinum.train.fit import fit

from conftest import json_records, tiny_config, write_dataset  # tests/conftest.py


def _kind(token: str) -> str:
    if set(token) <= set("[]{}"):
        return "brackets"
    if token.startswith('"') and token.endswith('":'):
        return "key"
    return "value"


@given(json_records)
def test_read_tokens_leave_out_exactly_brackets_and_the_keys_of_numbers(record):
    """Property: a token is left out iff it is a bracket run, or a key whose value is a number;
    every number, string, literal and every other key stays, in order."""
    codec = Codec(Vocabulary.build([record]))
    ids = codec.encode(record).ids
    tokens = [codec.vocab.tokens[i] for i in ids]
    starts = set(codec.number_starts(ids).tolist())
    expected = [not (_kind(t) == "brackets" or (_kind(t) == "key" and i + 1 in starts)) for i, t in enumerate(tokens)]
    assert read_tokens(ids, codec).tolist() == expected
    assert starts <= set(np.flatnonzero(read_tokens(ids, codec)).tolist())


def test_a_record_keeps_its_values_and_the_keys_no_number_carries():
    record = {"description": {"planet0": {"m": 1.5, "a": 2.0}, "name": "x"}, "data": [[0.1, 0.2], [0.3, 0.4]], "ok": True}
    codec = Codec(Vocabulary.build([record]))
    ids = codec.encode(record).ids
    kept = [codec.vocab.tokens[i] for i in ids[read_tokens(ids, codec)]]
    numbers = ["[NUM]"] * 4
    assert kept == ['"description":', '"planet0":', "[NUM]", "[NUM]", '"name":', '"x"', '"data":', *numbers, '"ok":', "true"]


def _records(n: int = 6) -> list[dict]:
    rng = random.Random(0)
    return [
        {"params": {"a": rng.uniform(0, 2), "n": k % 3 + 2}, "kind": "line", "points": [[rng.uniform(-1, 1)] * 2 for _ in range(k % 3 + 2)]}
        for k in range(n)
    ]


def test_a_batch_of_values_alone_asks_and_places_the_same_numbers():
    records = _records()
    codec = Codec(Vocabulary.build(records))
    seqs = [codec.encode(r) for r in records]
    enc = encodings.get("xval")
    norm = Normalizer.fit(codec.vocab.fields, [(s.fields, s.values) for s in seqs], enc.default_normalizer)
    hide = [np.random.default_rng(k).random(len(s)) < 0.4 for k, s in enumerate(seqs)]
    kw = dict(codec=codec, normalizer=norm, encoding=enc, structure=True)
    every, alone = make_batch(seqs, hide, **kw), make_batch(seqs, hide, **kw, structure_tokens=False)
    assert alone["ids"].shape[1] == max(int(read_tokens(s.ids, codec).sum()) for s in seqs) < every["ids"].shape[1]
    assert alone["attend"].sum(1).tolist() == [int(read_tokens(s.ids, codec).sum()) for s in seqs]
    for key in ("num_target", "num_field"):
        assert torch.equal(every[key], alone[key])
    # each number keeps its field and list indices, and its visible value
    for b in (every, alone):
        assert b["num_hidden"].sum() == len(b["num_target"])
    shown = lambda b: (b["structure"][..., 0] >= 0) & ~b["num_hidden"]  # noqa: E731
    assert torch.equal(every["structure"][every["num_hidden"]], alone["structure"][alone["num_hidden"]])
    assert torch.equal(every["structure"][shown(every)], alone["structure"][shown(alone)])
    assert torch.equal(every["feats"][shown(every)], alone["feats"][shown(alone)])
    with pytest.raises(ValueError, match="needs structure=True"):
        make_batch(seqs, hide, codec=codec, normalizer=norm, encoding=enc, structure_tokens=False)


def test_config_needs_structure_positions_and_old_configs_read_every_token():
    with pytest.raises(ValueError, match="needs positions 'structure'"):
        ModelConfig(vocab_size=5, positions="rope", structure_tokens=False)
    with pytest.raises(ValueError, match="true or false"):
        ModelConfig(vocab_size=5, max_positions=4, structure_tokens="no")  # type: ignore[arg-type]
    d = ModelConfig(vocab_size=5, max_positions=4).to_dict()
    del d["structure_tokens"]  # a checkpoint written before the option
    assert ModelConfig.from_dict(d).structure_tokens is True
    with pytest.raises(scinum.errors.ConfigError, match="structure_tokens"):
        load_config(overrides={"data": {"path": "x"}, "out_dir": "y", "model": {"positions": "learned", "structure_tokens": False}})


class Orbit:
    """y = a·x at 3-5 points, a label string and a flag."""

    def __call__(self, i):
        rng = random.Random(i)
        a = rng.uniform(0.5, 2.0)
        xs = [rng.uniform(-1, 1) for _ in range(rng.randint(3, 5))]
        return {"params": {"a": a}, "kind": "line", "points": [[x, a * x] for x in xs]}, {}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("values-alone")
    write_dataset(root / "data", Orbit(), {"train": 64, "val": 8}, builder="orbit", shard_size=64)
    cfg = tiny_config(
        root / "data",
        root / "run",
        model={"n_layers": 2, "structure_tokens": False},
        trainer={"max_steps": 12, "val_check_interval": 1000, "checkpoint_every_n_steps": 1000},
    )
    return scinum.load(fit(load_config(overrides=cfg)))


def test_fill_gives_the_trained_trunk_the_values_alone(trained):
    """What fill predicts is the trunk's output on the batch of values alone, not on every token
    (which the trunk also accepts: the two differ), at every asked path."""
    model = trained
    assert model.model.trunk.cfg.structure_tokens is False
    records = [Orbit()(1000 + i)[0] for i in range(4)]
    mask = ["params.a", "points[1][1]"]
    filled = model.predict_many(records, mask)
    kw = dict(codec=model.codec, normalizer=model.normalizer, encoding=model.encoding, structure=True)
    seqs = [model.codec.encode(r) for r in records]
    hide = [hidden_positions(model.codec, r, mask) for r in records]
    for structure_tokens, equal in ((False, True), (True, False)):
        b = make_batch(seqs, hide, **kw, structure_tokens=structure_tokens)
        want = model.normalizer.inverse(model.model.predict(b).values.numpy(), b["num_field"].numpy()).reshape(len(records), 2)
        got = np.array([[f.record["params"]["a"], f.record["points"][1][1]] for f in filled])
        assert np.allclose(got, want, rtol=1e-5, atol=1e-7) is equal
    assert [[q.path for q in f.predictions] for f in filled] == [["params.a", "points[1][1]"]] * 4


def test_attention_names_the_tokens_the_trunk_read(trained):
    records = [Orbit()(2000 + i)[0] for i in range(3)]
    report = attention_report(trained, records, "params.a")
    for shares in report.share.values():
        assert sum(shares.values()) == pytest.approx(1.0, abs=1e-6)
        assert "points[0][1]" in shares and "params.a" not in shares and OTHER in shares  # [MASK], "kind" and its string
