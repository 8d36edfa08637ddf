"""A value a continuous field piles up on in training is recorded as its atom
(scinum.util.provenance), and a fill puts a prediction closer to it than half its gap exactly on
it, interval and all (scinum.fill.atoms); other predictions and other fields never move."""

import random
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scinum.fill.atoms import TrainingAtoms
from scipy.special import ndtri

from scinum.fill.between_values import Z95
from scinum.fill.past_range import WIDEN
from scinum.util.provenance import ATOM_ISOLATION, ATOM_SHARE, MAX_DISTINCT, field_ranges

from conftest import fit_asked_field  # tests/conftest.py


def _chunks(fids: np.ndarray, vals: np.ndarray, size: int):
    parts = [(fids[a : a + size], vals[a : a + size]) for a in range(0, len(fids), size)]
    return lambda: iter(parts)


def _exact_atom(vals: np.ndarray) -> dict | None:
    """The atom as its definition says, from every value at once."""
    u, c = np.unique(vals, return_counts=True)
    if len(u) <= MAX_DISTINCT or c.max() < ATOM_SHARE * len(vals):
        return None
    atom = u[c.argmax()]
    sides = sorted((d for d in (np.sort(atom - u[u < atom]), np.sort(u[u > atom] - atom)) if len(d)), key=lambda d: d[0])
    gap = float(sides[0][0])
    d = next((d for d in sides if len(d) > 1), sides[0])[:9]  # a value and the 8 beyond it, on one side
    if len(d) > 1 and gap < ATOM_ISOLATION * (d[-1] - d[0]) / (len(d) - 1):
        return None
    return {"value": float(atom), "count": int(c.max()), "gap": gap}


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(40, 600),
    share=st.sampled_from([0.0, 0.02, 0.049, 0.06, 0.3]),
    late=st.booleans(),
    apart=st.booleans(),
    size=st.integers(7, 200),
    seed=st.integers(0, 2**16),
)
def test_the_recorded_atom_is_the_one_counted_over_all_values(n, share, late, apart, size, seed):
    """One pass of bounded counters then an exact second pass find what counting every value
    finds, whatever the chunking and wherever the pile sits (all of it in the last chunks too),
    standing apart from the other values (at 1.0, the others in [2, 3]) or among them."""
    rng = np.random.default_rng(seed)
    vals = (rng.uniform(2, 3, size=n) if apart else rng.uniform(0, 2, size=n)).round(4)
    k = int(share * n)
    pile = slice(n - k, n) if late else slice(0, k)
    vals[pile] = 1.0
    fids = np.zeros(n, np.int32)
    got = field_ranges(["x"], _chunks(fids, vals, size))["x"].get("atom")
    assert got == _exact_atom(vals)
    if apart and share >= ATOM_SHARE and n - k > 2 * ATOM_ISOLATION:
        assert got is not None and got["value"] == 1.0 and got["count"] == k


def test_grids_rounded_and_continuous_fields_have_no_atom_and_the_counts_are_exact():
    rng = np.random.default_rng(0)
    x = rng.uniform(2, 3, size=3000)
    x[::3] = 1.0  # a third of the numbers, 1.0 from the rest
    grid = rng.choice([0.2, 0.3, 0.5, 0.8], 3000)  # few values: a grid, not an atom (between_values)
    rounded = np.minimum(rng.exponential(0.5, 3000), 2.5).round(1)  # a mode among its neighbours, 0.1 apart
    smooth = rng.normal(size=3000)
    fids = np.repeat(np.arange(4, dtype=np.int32), 3000)
    ranges = field_ranges(["x", "grid", "rounded", "smooth"], _chunks(fids, np.r_[x, grid, rounded, smooth], 1000))
    rest = x[x != 1.0]
    assert ranges["x"]["atom"] == {"value": 1.0, "count": 1000, "gap": float(rest.min() - 1.0)}
    assert "atom" not in ranges["grid"] and ranges["grid"]["values"] == [0.2, 0.3, 0.5, 0.8]
    u, c = np.unique(rounded, return_counts=True)
    assert len(u) > MAX_DISTINCT and c.max() > ATOM_SHARE * len(rounded) and "atom" not in ranges["rounded"]
    assert "atom" not in ranges["smooth"]


def test_shift_moves_what_lies_within_half_the_gap_and_the_predictions_reach_onto_the_atom():
    vocab = SimpleNamespace(field_index={"a": 0, "x": 1})
    run = {
        "train_ranges": {"a": {"count": 100, "min": 0.0, "max": 3.0, "atom": {"value": 1.0, "count": 30, "gap": 0.2}}, "x": {"count": 9}}
    }
    atoms = TrainingAtoms(vocab, run)
    fids = np.array([0, 0, 0, 0, 0, 0, 1])
    pred = np.array([1.05, 0.91, 1.1, 1.5, 1.06, 1.02, 1.01])
    # 1.1: at half the gap; 1.06: 0.06 from the atom, past its reach 0.039; 1.02: its reach 0.216 spans the gap
    std = np.array([0.05, 0.05, 0.05, 0.05, 0.02, 0.11, 0.05])
    np.testing.assert_allclose(atoms.shift(fids, pred, std), [-0.05, 0.09, 0.0, 0.0, 0.0, 0.0, 0.0])
    assert not atoms.shift(fids, pred, None).any()  # a head without a spread
    assert not TrainingAtoms(vocab, {}).shift(fids, pred, std).any()


class Orbits:
    """``{"a": a, "b": b}``: a is exactly 1.0 in half the records, else 2 + b; b continuous."""

    def __call__(self, i):
        r = random.Random(i)
        b = round(r.uniform(0, 1), 4)
        return {"a": 1.0 if i % 2 else 2.0 + b, "b": b}, None


@pytest.fixture(scope="module")
def model(tmp_path_factory, one_thread_module):
    return fit_asked_field(tmp_path_factory.mktemp("atoms"), Orbits(), "a", shard_size=40)


def test_the_checkpoint_records_the_atom_and_a_fill_next_to_it_lands_on_it(model):
    """Trained on records where a = 1.0 half the time (the others 2.0 and up), the checkpoint
    records a's atom. With an atom placed near the plain prediction, the fill's value, mean and
    interval move onto it when it lies within half its gap and the prediction's own reach, the
    spread widened by half the move (quantiles outwards by Φ⁻¹(p) of it); nothing moves when it
    lies past either, or when that reach spans the gap."""
    aid = model.vocab.field_index["a"]
    value, radius = model.training_atoms.atoms[aid]
    assert value == 1.0 and radius == pytest.approx(min(2.0 + random.Random(i).uniform(0, 1) for i in range(0, 96, 2)) / 2 - 0.5, abs=1e-4)
    assert model.vocab.field_index["b"] not in model.training_atoms.atoms
    rec = {"a": None, "b": 0.5}
    model.training_atoms = TrainingAtoms(model.vocab, {})
    plain = model.predict(rec, ["a"], intervals=(0.9,)).predictions[0]
    reach = Z95 * plain.uncertainty["std"]
    cases = ((reach / 2, 4 * reach, True), (1.5 * reach, 8 * reach, False), (reach / 2, reach / 2, False), (reach / 10, 0.9 * reach, False))
    for move, gap, lands in cases:
        atom = {"value": plain.value + move, "count": 48, "gap": gap}
        model.training_atoms = TrainingAtoms(model.vocab, {"train_ranges": {"a": {"atom": atom}}})
        got = model.predict(rec, ["a"], intervals=(0.9,)).predictions[0]
        shift = move if lands else 0.0
        out = WIDEN * shift * ndtri(0.95)  # the 90 % interval's upper quantile moves outwards by this
        assert got.value == pytest.approx(plain.value + shift, abs=1e-9)
        assert got.uncertainty["mean"] == pytest.approx(plain.uncertainty["mean"] + shift, abs=1e-9)
        lo, hi = plain.uncertainty["interval_90"]
        assert got.uncertainty["interval_90"] == pytest.approx([lo + shift - out, hi + shift + out], abs=1e-9)
        assert got.uncertainty["std"] == pytest.approx(np.hypot(plain.uncertainty["std"], WIDEN * shift))
