"""Dataset directories: determinism in (seed, i), atomic shards, resume, refusals."""
import random

import pytest

from scinum.datasets import Dataset, DatasetWriter
from scinum.errors import DatasetError


class Sample:
    """Picklable sample function; ``fail_at`` simulates a crash (a killed build)."""

    def __init__(self, seed, fail_at=None):
        self.seed, self.fail_at = seed, fail_at

    def __call__(self, i):
        if i == self.fail_at:
            raise KeyboardInterrupt("killed")
        rng = random.Random(self.seed * 1_000_003 + i)
        return {"i": i, "x": rng.random(), "v": [rng.gauss(0, 1) for _ in range(3)]}, {"draws": 1 + i % 2}


def build(out, workers=1, fail_at=None, compress=False):
    w = DatasetWriter(out, builder="test", version="1", parameters={"n": 23}, seed=5,
                      shard_size=4, compress=compress)
    w.write_split("train", 23, Sample(5, fail_at), workers=workers)
    w.write_split("ood_far", 5, Sample(6), workers=workers)
    return w.finish(note="hello")


def tree(path):
    return {p.relative_to(path): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("compress", [False, True])
def test_same_bytes_with_one_and_two_workers(tmp_path, compress):
    m1 = build(tmp_path / "a", 1, compress=compress)
    build(tmp_path / "b", 2, compress=compress)
    assert tree(tmp_path / "a") == tree(tmp_path / "b")
    assert m1["splits"]["train"] == {"count": 23, "shards": 6, "stats": {"draws": 34}}
    ds = Dataset(tmp_path / "a")
    assert [r["i"] for r in ds.records("train")] == list(range(23))
    assert ds.splits == ["train", "ood_far"] and ds.manifest["note"] == "hello"


def test_killed_build_resumes_to_identical_bytes(tmp_path):
    build(tmp_path / "clean")
    with pytest.raises(KeyboardInterrupt):
        build(tmp_path / "x", fail_at=13)
    assert not (tmp_path / "x" / "manifest.json").exists()
    with pytest.raises(DatasetError, match="did not finish"):
        Dataset(tmp_path / "x")
    assert not list((tmp_path / "x").rglob("*.tmp*"))  # nothing half-written
    (tmp_path / "x" / "train" / ".part-00003.jsonl.tmp999").write_text("half")  # a killed write
    build(tmp_path / "x")
    assert tree(tmp_path / "x") == tree(tmp_path / "clean")


def test_refusals(tmp_path):
    build(tmp_path / "a")
    with pytest.raises(DatasetError, match="other parameters"):
        DatasetWriter(tmp_path / "a", builder="test", version="1", parameters={"n": 24}, seed=5,
                      shard_size=4)
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "f.txt").write_text("x")
    with pytest.raises(DatasetError, match="not empty"):
        DatasetWriter(tmp_path / "junk", builder="t", version="1", parameters={}, seed=0)
    w = DatasetWriter(tmp_path / "c", builder="t", version="1", parameters={}, seed=0)
    with pytest.raises(DatasetError, match="split name"):
        w.write_split("training", 3, Sample(0))
    with pytest.raises(DatasetError, match=">= 0"):
        w.write_split("train", -1, Sample(0))
    with pytest.raises(DatasetError, match="no split 'test'"):
        Dataset(tmp_path / "a").files("test")


def test_builder_workers_do_not_import_torch():
    """Spawned builder workers import scinum.datasets; torch would cost seconds each."""
    import subprocess
    import sys
    code = "import sys, scinum.datasets; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
