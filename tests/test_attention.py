"""Attention shares from a hidden field (scinum.analysis.attention, `scinum attention`): the
weights are the ones the trunk applies, they add up per JSON path, and bad input is named."""

import csv
import json
import random

import pytest
import torch
import torch.nn.functional as F

import scinum
from scinum.analysis.attention import OTHER, attention_report
from scinum.cli.main import main
from scinum.errors import RecordError
from scinum.model.config import ModelConfig
from scinum.model.trunk import Transformer
from scinum.train.config import load_config
from scinum.train.fit import fit

from conftest import tiny_config, write_dataset  # tests/conftest.py


class Line:
    """y = a·x at 3-5 points, and the slope a."""

    def __call__(self, i):
        rng = random.Random(i)
        a = rng.uniform(0.5, 2.0)
        xs = [rng.uniform(-1, 1) for _ in range(rng.randint(3, 5))]
        return {"params": {"a": a}, "points": [[x, a * x] for x in xs]}, {}


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory, one_thread_module):
    root = tmp_path_factory.mktemp("attention")
    write_dataset(root / "data", Line(), {"train": 64, "val": 8, "test": 8}, builder="line", shard_size=64)
    cfg = tiny_config(
        root / "data", root / "run", model={"n_layers": 2}, trainer={"val_check_interval": 1000, "checkpoint_every_n_steps": 1000}
    )
    return fit(load_config(overrides=cfg)), root / "data"


@pytest.mark.parametrize("value_path", ["layernorm", "linear", "linear_mlp"])
@pytest.mark.parametrize("positions", ["learned", "rope"])
def test_the_weights_are_what_the_block_applies(value_path, positions):
    """weights @ values reproduces scaled_dot_product_attention's output; rows sum to 1; padding
    gets no weight."""
    torch.manual_seed(0)
    cfg = ModelConfig(
        vocab_size=11,
        num_dim=1,
        combine="multiply",
        d_model=16,
        n_layers=2,
        n_heads=4,
        positions=positions,
        value_path=value_path,
        max_positions=16,
    )
    trunk = Transformer(cfg).eval()
    ids = torch.randint(0, 11, (3, 9))
    feats = torch.randn(3, 9, 1)
    attend = torch.ones(3, 9, dtype=torch.bool)
    attend[1, 6:] = False
    maps = trunk.attention_maps(ids, feats, attend)
    assert len(maps) == 2 and maps[0].shape == (3, 4, 9, 9)
    x = trunk.embed(ids, feats)
    rope, mask = trunk._rope_and_mask(x, attend)
    for block, w in zip(trunk.blocks, maps):
        q, k, v = block._qkv(x, rope)
        torch.testing.assert_close(w @ v, F.scaled_dot_product_attention(q, k, v, attn_mask=mask), rtol=1e-5, atol=1e-6)
        x = block(x, rope, mask)
    for w in maps:
        torch.testing.assert_close(w.sum(-1), torch.ones(3, 4, 9))
        assert float(w[1, :, :, 6:].abs().max()) == 0.0


def test_shares_add_up_per_path(ckpt):
    path, data = ckpt
    model = scinum.load(path)
    records = [Line()(1000 + i)[0] for i in range(6)]
    report = attention_report(model, records, "params.a")
    assert report.records == 6 and sorted(report.share) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    for shares in report.share.values():
        assert sum(shares.values()) == pytest.approx(1.0, abs=1e-6)
        assert "params.a" not in shares  # the hidden number is a [MASK]: counted with the rest
        assert OTHER in shares and "points[0][1]" in shares and "points[4][0]" in shares  # 5-point records exist
    # by hand for one record: layer 0 head 1's weight on points[2][0]'s token
    one = attention_report(model, records[:1], "params.a")
    enc, paths = model.codec.encode_with_paths(records[0])
    from scinum.tokens.batch import hidden_positions, make_batch

    hide = hidden_positions(model.codec, records[0], ["params.a"])
    b = make_batch([enc], [hide], codec=model.codec, normalizer=model.normalizer, encoding=model.encoding, structure=True)
    maps = model.model.trunk.attention_maps(b["ids"], b["feats"], b["attend"], b["structure"])
    key = [i for i, p in zip(model.codec.number_starts(enc.ids), paths) if p == ("points", 2, 0)][0]
    query = int(hide.nonzero()[0][0])
    assert one.share[(0, 1)]["points[2][0]"] == pytest.approx(float(maps[0][0, 1, query, key]), rel=1e-6)
    assert one.total(["points[2][0]", OTHER])[(0, 1)] == pytest.approx(one.share[(0, 1)]["points[2][0]"] + one.share[(0, 1)][OTHER])


def test_the_command_prints_and_writes_the_same_shares(ckpt, tmp_path, capsys):
    path, data = ckpt
    out = tmp_path / "att.csv"
    assert main(["attention", "--model", str(path), "--records", str(data), "--field", "params.a", "--limit", "5", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "mean over 5 records" in text and "layer 1 head 1:" in text
    rows = list(csv.DictReader(out.open()))
    records = [r for _, _, r in _test_records(data)][:5]
    report = attention_report(scinum.load(path), records, "params.a")
    for r in rows:
        assert float(r["share"]) == pytest.approx(report.share[(int(r["layer"]), int(r["head"]))][r["path"]], rel=1e-9)
    assert len(rows) == sum(len(s) for s in report.share.values())


def _test_records(data):
    from scinum.datasets.directory import Dataset

    return Dataset(data).located_records("test")


def test_bad_input_is_named(ckpt, tmp_path, capsys):
    path, data = ckpt
    f = tmp_path / "some.jsonl"
    f.write_text(json.dumps(Line()(1)[0]) + "\n" + json.dumps({"params": {}, "points": [[0.1, 0.2]]}) + "\n")
    with pytest.raises(RecordError, match=r"some\.jsonl:2, path params\.a: mask 'params\.a' matches no field"):
        attention_report(
            scinum.load(path), ((str(f), 1 + i, r) for i, r in enumerate(json.loads(t) for t in f.read_text().splitlines())), "params.a"
        )
    assert main(["attention", "--model", str(path), "--records", str(f), "--field", "params.a"]) == 1
    assert "some.jsonl:2" in capsys.readouterr().err
    assert main(["attention", "--model", str(path), "--records", str(data), "--split", "nope", "--field", "params.a"]) == 1
    assert "no split 'nope'" in capsys.readouterr().err


def test_a_number_spelled_in_several_tokens_counts_once_per_path(tmp_path, one_thread):
    """P10 spells a number in 5 tokens: the hidden number's tokens all ask, and a visible number's
    tokens add up under its one path; shares still sum to 1 per head."""
    write_dataset(tmp_path / "data", Line(), {"train": 32, "val": 8}, builder="line", shard_size=64)
    cfg = tiny_config(
        tmp_path / "data",
        tmp_path / "run",
        encoding={"name": "p10"},
        trainer={"max_steps": 3, "val_check_interval": 1000, "checkpoint_every_n_steps": 1000},
    )
    model = scinum.load(fit(load_config(overrides=cfg)))
    assert model.codec.tokens_per_number == 5
    record = Line()(7)[0]
    report = attention_report(model, [record], "params.a")
    n_points = len(record["points"])
    for shares in report.share.values():
        assert sum(shares.values()) == pytest.approx(1.0, abs=1e-6)
        assert set(shares) == {OTHER} | {f"points[{i}][{j}]" for i in range(n_points) for j in range(2)}
