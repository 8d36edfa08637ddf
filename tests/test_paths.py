"""Field paths: parse/format round trip, fields, matching, flatten/unflatten."""

import pytest
from hypothesis import given, strategies as st

from scinum.errors import RecordError
from scinum.records.paths import ANY_INDEX, ANY_KEY, field_of, flatten, format_path, get, matches, parse_path, select, set_value, unflatten

keys = st.text(min_size=1, max_size=8)
segments = st.one_of(keys, st.integers(-50, 50), st.just(ANY_KEY), st.just(ANY_INDEX))


@given(st.lists(segments, max_size=6))
def test_parse_format_round_trip(path):
    path = tuple(path)
    assert parse_path(format_path(path)) == path


@pytest.mark.parametrize(
    "text,expected",
    [
        ("description.planet0.m", ("description", "planet0", "m")),
        ("data[3][1][0]", ("data", 3, 1, 0)),
        ("data[-1][*]", ("data", -1, ANY_INDEX)),
        ("description.planet0.*", ("description", "planet0", ANY_KEY)),
        ('["a.b"].c', ("a.b", "c")),
        ("", ()),
    ],
)
def test_parse_examples(text, expected):
    assert parse_path(text) == expected
    assert format_path(expected) == text


@pytest.mark.parametrize("bad", ["a..b", "a.", ".a", "a[x]", "a[1", "a b", "a[1]b", '["x"'])
def test_parse_errors_name_the_path(bad):
    with pytest.raises(RecordError, match="column|ends with"):
        parse_path(bad)


def test_field_replaces_every_index():
    assert field_of("data[3][1][0]") == "data[*][*][*]"
    assert field_of(("description", "planet0", "m")) == "description.planet0.m"


def test_select_and_match_with_wildcards_and_negative_indices():
    r = {"description": {"planet0": {"m": 1, "a": 2}, "stepsize": 0.2}, "data": [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]}
    assert select(r, "description.planet0.*") == [("description", "planet0", "m"), ("description", "planet0", "a")]
    assert select(r, "data[-1][*][0]") == [("data", 1, 0, 0), ("data", 1, 1, 0)]
    assert [get(r, p) for p in select(r, "data[-1][*][0]")] == [5, 7]
    assert select(r, "data.*") == []  # .* matches keys only, data is a list
    assert select(r, "nope.x") == []
    assert matches("data[-1][*][0]", ("data", 1, 0, 0), (None, 2, 2, 2))
    assert not matches("data[-1][*][0]", ("data", 0, 0, 0), (None, 2, 2, 2))
    assert matches("description.*.m", ("description", "planet0", "m"))
    assert not matches("description.*", ("description", "planet0", "m"))


json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=5)
)
json_values = st.recursive(
    json_leaf, lambda c: st.one_of(st.lists(c, max_size=4), st.dictionaries(st.text(max_size=4), c, max_size=4)), max_leaves=20
)


@given(st.dictionaries(st.text(max_size=4), json_values, max_size=4))
def test_flatten_unflatten_round_trip(record):
    leaves = flatten(record)
    assert unflatten(leaves) == record
    for path, value in leaves:
        if not isinstance(value, (list, dict)):
            assert get(record, path) == value or value != value


def test_set_value_in_place():
    r = {"a": [1, {"b": 2}]}
    set_value(r, "a[1].b", 5.5)
    assert r == {"a": [1, {"b": 5.5}]}
    with pytest.raises(KeyError, match=r"a\[7\]"):
        get(r, "a[7]")


def test_numbers_named_is_the_mask_rule():
    from scinum.records.paths import numbers_named

    r = {"a": {"x": 1, "y": None, "s": "t"}, "b": [[1.5, True], []], "c": []}
    assert numbers_named(r, "a.x") == [("a", "x")]
    assert numbers_named(r, "b") == [("b", 0, 0)]  # containers expand; bools are not numbers
    assert numbers_named(r, "a.y") == [("a", "y")]  # null: a placeholder to fill
    for pattern, match in [
        ("zz", "matches no field"),
        ("a.s", "names a str"),
        ("a.*", "path a.s"),
        ("c", "holds no number"),
        ("a..x", "bad mask"),
    ]:
        with pytest.raises(RecordError, match=match):
            numbers_named(r, pattern)
