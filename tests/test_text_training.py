"""Text encodings (P10/P1000/B1999/FP15) on the shared training, fill and evaluation paths."""

import json
import math
import random

import numpy as np
import pytest
import torch

from scinum import encodings
from scinum.analysis.evaluate import evaluate
from scinum.model.checkpoint import CheckpointMeta
from scinum.tokens.codec import Codec, Vocabulary
from scinum.train.config import load_config, resolve_normalizer
from scinum.tokens.batch import hidden_positions, make_batch
from scinum.train.masking import MLMCollator
from scinum.train.data import MLMDataModule
from scinum.heads import TokenHead, make_head
from scinum.fill.model import load
from scinum.model.config import ModelConfig
from scinum.tokens.normalize import Normalizer
from scinum.train.module import MLMModule
from scinum.train.fit import fit

from conftest import tiny_config  # tests/conftest.py

SCHEMES = ["p10", "p1000", "b1999", "fp15"]
RECORDS = [{"name": f"r{i}", "x": x, "y": [round(0.1 * i, 2), 2.5]} for i, x in enumerate([1.25, -3.5, 7.75, 0.5, 12.125, -0.25])]


pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def _text_setup(name, records):
    enc = encodings.get(name)
    vocab = Vocabulary.build(records, number_tokens=enc.vocabulary())
    codec = Codec(vocab, enc)
    seqs = [codec.encode(r) for r in records]
    norm = Normalizer.fit(
        vocab.fields, [(s.fields, s.values) for s in seqs], resolve_normalizer({"head": {"kind": "native"}, "normalizer": None}, enc)
    )
    return enc, vocab, codec, seqs, norm


@pytest.mark.parametrize("name", SCHEMES)
def test_a_masked_number_masks_all_its_tokens(name):
    enc, vocab, codec, seqs, norm = _text_setup(name, RECORDS)
    k = enc.tokens_per_number
    col = MLMCollator(vocab, norm, enc, mask_prob=0.3, seed=3)
    hidden = total = 0
    for batch_seed in range(40):
        b = col([(s, batch_seed) for s in seqs])
        assert b["feats"].shape[-1] == 0  # no number features: the tokens carry the numbers
        for row, s in enumerate(seqs):
            ids, tgt = b["ids"][row].numpy(), b["targets"][row].numpy()
            for a in codec.number_starts(s.ids):
                span = slice(a, a + k)
                masked = ids[span] == vocab.mask_id
                assert masked.all() or not masked.any()  # all or nothing
                if masked.all():  # the true tokens only as targets, never in the input
                    assert (tgt[span] == s.ids[span]).all()
                    hidden += 1
                else:
                    assert (ids[span] == s.ids[span]).all()
                total += 1
    # one decision per number: a number is hidden with probability mask_prob, whatever k
    assert 0.2 < hidden / total < 0.4
    # make_batch widens a hidden token of a number (here a middle/last one) to the whole number
    hide = [np.zeros(len(s), bool) for s in seqs]
    a = codec.number_starts(seqs[0].ids)[0]
    hide[0][a + k - 1] = True
    b = make_batch(seqs, hide, codec=codec, normalizer=norm, encoding=enc, structure=True)
    assert (b["ids"][0, a : a + k] == vocab.mask_id).all() and int(b["num_hidden"].sum()) == k
    assert hidden_positions(codec, RECORDS[0], ["x"]).sum() == k


@pytest.mark.parametrize("name", ["p10", "p1000"])
def test_text_model_trains(name):
    torch.manual_seed(0)
    enc, vocab, codec, seqs, norm = _text_setup(name, RECORDS)
    head = make_head(enc, 16, vocab=vocab)
    assert isinstance(head, TokenHead) and not list(head.parameters())
    mcfg = ModelConfig(
        vocab_size=len(vocab),
        num_dim=enc.dim,
        combine=enc.combine,
        d_model=32,
        n_layers=1,
        n_heads=2,
        max_positions=512,
        n_fields=len(vocab.fields),
    )
    meta = CheckpointMeta(model=mcfg, encoding=enc.config(), vocab=vocab, normalizer=norm)
    optim = {
        "lr": 3e-3,
        "weight_decay": 0.0,
        "betas": [0.9, 0.99],
        "warmup_steps": 5,
        "min_lr_ratio": 0.1,
        "grad_clip": 1.0,
        "number_loss_weight": 1.0,
    }
    module = MLMModule(meta, optim, max_steps=1000)
    col = MLMCollator(vocab, norm, enc, mask_prob=0.3, seed=0, structure=True)
    batch = col([(s, 0) for s in seqs])
    opt = torch.optim.Adam(module.parameters(), lr=3e-3)
    losses = []
    for _ in range(60):
        res = module.losses(batch)
        assert res["number_loss"].item() == 0 and torch.isfinite(res["loss"])
        losses.append(res["loss"].item())
        opt.zero_grad()
        res["loss"].backward()
        opt.step()
    assert losses[-1] < 0.3 * losses[0]
    # a batch that hides nothing gives finite (zero) losses, not NaN
    empty = make_batch(seqs, [np.zeros(len(s), bool) for s in seqs], codec=codec, normalizer=norm, encoding=enc, structure=True)
    assert all(math.isfinite(v.item()) for v in module.losses(empty).values())


def test_text_config_resolution():
    cfg = load_config(None, {"data": {"path": "x"}, "encoding": {"name": "p1000"}})
    enc = encodings.from_config(cfg["encoding"])
    assert resolve_normalizer(cfg, enc) == "none"
    with pytest.raises(ValueError, match="normalizer"):
        resolve_normalizer({**cfg, "normalizer": "minmax"}, enc)
    with pytest.raises(ValueError, match="head must be"):
        make_head(enc, 16, {"kind": "mixture"})


class Toy:
    def __call__(self, i):
        r = random.Random(i)
        return {
            "m": round(r.uniform(1, 5), 2),
            "data": [[round(r.uniform(-2, 2), 2), round(r.uniform(-2, 2), 2)] for _ in range(r.randint(2, 5))],
        }, {}


@pytest.fixture(scope="module")
def dataset(tmp_path_factory, toy_dataset):
    return toy_dataset(tmp_path_factory.mktemp("toy") / "ds", 48, 8, shard_size=32, sample=Toy())


@pytest.fixture(scope="module")
def text_model(dataset, tmp_path_factory, one_thread_module):
    out = tmp_path_factory.mktemp("p1000") / "run"
    trainer = {"max_steps": 12, "val_check_interval": 6, "limit_val_batches": 1, "checkpoint_every_n_steps": 100, "log_every_n_steps": 1}
    cfg = load_config(
        None, tiny_config(dataset, out, encoding={"name": "p1000"}, model={"d_model": 32}, optim={"lr": 3e-3}, trainer=trainer)
    )
    model = load(fit(cfg))
    model.path = out / "model.ckpt"
    return model


def test_version_2_text_checkpoints_load_with_the_same_predictions(text_model, tmp_path):
    """Version 2 built a text trunk as combine="multiply" with features of 1; it loads as the
    same function (combine "none") and predicts exactly what the current file does."""
    old = torch.load(text_model.path, weights_only=True)
    assert old["scinum"]["model"]["combine"] == "none" and old["scinum"]["model"]["num_dim"] == 0
    del old["digest"]  # version 2 wrote none
    old["scinum"]["version"] = 2
    old["scinum"]["model"].update(combine="multiply", num_dim=1)
    torch.save(old, tmp_path / "v2.ckpt")
    v2 = load(tmp_path / "v2.ckpt")
    assert v2.model.trunk.cfg.combine == "none"
    rec = Toy()(5)[0]
    a, b = v2.predict(rec, ["m", "data[-1][*]"]), text_model.predict(rec, ["m", "data[-1][*]"])
    assert [p.uncertainty["tokens"] for p in a.predictions] == [p.uncertainty["tokens"] for p in b.predictions]
    assert [p.uncertainty["p_number"] for p in a.predictions] == [p.uncertainty["p_number"] for p in b.predictions]


def test_text_and_single_token_caches_do_not_mix(dataset, text_model):
    dm_text = MLMDataModule(str(dataset), encodings.get("p1000"), normalizer="none")
    dm_text.prepare()
    dm_xval = MLMDataModule(str(dataset), encodings.get("xval"))
    dm_xval.prepare()
    assert dm_text.shards["train"].path != dm_xval.shards["train"].path
    assert len(dm_text.vocab) == len(dm_xval.vocab) + 920
    assert dm_text.vocab == text_model.vocab
    assert dm_text.shards["train"].lengths.sum() > 2 * dm_xval.shards["train"].lengths.sum()


def _force(model, monkeypatch, tokens):
    """Make the token head predict ``tokens`` (cycled) at the hidden positions of each number."""
    ids = torch.tensor([model.vocab.index[t] for t in tokens])
    k = len(tokens)

    def logits(h):
        out = torch.zeros(h.shape[0], len(model.vocab))
        out[torch.arange(h.shape[0]), ids[torch.arange(h.shape[0]) % k]] = 30.0
        return out

    monkeypatch.setattr(model.model.trunk, "token_logits", logits)


def test_fill_gives_parsed_numbers_or_null(text_model, monkeypatch):
    enc = text_model.encoding
    assert text_model.kind == "tokens"
    rec = Toy()(3)[0]
    res = text_model.predict(rec, ["m", "data[-1][*]"])
    assert len(res.predictions) == 3
    for p in res.predictions:
        u = p.uncertainty
        assert len(u["tokens"]) == 3 and 0 <= u["p_number"] <= 1
        assert u["unparseable"] == (p.value is None)
        assert p.value == enc.parse(u["tokens"])
    json.dumps(res.to_dict(), allow_nan=False)
    # a forced well-formed prediction: +100E-2 = 1.0, jointly and sequentially
    _force(text_model, monkeypatch, ["+", "100", "E-2"])
    for mode in ("joint", "sequential"):
        res = text_model.predict(rec, ["m", "data[-1][*]"], mode=mode)
        assert res.record["m"] == 1.0 and res.record["data"][-1] == [1.0, 1.0]
        assert res.record["data"][0] == rec["data"][0]
        assert all(p.value == 1.0 and p.uncertainty["p_number"] > 0.99 and not p.uncertainty["unparseable"] for p in res.predictions)
    # garbage tokens (sign, exponent, mantissa in the wrong slots) -> null + unparseable
    _force(text_model, monkeypatch, ["E+1", "+", "100"])
    res = text_model.predict(rec, ["m", "data[-1][*]"], mode="sequential")
    assert res.record["m"] is None and res.record["data"][-1] == [None, None]
    assert all(p.value is None and p.uncertainty["unparseable"] and p.uncertainty["tokens"] == ["E+1", "+", "100"] for p in res.predictions)
    text = json.dumps(res.to_dict(), allow_nan=False)
    assert "NaN" not in text and '"unparseable": true' in text
    # null placeholders are filled too
    rec2 = dict(rec, m=None)
    assert text_model.fill(rec2)["m"] is None and rec2["m"] is None


def test_evaluate_text_checkpoint(dataset, text_model, monkeypatch):
    table, preds = evaluate(text_model, dataset, ["m", "data[*][0]"], ["val"])
    assert "unparseable" in table and len(table) == 2 and (table["n"] > 0).all()
    assert table["unparseable"].between(0, 1).all()
    assert preds["pred"].isna().mean() == pytest.approx((table["unparseable"] * table["n"]).sum() / table["n"].sum())
    _force(text_model, monkeypatch, ["+", "100", "E-2"])
    table, preds = evaluate(text_model, dataset, ["m", "data[*][0]"], ["val"])
    assert (table["unparseable"] == 0).all() and np.isfinite(table["mse"]).all()
    assert (preds["pred"] == 1.0).all()
    _force(text_model, monkeypatch, ["-", "E+0", "E+0"])
    table, preds = evaluate(text_model, dataset, ["m"], ["val"])
    assert (table["unparseable"] == 1).all() and preds["pred"].isna().all()
    assert math.isnan(table["mse"][0])


def test_planets_sequence_length_per_encoding():
    """Tokens per planets sample, text vs single-token (xVal paper: P10 ~3.5x, P1000 ~2.3x,
    B1999 ~1.6x; FP15 is one token per number, 1x)."""
    from scinum_simulations.planets import PlanetsConfig, SampleMaker

    make = SampleMaker(PlanetsConfig(), seed=0, split="train")
    recs = [make(i)[0] for i in range(10)]
    single = sum(len(Codec(Vocabulary.build(recs)).encode(r)) for r in recs)
    reference = {"p10": 3.5, "p1000": 2.3, "b1999": 1.6, "fp15": 1.0}
    ratios = {}
    for name, ref in reference.items():
        enc = encodings.get(name)
        codec = Codec(Vocabulary.build(recs, number_tokens=enc.vocabulary()), enc)
        ratios[name] = sum(len(codec.encode(r)) for r in recs) / single
        assert ratios[name] == pytest.approx(ref, rel=0.06), name
    print("tokens per planets sample vs single-token:", ", ".join(f"{n.upper()} {r:.2f}x" for n, r in ratios.items()))
