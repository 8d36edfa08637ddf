"""Dataset directories: determinism in (seed, i), atomic shards, resume, refusals."""

import random
from pathlib import Path

import pytest

from scinum.datasets.directory import Dataset, DatasetWriter
from scinum.datasets.writing import ShardWorkers
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
    w = DatasetWriter(out, builder="test", version="1", parameters={"n": 23}, seed=5, shard_size=4, compress=compress)
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


@pytest.mark.parametrize("fail_at", [1, 21])  # a shard of this process's first; one a helper's, likely
def test_shard_workers_live_across_splits_and_fail_cleanly(tmp_path, fail_at):
    """One ShardWorkers for every split: the same bytes as one process; a shard that raises
    (in this process or a helper) ends the split with that error, and the build resumes to the
    same bytes."""
    build(tmp_path / "clean")
    with ShardWorkers(2) as pool:
        build(tmp_path / "pooled", workers=pool)
        assert tree(tmp_path / "pooled") == tree(tmp_path / "clean")
        with pytest.raises(KeyboardInterrupt):
            build(tmp_path / "x", workers=pool, fail_at=fail_at)
    assert not (tmp_path / "x" / "manifest.json").exists()
    with ShardWorkers(3) as pool:
        build(tmp_path / "x", workers=pool)
    assert tree(tmp_path / "x") == tree(tmp_path / "clean")


class Chunky(Sample):
    chunk_size = 3  # units of work that straddle the shards of 4 samples


def test_chunks_across_shards_write_the_same_bytes(tmp_path):
    """Samples go out in chunks of ``chunk_size`` (aligned to its multiples, not to shards):
    each shard is assembled in sample order, its stats summed, byte for byte as one process."""
    build(tmp_path / "clean")
    w = DatasetWriter(tmp_path / "c", builder="test", version="1", parameters={"n": 23}, seed=5, shard_size=4)
    with ShardWorkers(2) as pool:
        w.write_split("train", 23, Chunky(5), workers=pool)
        w.write_split("ood_far", 5, Chunky(6), workers=pool)
    w.finish(note="hello")
    assert tree(tmp_path / "c") == tree(tmp_path / "clean")


def test_refusals(tmp_path):
    build(tmp_path / "a")
    with pytest.raises(DatasetError, match="other parameters"):
        DatasetWriter(tmp_path / "a", builder="test", version="1", parameters={"n": 24}, seed=5, shard_size=4)
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

    code = "import sys, scinum.datasets.directory, scinum.datasets.writing; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def _tree_bytes(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(Path(root).rglob("*")) if p.is_file()}


def test_two_parts_built_by_two_processes_finish_byte_identical_to_one_build(tmp_path):
    """Scale-out: 2 processes stand in for 2 machines sharing the output directory (e.g. a SLURM
    array job); `--part finish` verifies the shards and writes the manifest."""
    import subprocess
    import sys

    args = [
        "--train",
        "40",
        "--val",
        "9",
        "--test",
        "9",
        "--ood",
        "9",
        "--steps",
        "3",
        "--shard-size",
        "4",
        "--workers",
        "1",
        "--seed",
        "5",
    ]
    run = "import sys; from scinum.cli.main import main; sys.exit(main(sys.argv[1:]))"
    shared = tmp_path / "shared"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", run, "build", "planets", str(shared), *args, "--part", f"{i}/2"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(2)
    ]
    assert [p.wait(timeout=300) for p in procs] == [0, 0], [p.stderr.read()[-500:] for p in procs]
    assert not (shared / "manifest.json").exists()  # no part finishes the dataset
    from scinum.cli.main import main

    assert main(["build", "planets", str(tmp_path / "one"), *args]) == 0
    shard = shared / "train" / "part-00003.jsonl"
    good = shard.read_bytes()
    shard.write_bytes(good[: len(good) // 2])  # a part that died mid-copy on shared storage
    assert main(["build", "planets", str(shared), *args, "--part", "finish"]) == 1
    shard.unlink()
    from scinum_simulations.planets import PlanetsConfig, build

    with pytest.raises(DatasetError, match=r"lacks shard\(s\) \[3\]"):
        build(shared, train=40, val=9, test=9, ood=9, seed=5, shard_size=4, part="finish", config=PlanetsConfig(steps=3))
    assert main(["build", "planets", str(shared), *args, "--part", "1/2"]) == 0  # rebuilds shard 3
    assert main(["build", "planets", str(shared), *args, "--part", "finish"]) == 0
    assert _tree_bytes(shared) == _tree_bytes(tmp_path / "one")
