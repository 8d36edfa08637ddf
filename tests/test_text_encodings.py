"""Text number encodings P10/P1000/B1999/FP15: round trip, token counts, vocabulary, codec."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from scinum import encodings
from scinum.tokens.codec import Codec, Vocabulary
from scinum.errors import ValueOutOfRange

SCHEMES = {
    "p10": (5, ["-", "6", "0", "2", "E-1"], 29),
    "p1000": (3, ["-", "602", "E-1"], 920),
    "b1999": (2, ["-602", "E-1"], 1818),
    "fp15": (1, ["-602E-1"], 30601),
}


@pytest.mark.parametrize("name", SCHEMES)
def test_table1_tokens_and_vocabulary_sizes(name):
    n_tokens, example, vocab_size = SCHEMES[name]
    enc = encodings.get(name)
    assert isinstance(enc, encodings.TextEncoding) and enc.dim == 0 and encodings.from_config(enc.config()).config() == enc.config()
    assert enc.tokens(-6.02e1) == example
    assert enc.tokens_per_number == n_tokens
    assert len(enc.vocabulary()) == len(set(enc.vocabulary())) == vocab_size


@pytest.mark.parametrize("name", SCHEMES)
def test_every_representable_value_round_trips(name):
    """All 30601 values of the default precision (one FP15 token each) map back to themselves
    through every scheme."""
    fp15, enc = encodings.get("fp15"), encodings.get(name)
    for tok in fp15.vocabulary():
        value = fp15.parse([tok])
        assert value is not None
        assert enc.parse(enc.tokens(value)) == value
        assert enc.round(value) == value


@given(st.floats(-9.4e8, 9.4e8, allow_nan=False), st.integers(1, 4))
def test_rounding_is_to_nearest_at_configured_digits(x, digits):
    enc = encodings.get("p1000", digits=digits)
    r = enc.round(x)
    if abs(x) >= 10.0 ** (digits - 1 - 8):  # not in the underflow range
        assert abs(r - x) <= abs(x) * 0.5 * 10.0 ** (1 - digits) * (1 + 1e-12)
    assert enc.parse(enc.tokens(x)) == r


def test_out_of_range_and_unparseable():
    enc = encodings.get("p10")
    with pytest.raises(ValueOutOfRange, match="exceeds"):
        enc.tokens(1e12)
    assert enc.tokens(6e-7) == ["+", "1", "0", "0", "E-8"]  # nearer the smallest (1e-6)
    assert enc.tokens(4e-7) == ["+", "0", "0", "0", "E+0"]  # below half the smallest: zero
    for bad in (
        ["+", "6", "0", "E-1", "2"],
        ["6", "+", "0", "2", "E-1"],
        ["+", "0", "5", "0", "E+0"],
        ["-", "0", "0", "0", "E+0"],
        ["+", "6", "0", "2"],
    ):
        assert enc.parse(bad) is None


def planets(n_planets, n_steps, rng):
    d = {f"planet{i}": {"m": rng.uniform(1, 5), "a": rng.uniform(1, 3), "e": rng.uniform(0, 2)} for i in range(n_planets)}
    d["stepsize"] = 0.2
    return {"description": d, "data": rng.normal(size=(n_steps, n_planets, 2)).tolist()}


#: xVal paper: P10 ~3.5x, P1000 ~2.3x, B1999 ~1.6x the single-token length (and tolerance)
LENGTH_RATIOS = {"p10": (3.5, 0.3), "p1000": (2.3, 0.2), "b1999": (1.6, 0.15), "fp15": (1.0, 0.0)}


@pytest.mark.parametrize("name", SCHEMES)
def test_codec_text_mode_lengths_and_round_trip(name):
    rng = np.random.default_rng(1)
    recs = [planets(n, 40, rng) for n in (2, 3, 4)]
    single = Codec(Vocabulary.build(recs))
    base = sum(len(single.encode(r)) for r in recs)
    enc = encodings.get(name)
    codec = Codec(Vocabulary.build(recs, number_tokens=enc.vocabulary()), enc)
    lengths = 0
    for r in recs:
        e = codec.encode(r)
        lengths += len(e)
        starts = codec.number_starts(e.ids)
        assert len(starts) == len(single.number_paths(r))
        # every token of a number carries its value and field
        span = (starts[:, None] + np.arange(enc.tokens_per_number)).ravel()
        assert (e.fields[span] >= 0).all() and (e.fields >= 0).sum() == len(span)
        back = codec.decode(e.ids, e.values)
        assert back["data"][0][0][0] == enc.round(r["data"][0][0][0])
    ratio, tol = LENGTH_RATIOS[name]
    assert lengths / base == pytest.approx(ratio, abs=tol)
