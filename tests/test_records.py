"""Strict JSON: every way Python's json would silently corrupt numbers is an error."""

import gzip
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from scinum.errors import MalformedJSON
from scinum.records.strict import dumps, loads, read_jsonl


@pytest.mark.parametrize(
    "text,match",
    [
        ('{"a": NaN}', "NaN"),
        ('{"a": [1, Infinity]}', "Infinity"),
        ('{"a": {"b": 1e400}}', r"path a\.b"),
        ('{"a": 1, "a": 2}', "duplicate key"),
        ('[1, 2]', "top level must be a JSON object"),
        ('{"a": 1', "invalid JSON"),
        ('{"a": 1} x', "extra data"),
    ],
)
def test_bad_json_is_rejected(text, match):
    with pytest.raises(MalformedJSON, match=match):
        loads(text)


def test_jsonl_errors_name_file_and_line(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text('{"a": 1}\n\n{"a": -Infinity}\n')
    with pytest.raises(MalformedJSON, match=r"x\.jsonl:3: .*Infinity"):
        list(read_jsonl(p))


def test_jsonl_gz_and_exact_floats(tmp_path):
    recs = [{"x": 0.1 + 0.2, "n": -0.0, "i": 3, "big": 1.7976931348623157e308}]
    p = tmp_path / "x.jsonl.gz"
    with gzip.open(p, "wt") as f:
        f.write("\n".join(dumps(r) for r in recs) + "\n")
    got = [r for _, r in read_jsonl(p)]
    assert got == recs
    assert str(got[0]["n"]) == "-0.0" and isinstance(got[0]["i"], int)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300)
@given(st.dictionaries(st.text(max_size=5), json_values, max_size=5))
def test_dumps_round_trips_every_record_exactly(record):
    """What dumps writes, the strict reader reads back as the same record (floats bit for bit,
    -0.0 included), on one line."""
    text = dumps(record)
    assert "\n" not in text
    back = loads(text)
    assert back == record
    floats = lambda r: [v for v in _leaves(r) if isinstance(v, float)]
    assert [math.copysign(1, v) for v in floats(back)] == [math.copysign(1, v) for v in floats(record)]


def _leaves(node):
    if isinstance(node, dict):
        for v in node.values():
            yield from _leaves(v)
    elif isinstance(node, list):
        for v in node:
            yield from _leaves(v)
    else:
        yield node


@pytest.mark.parametrize(
    "record,path",
    [
        ({"a": {"b": [1.0, math.nan]}}, r"a\.b\[1\]"),
        ({"x": None, "y": math.inf}, "y"),
        ({"x": [None, -math.inf]}, r"x\[1\]"),
    ],
)
def test_dumps_refuses_non_finite_numbers_by_path(record, path):
    with pytest.raises(MalformedJSON, match=path):
        dumps(record)


def test_dumps_writes_what_the_fast_writer_cannot():
    """numpy scalars and integers beyond 64 bits go through the standard writer (same JSON)."""
    assert loads(dumps({"a": np.float64(0.1), "b": 2**70, "c": None})) == {"a": 0.1, "b": 2**70, "c": None}
    assert dumps({"k": "é", "n": [1, 2.5e-7]}) == '{"k":"é","n":[1,2.5e-7]}'
    with pytest.raises(ValueError):
        dumps({"a": np.float64("nan")})


# -- check_record: one fast walk for a record that passes, the path-naming walk for one that fails


def _values(depth: int = 0):
    """JSON-like values, good and bad: finite and non-finite floats, numpy scalars, tuples, a
    dict subclass, non-string keys, nesting near MAX_DEPTH."""
    from collections import OrderedDict

    leaf = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.text(max_size=3),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -0.0]),  # often: any float may be any of these
        st.floats(allow_nan=False, allow_infinity=False).map(np.float64),
        st.integers(-5, 5).map(np.int64),
    )
    return st.recursive(
        leaf,
        lambda kids: st.one_of(
            st.lists(kids, max_size=4),
            st.lists(kids, max_size=3).map(tuple),
            st.dictionaries(st.text(max_size=2), kids, max_size=3),
            st.dictionaries(st.text(max_size=2), kids, max_size=2).map(OrderedDict),
            st.dictionaries(st.integers(0, 3), kids, min_size=1, max_size=2),
        ),
        max_leaves=12,
    )


def _outcome(check, record):
    try:
        check(record)
    except MalformedJSON as e:
        return str(e)
    return None


@given(_values())
@settings(max_examples=300)
def test_check_record_fast_walk_gives_the_path_walks_verdict_and_message(value):
    from scinum.records.strict import _locate, check_record

    record = {"r": value}
    assert _outcome(check_record, record) == _outcome(_locate, record)


@pytest.mark.parametrize("depth", [254, 255, 256, 257, 300])
@pytest.mark.parametrize("leaf", [1.0, [], {}, [1.0], {"x": 2}])
def test_check_record_depth_limit_is_where_the_path_walk_puts_it(depth, leaf):
    from scinum.records.strict import MAX_DEPTH, _locate, check_record

    assert MAX_DEPTH == 256
    record = leaf
    for _ in range(depth):
        record = [record]
    record = {"a": record}
    assert _outcome(check_record, record) == _outcome(_locate, record)
    deepest = depth + 1 + (1 if leaf in ([1.0], {"x": 2}) else 0)  # the path length of the deepest value
    assert (_outcome(check_record, record) is None) == (deepest <= MAX_DEPTH)
