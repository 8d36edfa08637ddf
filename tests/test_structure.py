"""JSON-structure positions: every token's list indices, and the trunk that embeds them."""

import numpy as np
import pytest
import torch
from hypothesis import given

from scinum import encodings
from scinum.heads import make_head
from scinum.model.config import ModelConfig
from scinum.model.mlm import NumberMLM
from scinum.tokens.batch import make_batch
from scinum.tokens.codec import Codec, Vocabulary
from scinum.tokens.normalize import Normalizer
from scinum.tokens.structure import COLUMNS, DEPTH, list_indices

from conftest import json_records  # tests/conftest.py


def _planets_like(n_planets: int, steps: int, offset: float = 0.0) -> dict:
    return {
        "description": {f"planet{j}": {"m": 1.0 + j, "a": 1.0 + j / 2} for j in range(n_planets)} | {"stepsize": 0.2},
        "data": [[[offset + k + j / 10, -k - j / 10] for j in range(n_planets)] for k in range(steps)],
    }


def _indices_of_path(path: tuple) -> list[int]:
    return [p for p in path if isinstance(p, int)]


def _lengths_along(record, path: tuple) -> list[int]:
    """Lengths of the lists the path goes through (outermost first)."""
    out, node = [], record
    for p in path:
        if isinstance(p, int):
            out.append(len(node))
        node = node[p]
    return out


@given(json_records)
def test_numbers_carry_their_json_list_indices(record):
    """Property: the row of every number token holds the list indices of its JSON path, from the
    start and from the end, for the DEPTH outermost lists; -1 beyond."""
    codec = Codec(Vocabulary.build([record]))
    enc = codec.encode(record)
    rows = list_indices(enc.ids, codec)
    starts = codec.number_starts(enc.ids)
    paths = codec.number_paths(record)
    assert len(starts) == len(paths)
    for pos, path in zip(starts, paths):
        fwd = _indices_of_path(path)[:DEPTH]
        rev = [n - 1 - i for n, i in zip(_lengths_along(record, path)[:DEPTH], fwd)]
        pad = [-1] * (DEPTH - len(fwd))
        assert rows[pos].tolist() == fwd + pad + rev + pad + [0], (path, rows[pos])
    assert rows.shape == (len(enc.ids), COLUMNS)
    assert (rows[np.setdiff1d(np.arange(len(enc.ids)), starts), -1] == -1).all()


def test_same_place_same_indices_in_any_layout():
    """data[3][1][0] has the same indices from the start whether the record has 2 or 4 planets
    (its flat position differs); from the end it is planet 1 of 2 or of 4."""
    small, large = _planets_like(2, 12), _planets_like(4, 12)
    codec = Codec(Vocabulary.build([small, large]))
    rows = {}
    for name, rec in (("small", small), ("large", large)):
        enc = codec.encode(rec)
        at = {p: s for p, s in zip(codec.number_paths(rec), codec.number_starts(enc.ids))}
        rows[name] = (list_indices(enc.ids, codec), at)
    (rs, at_s), (rl, at_l) = rows["small"], rows["large"]
    path = ("data", 3, 1, 0)
    assert at_s[path] != at_l[path]  # other flat positions
    assert rs[at_s[path]].tolist() == [3, 1, 0, -1, 8, 0, 1, -1, 0]
    assert rl[at_l[path]].tolist() == [3, 1, 0, -1, 8, 2, 1, -1, 0]  # planet 1 of 4: third from the end


def test_text_spellings_give_every_token_of_a_number_its_row():
    rec = {"v": [1.5, 2.25, [3.0]]}
    enc_p10 = encodings.get("p10")
    codec = Codec(Vocabulary.build([rec], number_tokens=enc_p10.vocabulary()), enc_p10)
    enc = codec.encode(rec)
    rows = list_indices(enc.ids, codec)
    starts = codec.number_starts(enc.ids)
    k = codec.tokens_per_number
    for s, want in zip(starts, ([0, 2], [1, 1], [2, 0])):
        assert all(rows[t, 0] == want[0] and rows[t, DEPTH] == want[1] for t in range(s, s + k))
        assert rows[s : s + k, -1].tolist() == list(range(k))  # the place of each digit
    assert rows[starts[2], 1] == 0  # 3.0 is element 0 of the inner list


def _structure_model(records, seed=0):
    vocab = Vocabulary.build(records)
    codec = Codec(vocab)
    enc = encodings.get("xval")
    seqs = [codec.encode(r) for r in records]
    norm = Normalizer.fit(vocab.fields, [(s.fields, s.values) for s in seqs], enc.default_normalizer)
    cfg = ModelConfig(
        vocab_size=len(vocab),
        num_dim=1,
        combine="multiply",
        d_model=32,
        n_layers=2,
        n_heads=4,
        positions="structure",
        max_positions=64,
        n_fields=len(vocab.fields),
    )
    torch.manual_seed(seed)
    return codec, seqs, norm, enc, NumberMLM(cfg, make_head(enc, 32)).eval()


def test_trunk_input_of_a_number_does_not_depend_on_its_flat_position():
    """With positions 'structure' the first block's input at data[3][1][0] is the same in two
    records where tokens before it shift it by 4 positions; no flat position table exists."""
    small = _planets_like(2, 6)
    large = {"description": {**small["description"], "note": 7.0, "extra": 2.5}, "data": small["data"]}
    codec, seqs, norm, enc, model = _structure_model([small, large])
    assert model.trunk.pos is None
    batches = [make_batch([s], [np.zeros(len(s), bool)], codec=codec, normalizer=norm, encoding=enc, structure=True) for s in seqs]
    got = []
    for rec, s, b in zip((small, large), seqs, batches):
        at = dict(zip(codec.number_paths(rec), codec.number_starts(s.ids)))[("data", 3, 1, 0)]
        got.append(at)
        with torch.no_grad():
            got.append(model.trunk.embed(b["ids"], b["feats"], b["structure"])[0, at])
    assert got[2] == got[0] + 4
    assert torch.equal(got[1], got[3])


def test_structure_trunk_refuses_a_batch_without_structure():
    codec, seqs, norm, enc, model = _structure_model([_planets_like(2, 3)])
    b = make_batch(seqs, [np.zeros(len(seqs[0]), bool)], codec=codec, normalizer=norm, encoding=enc)
    with pytest.raises(ValueError, match="needs the batch's structure"):
        model.predict(b)


def test_checkpoints_without_n_fields_still_load_their_config():
    cfg = ModelConfig(vocab_size=10, d_model=32, n_heads=4, max_positions=8)
    d = cfg.to_dict()
    del d["n_fields"]
    assert ModelConfig.from_dict(d) == cfg
