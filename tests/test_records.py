"""Strict JSON: every way Python's json would silently corrupt numbers is an error."""
import gzip

import pytest

from scinum.errors import MalformedJSON
from scinum.records import dumps, loads, read_jsonl


@pytest.mark.parametrize("text,match", [
    ('{"a": NaN}', "NaN"),
    ('{"a": [1, Infinity]}', "Infinity"),
    ('{"a": {"b": 1e400}}', r"path a\.b"),
    ('{"a": 1, "a": 2}', "duplicate key"),
    ('[1, 2]', "top level must be a JSON object"),
    ('{"a": 1', "invalid JSON"),
    ('{"a": 1} x', "extra data"),
])
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
