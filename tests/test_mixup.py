"""Mixup of records (scinum.model.mixup): partners share a layout, the mixed record hides what either
hides and shows the mixed values, a function linear in the record pays nothing, and the loss is
wired into training only."""

import pytest
import torch

from scinum import encodings
from scinum.model.mixup import Mixup, mixup_loss, partners
from test_model import _batch, _setup

PAD, MASK, NUM = 0, 1, 2  # fixed places of every vocabulary


class _SquareHead:
    """The prediction is the first hidden feature; its loss the squared error."""

    def __call__(self, h, logits=None):
        return h[..., 0]

    def loss(self, out, target):
        self.targets = target
        return (out.double() - target) ** 2


class _Stub:
    """Every hidden row of a record predicts ``g`` of the sum of the record's visible values;
    remembers what it was called with."""

    def __init__(self, g, enc):
        self.g, self.enc, self.head, self.trunk, self.calls = g, enc, _SquareHead(), self, []

    def __call__(self, ids, feats, attend=None, rows=None, structure=None):
        self.calls.append((ids, feats))
        visible = ids == NUM
        values = torch.zeros(ids.shape, dtype=torch.float64)
        values[visible] = self.enc.decode(feats[visible]).double()
        h = self.g(values.sum(1))[:, None, None].expand(-1, ids.shape[1], 1)
        return h if rows is None else h.gather(1, rows[..., None])

    def token_logits(self, h):
        return h


def _toy_batch(values, hidden, enc):
    """Records of one layout: ``values`` float[B, V], ``hidden`` bool[B, V] (the numbers hidden)."""
    B, V = values.shape
    ids = torch.where(hidden, MASK, NUM)
    feats = torch.zeros(B, V, enc.dim)
    feats[~hidden] = enc.encode(values[~hidden].double()).float()
    return {
        "ids": ids,
        "feats": feats,
        "attend": torch.ones(B, V, dtype=torch.bool),
        "targets": torch.where(hidden, NUM, -100),
        "num_hidden": hidden.clone(),
        "num_target": values[hidden].double(),
    }


def test_partners_share_a_row_and_are_never_the_record_itself_unless_alone():
    tokens = torch.tensor([[1, 2], [3, 4], [1, 2], [1, 2], [3, 4], [9, 9]])
    seen = {i: set() for i in range(len(tokens))}
    for seed in range(50):
        p = partners(tokens, torch.Generator().manual_seed(seed))
        for i, j in enumerate(p.tolist()):
            assert torch.equal(tokens[i], tokens[j])
            seen[i].add(j)
    assert seen == {0: {2, 3}, 1: {4}, 2: {0, 3}, 3: {0, 2}, 4: {1}, 5: {5}}


def test_a_prediction_linear_in_the_record_pays_nothing_and_a_bent_one_pays():
    torch.manual_seed(0)
    enc = encodings.get("xval")
    x = torch.randn(16, 3)
    values = torch.cat([x, x.sum(1, keepdim=True)], 1)  # the hidden last number is the others' sum
    hidden = torch.zeros(16, 4, dtype=torch.bool)
    hidden[:, 3] = True
    batch = _toy_batch(values, hidden, enc)
    assert float(mixup_loss(_Stub(lambda s: s, enc), batch, Mixup(1.0, 1.0, enc))) == pytest.approx(0, abs=1e-10)
    assert float(mixup_loss(_Stub(lambda s: s**2, enc), batch, Mixup(1.0, 1.0, enc))) > 0.1


def test_the_mixed_record_hides_what_either_hides_and_shows_the_mixed_values():
    enc = encodings.get("xval")
    values = torch.tensor([[1.0, 2.0, 3.0], [5.0, 7.0, 11.0]])
    hidden = torch.tensor([[False, False, True], [False, True, False]])
    model = _Stub(lambda s: s, enc)
    torch.manual_seed(3)
    loss = mixup_loss(model, _toy_batch(values, hidden, enc), Mixup(2.0, 0.5, enc))  # record 0 only, its partner 1
    ((ids, feats),) = model.calls
    assert ids.tolist() == [[NUM, MASK, MASK]]
    lam = (float(enc.decode(feats[0, :1]).item()) - 5.0) / (1.0 - 5.0)
    assert 0 <= lam <= 1
    mixed = lam * values[0] + (1 - lam) * values[1]
    assert model.head.targets.tolist() == pytest.approx(mixed[1:].tolist())
    assert float(loss) == pytest.approx(2.0 * float(((mixed[0] - mixed[1:]) ** 2).mean()), rel=1e-5)


def test_with_a_reach_mixed_records_go_past_either_record_and_a_line_still_pays_nothing():
    enc = encodings.get("xval")
    values = torch.tensor([[1.0, 2.0, 3.0], [5.0, 7.0, 12.0]])  # the last number is the others' sum
    hidden = torch.tensor([[False, False, True], [False, False, True]])
    lams = []
    for seed in range(40):
        model = _Stub(lambda s: s, enc)
        torch.manual_seed(seed)
        loss = mixup_loss(model, _toy_batch(values, hidden, enc), Mixup(1.0, 0.5, enc, reach=0.5))
        assert float(loss) == pytest.approx(0, abs=1e-9)
        lams.append((float(enc.decode(model.calls[0][1][0, :1]).item()) - 5.0) / (1.0 - 5.0))
    assert -0.5 <= min(lams) < 0 and 1 < max(lams) <= 1.5


def test_a_pair_whose_mixed_values_the_encoding_cannot_hold_is_left_out():
    # FoNE with one integer digit holds |x| < 10: 9 and 1 mixed past 9 by up to 4 cannot be held
    enc = encodings.get("fone", int_digits=1, frac_digits=3, strict=False)
    values = torch.tensor([[9.0, 0.0], [1.0, 0.0]])
    hidden = torch.tensor([[False, True], [False, True]])
    dropped = 0
    for seed in range(40):
        model = _Stub(lambda s: s, enc)
        torch.manual_seed(seed)
        mixup_loss(model, _toy_batch(values, hidden, enc), Mixup(1.0, 0.5, enc, reach=0.5))
        if not model.calls:
            dropped += 1
        else:
            assert abs(float(enc.decode(model.calls[0][1][0, :1]).item())) < 10
    assert 0 < dropped < 40


def test_records_of_different_layouts_are_not_mixed():
    enc = encodings.get("xval")
    batch = _toy_batch(torch.ones(2, 3), torch.tensor([[False, False, True], [False, False, True]]), enc)
    batch["ids"][1, 0] = 7  # another key where the first record has a number
    model = _Stub(lambda s: s, enc)
    assert float(mixup_loss(model, batch, Mixup(1.0, 1.0, enc))) == 0 and not model.calls


def test_training_loss_adds_mixup_and_it_trains_the_model():
    vocab, seqs, norm, enc, model = _setup("xval", value_path="linear_mlp")
    seqs = [seqs[0]] * 4  # one layout
    batch = _batch(vocab, seqs, [torch.rand(len(s)).numpy() < 0.3 for s in seqs], norm, enc)
    model.train()
    torch.manual_seed(1)
    plain = model.losses(batch)
    torch.manual_seed(1)
    res = model.losses(batch, mixup=Mixup(1.0, 1.0, enc))
    assert "mixup" not in plain and res["mixup"].item() > 0
    assert res["loss"].item() == pytest.approx((plain["loss"] + res["mixup"]).item(), rel=1e-5)
    res["mixup"].backward()
    assert any(float(p.grad.abs().sum()) > 0 for p in model.trunk.parameters() if p.grad is not None)
    model.eval()  # never in evaluation
    assert "mixup" not in model.losses(batch, mixup=Mixup(1.0, 1.0, enc))
