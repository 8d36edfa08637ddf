"""The curvature penalty (scinum.model.curvature): exact on functions whose second derivative is
known, zero on straight ones, records whose moved values the encoding cannot hold left in place,
and wired into the training loss."""

import math

import pytest
import torch

from scinum import encodings
from scinum.heads import make_head
from scinum.tokens.batch import hidden_rows
from scinum.model.curvature import Curvature, stencil
from test_model import _batch, _setup

NUM, MASK = 2, 1  # [NUM] and [MASK]: fixed places of every vocabulary


class _Head:
    """Reads the first hidden feature as the prediction; its point has a gradient."""

    has_smooth_point = True

    def __call__(self, h, logits=None):
        return h[..., 0]

    def smooth_point(self, out):
        return out


class _Stub:
    """A stand-in model: every hidden row of a record predicts ``g`` summed over the record's
    visible values (feats[..., 0], xVal's features), so the second derivative along any unit
    direction is known. It reads the features of any encoding through ``decode``."""

    def __init__(self, g, enc):
        self.g, self.enc, self.head, self.trunk = g, enc, _Head(), self

    def __call__(self, ids, feats, attend=None, rows=None, structure=None):
        visible = ids == NUM
        values = torch.zeros(ids.shape, dtype=torch.float64)
        values[visible] = self.enc.decode(feats[visible])
        total = (self.g(values) * visible).sum(1)  # [B]
        h = total[:, None, None].expand(-1, ids.shape[1], 1)
        return h if rows is None else h.gather(1, rows[..., None])

    def token_logits(self, h):
        return h


def _toy_batch(values, hidden_per_record=2, encoding="xval", **options):
    """Records of visible values (one row each) followed by ``hidden_per_record`` hidden numbers."""
    enc = encodings.get(encoding, **options)
    B, V = values.shape
    ids = torch.cat([torch.full((B, V), NUM), torch.full((B, hidden_per_record), MASK)], 1)
    feats = torch.ones(B, V + hidden_per_record, enc.dim)
    feats[:, :V] = enc.encode(values.double())
    num = torch.cat([torch.zeros(B, V, dtype=torch.bool), torch.ones(B, hidden_per_record, dtype=torch.bool)], 1)
    return {"ids": ids, "feats": feats, "attend": torch.ones_like(num), "num_hidden": num}, enc


def _penalty(g, batch, enc, weight=1.0, step=0.5, share=1.0, reach=0.0):
    """The penalty of the stub model ``g`` on ``batch``: the stencil's copies read as the trunk reads them."""
    model = _Stub(g, enc)
    point = model(batch["ids"], batch["feats"])[batch["num_hidden"]][..., 0]
    st = stencil(batch, Curvature(weight, step, share, enc, reach))
    if st is None:
        return torch.zeros(())
    rows = st.rows(batch)
    return st.penalty(point, model(rows["ids"], rows["feats"])[rows["num_hidden"]][..., 0])


def test_a_straight_prediction_pays_nothing_and_a_parabola_pays_its_second_derivative_squared():
    torch.manual_seed(0)
    batch, enc = _toy_batch(torch.randn(5, 3))
    assert float(_penalty(lambda v: 3 * v - 1, batch, enc)) == pytest.approx(0, abs=1e-6)
    # c·Σv²: second derivative 2c along every unit direction, whatever the step
    for step in (0.1, 1.0, 3.0):
        assert float(_penalty(lambda v: 0.7 * v**2, batch, enc, weight=2.0, step=step)) == pytest.approx(2.0 * 1.4**2, rel=1e-4)


def test_with_a_reach_lines_still_pay_nothing_parabolas_their_second_derivative_and_it_reads_farther_out():
    torch.manual_seed(0)
    batch, enc = _toy_batch(torch.randn(5, 3))
    assert float(_penalty(lambda v: 3 * v - 1, batch, enc, reach=4.0)) == pytest.approx(0, abs=1e-5)
    assert float(_penalty(lambda v: 0.7 * v**2, batch, enc, weight=2.0, reach=4.0)) == pytest.approx(2.0 * 1.4**2, rel=1e-4)
    # v³ at v = 0 along u = ±1: the parabola through -s, 0 and s + c bends by ±2c; c ~ U(0, r)
    # makes the mean square 4 r²/3, where the symmetric stencil (reach 0) reads nothing
    batch, enc = _toy_batch(torch.zeros(4000, 1), hidden_per_record=1)
    cubic = lambda v: v**3  # noqa: E731
    assert float(_penalty(cubic, batch, enc, step=0.5)) == pytest.approx(0, abs=1e-6)
    assert float(_penalty(cubic, batch, enc, step=0.5, reach=3.0)) == pytest.approx(4 * 3.0**2 / 3, rel=0.1)


def test_the_penalty_reads_the_share_of_the_batch_it_is_given():
    values = torch.zeros(4, 2)
    values[2:] = 1.0  # the last two records show values where a cubic bends more
    batch, enc = _toy_batch(values)
    cubic = lambda v: v**3  # noqa: E731  second derivative 6v along each coordinate
    half, whole = _penalty(cubic, batch, enc, share=0.5, step=1e-3), _penalty(cubic, batch, enc, share=1.0, step=1e-3)
    assert float(half) == pytest.approx(0, abs=1e-3)  # only the first two records (values 0)
    assert float(whole) > 1.0


def test_a_record_whose_moved_values_the_encoding_cannot_hold_stays_in_place():
    # FoNE with one integer digit holds |x| < 10: a record at 9.9 cannot move by 0.5 and pays nothing
    batch, enc = _toy_batch(torch.tensor([[9.9, 0.0], [1.0, 2.0]]), encoding="fone", int_digits=1, frac_digits=3)
    parabola = lambda v: v**2  # noqa: E731
    both = _penalty(parabola, batch, enc, step=0.5)
    assert float(both) == pytest.approx(0.5 * 2.0**2, rel=1e-3)  # the second record's 4, over both records' rows


def test_training_loss_adds_the_penalty_and_it_trains_the_model():
    vocab, seqs, norm, enc, model = _setup("xval", value_path="linear_mlp")
    batch = _batch(vocab, seqs, [torch.rand(len(s)).numpy() < 0.3 for s in seqs], norm, enc)
    model.train()
    torch.manual_seed(1)
    plain = model.losses(batch)
    torch.manual_seed(1)
    res = model.losses(batch, curvature=Curvature(5.0, 1.0, 1.0, enc))
    assert "curvature" not in plain and res["curvature"].item() > 0
    assert res["loss"].item() == pytest.approx((plain["loss"] + res["curvature"]).item(), rel=1e-5)
    res["curvature"].backward()
    grads = [p.grad for p in model.trunk.parameters() if p.grad is not None]
    assert grads and any(float(g.abs().sum()) > 0 for g in grads)
    model.eval()  # never in evaluation: what is measured is the fit
    assert "curvature" not in model.losses(batch, curvature=Curvature(5.0, 1.0, 1.0, enc))


@pytest.mark.parametrize("reach", [0.0, 2.0])
def test_the_copies_in_the_steps_own_pass_give_the_penalty_of_separate_passes_over_the_moved_records(reach):
    """The trunk appends the stencil's copies to its batch (one forward pass); the penalty is the
    one that a separate pass at x + (step + c)·u and at x − step·u (only the hidden rows in the last block) gives."""
    vocab, seqs, norm, enc, model = _setup("xval", positions="structure", value_path="linear_mlp")
    with torch.no_grad():  # weights 4x their initial scale: a model that bends, so the penalty is far above rounding
        for p in model.parameters():
            p.mul_(4)
    torch.manual_seed(0)
    batch = _batch(vocab, seqs, [torch.rand(len(s)).numpy() < 0.3 for s in seqs], norm, enc)
    model.train()
    spec = Curvature(5.0, 1.0, 0.5, enc, reach)
    torch.manual_seed(3)
    fused = model.losses(batch, curvature=spec)["curvature"]
    torch.manual_seed(3)
    st = stencil(batch, spec)
    assert st is not None and st.n_hidden > 0 and len(st.far) < len(batch["ids"])
    take, num = len(st.far), batch["num_hidden"]
    rows, valid = hidden_rows(num[:take])

    def point_at(feats, ids=batch["ids"][:take], attend=batch["attend"][:take], structure=batch["structure"][:take]):
        h = model(ids, feats, attend, rows, structure)[valid]
        return model.head.smooth_point(model.head(h, model.trunk.token_logits(h)))

    h = model(batch["ids"], batch["feats"], batch["attend"], structure=batch["structure"])[num]
    point = model.head.smooth_point(model.head(h, model.trunk.token_logits(h)))
    separate = st.penalty(point, torch.cat([point_at(st.feats[:take]), point_at(st.feats[take:])]))
    assert float(fused) > 1e-3 and float(fused) == pytest.approx(float(separate), rel=1e-4)


def test_the_mixture_heads_smooth_point_is_its_mean_with_a_gradient():
    enc = encodings.get("xval")
    head = make_head(enc, 16, {"kind": "mixture"})
    out = head(torch.randn(7, 16, requires_grad=True))
    smooth = head.smooth_point(out)
    assert smooth.requires_grad
    assert torch.allclose(smooth.double(), head.uncertainty(out)["mean"], atol=1e-6)
    assert head.has_smooth_point and not make_head(encodings.get("fone"), 16).has_smooth_point
    assert math.isfinite(float(smooth.sum()))
