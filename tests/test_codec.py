"""Codec: exact round trip, sequence length bound, vocabulary persistence, located errors."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from scinum.tokens.codec import Codec, Vocabulary
from scinum.errors import MalformedJSON, ValueOutOfRange, VocabularyError
from scinum.records.paths import field_of, format_path, parse_path

numbers = st.one_of(st.integers(-(2**53), 2**53), st.floats(allow_nan=False, allow_infinity=False), st.just(-0.0), st.just(0.1 + 0.2))
leaf = st.one_of(numbers, st.none(), st.booleans(), st.text(max_size=6))
keys = st.one_of(st.text(max_size=5), st.sampled_from(['a.b', 'x[0]', '"q"', '0', '_id', 'é', ' ', 'a-b', '*']))
value = st.recursive(leaf, lambda c: st.one_of(st.lists(c, max_size=4), st.dictionaries(keys, c, max_size=4)), max_leaves=25)
records = st.dictionaries(keys, value, max_size=5)


def same(a, b) -> bool:
    """Structural equality that also distinguishes int/float and -0.0/0.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b


@settings(max_examples=150)
@given(records)
def test_round_trip_is_exact(record):
    codec = Codec(Vocabulary.build([record]))
    enc = codec.encode(record)
    assert enc.ids.dtype == np.int64 and enc.values.dtype == np.float64
    is_num = np.isin(enc.ids, [codec.vocab.num_id, codec.vocab.int_id])
    assert np.isnan(enc.values[~is_num]).all() and (enc.fields[~is_num] == -1).all()
    assert (enc.fields[is_num] >= 0).all()
    assert same(codec.decode(enc.ids, enc.values), record)
    assert len(codec.number_paths(record)) == int(is_num.sum())
    # the codec's field of each number is the one paths.field_of gives for its path, whatever
    # the keys (dots, brackets, quotes, digits, non-identifiers): one identifier rule
    assert [codec.vocab.fields[f] for f in enc.fields[is_num]] == [field_of(p) for p in codec.number_paths(record)]
    assert all(parse_path(format_path(p)) == p for p in codec.number_paths(record))


@given(st.lists(records, min_size=1, max_size=4))
def test_vocabulary_save_load(tmp_path_factory, recs):
    vocab = Vocabulary.build(recs)
    path = tmp_path_factory.mktemp("v") / "vocab.json"
    vocab.save(path)
    again = Vocabulary.load(path)
    assert again == vocab
    for r in recs:
        a, b = Codec(vocab).encode(r), Codec(again).encode(r)
        assert np.array_equal(a.ids, b.ids)


def planets_record(n_planets, n_steps, rng):
    desc = {
        f"planet{i}": {"m": float(rng.uniform(1, 5)), "a": float(rng.uniform(1, 3)), "e": float(rng.uniform(0, 2))}
        for i in range(n_planets)
    }
    desc["stepsize"] = 0.2
    data = [[[float(x) for x in rng.normal(size=2)] for _ in range(n_planets)] for _ in range(n_steps)]
    return {"description": desc, "data": data}


@pytest.mark.parametrize("n_planets,n_steps", [(2, 1), (2, 50), (3, 20), (5, 100)])
def test_planets_length_within_xval_reference(n_planets, n_steps):
    rng = np.random.default_rng(0)
    train = [planets_record(p, 7, rng) for p in (2, 3, 4, 5)]
    codec = Codec(Vocabulary.build(train))
    r = planets_record(n_planets, n_steps, rng)
    n = len(codec.encode(r))
    assert n <= 10 + 12 * n_planets + 3 * n_planets * n_steps  # the reference tokenizer, run
    assert n == 8 + 9 * n_planets + 3 * n_planets * n_steps
    assert codec.decode(*[getattr(codec.encode(r), k) for k in ("ids", "values")]) == r


def test_unseen_bracket_runs_fall_back_to_single_brackets():
    codec = Codec(Vocabulary.build([{"a": [1, 2]}]))
    deep = {"a": [[[[[1]]]], []]}
    codec.vocab.field_index["a[*][*][*][*][*]"] = 0  # accept the field for this test
    enc = codec.encode(deep)
    assert codec.decode(enc.ids, enc.values) == deep


@pytest.mark.parametrize(
    "record,err,match",
    [
        ({"b": 1}, VocabularyError, r"path b: key \"b\""),
        ({"a": {"x": 1}}, VocabularyError, r"path a\.x"),
        ({"a": 1, "s": "unseen"}, VocabularyError, r"path s: string \"unseen\""),
        ({"a": [1.0]}, VocabularyError, r"numeric field a\[\*\] never seen"),
        ({"a": float("nan")}, MalformedJSON, "path a: non-finite"),
        ({"a": 2**60}, ValueOutOfRange, "path a: integer"),
        ([1], MalformedJSON, "top level"),
    ],
)
def test_errors_name_the_path(record, err, match):
    codec = Codec(Vocabulary.build([{"a": 1, "s": "seen"}]))
    with pytest.raises(err, match=match):
        codec.encode(record)


def test_decode_rejects_broken_token_streams():
    codec = Codec(Vocabulary.build([{"a": [1]}]))
    enc = codec.encode({"a": [1]})
    with pytest.raises(MalformedJSON):
        codec.decode(enc.ids[:-1], enc.values[:-1])
    with pytest.raises(MalformedJSON, match=r"\[MASK\]"):
        codec.decode(np.r_[enc.ids[:3], codec.vocab.mask_id, enc.ids[4:]], enc.values)


@given(st.lists(st.tuples(st.floats(-1e6, 1e6), st.integers(-(10**6), 10**6)), min_size=2, max_size=6))
def test_records_of_one_shape_reuse_the_structure_and_encode_like_a_fresh_codec(values):
    """The shape cache: every record of one shape encodes exactly as a codec that never saw the
    shape before would, with its own values and number paths; an unsafe int is still refused."""
    from scinum.errors import ValueOutOfRange

    recs = [{"a": x, "b": [n, {"c": x, "s": "k"}], "t": True} for x, n in values]
    vocab = Vocabulary.build(recs)
    shared = Codec(vocab)
    for r in recs:
        enc, paths = shared.encode_with_paths(r)
        fresh = Codec(vocab)
        ref = fresh.encode(r)
        assert np.array_equal(enc.ids, ref.ids) and np.array_equal(enc.fields, ref.fields)
        assert np.array_equal(enc.values, ref.values, equal_nan=True)
        assert paths == fresh.number_paths(r) == [("a",), ("b", 0), ("b", 1, "c")]
        assert shared.decode(enc.ids, enc.values) == r
    with pytest.raises(ValueOutOfRange, match=r"b\[0\]"):
        shared.encode({"a": 1.0, "b": [2**60, {"c": 1.0, "s": "k"}], "t": True})
