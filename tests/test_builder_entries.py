"""Both builders' Python entry ``build(out, *, ...)`` (what the recipes call, through
``scinum.builders.build``) builds exactly what ``scinum build <name> OUT --flags`` builds, returns
the manifest, and a parameter it does not take is named."""

from pathlib import Path

import pytest

from scinum_era5 import builder as era5_builder
from scinum.datasets import builders
from scinum.cli.main import main
from scinum.errors import DatasetError
from scinum_simulations import planets


def _files(root: Path) -> dict[str, bytes]:
    """The dataset's files, its own directory's name written as ``OUT`` (the manifest names it)."""
    return {
        str(p.relative_to(root)): p.read_bytes().replace(str(root).encode(), b"OUT")
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.suffix in (".jsonl", ".gz", ".json")
    }


def test_planets_python_entry_equals_the_cli(tmp_path):
    manifest = planets.build(tmp_path / "py", train=12, val=3, test=3, ood=3, steps=4, seed=5)
    assert manifest["splits"]["train"]["count"] == 12
    assert (
        main(
            [
                "build",
                "planets",
                str(tmp_path / "cli"),
                "--train",
                "12",
                "--val",
                "3",
                "--test",
                "3",
                "--ood",
                "3",
                "--steps",
                "4",
                "--seed",
                "5",
            ]
        )
        == 0
    )
    assert _files(tmp_path / "py") == _files(tmp_path / "cli")
    with pytest.raises(DatasetError, match="unknown parameter.*'stepz'"):
        builders.build("planets", tmp_path / "bad", train=4, stepz=3)


def test_era5_python_entry_equals_the_cli(tmp_path):
    params = {
        "synthetic_days": 20,
        "synthetic_resolution": 10,
        "train": 6,
        "val": 2,
        "test": 2,
        "stations": [2, 3],
        "steps": [3, 4],
        "seed": 1,
    }
    manifest = era5_builder.build(tmp_path / "py", source="synthetic", **params)
    assert manifest["builder"] == "era5" and manifest["splits"]["train"]["count"] == 6
    assert (
        main(
            [
                "build",
                "era5",
                str(tmp_path / "cli"),
                "--source",
                "synthetic",
                "--synthetic-days",
                "20",
                "--synthetic-resolution",
                "10",
                "--train",
                "6",
                "--val",
                "2",
                "--test",
                "2",
                "--stations",
                "2",
                "3",
                "--steps",
                "3",
                "4",
                "--seed",
                "1",
            ]
        )
        == 0
    )
    assert _files(tmp_path / "py") == _files(tmp_path / "cli")
    with pytest.raises(DatasetError, match=r"unknown parameter\(s\) \['days'\]"):
        builders.build("era5", tmp_path / "bad", source="synthetic", days=3)


class _RefusesAfterOpening:
    """A plug-in builder that opens its writer, then refuses a parameter (issue 37 case 9)."""

    @staticmethod
    def build(out, *, n: int = 1) -> dict:
        from scinum.datasets import DatasetWriter

        DatasetWriter(out, builder="refuses", version="1", parameters={"n": n}, seed=0)
        raise DatasetError(f"n = {n}: must be even")


def test_a_build_that_fails_before_any_shard_leaves_nothing(tmp_path):
    from scinum.datasets.builders import build

    with pytest.raises(DatasetError, match="must be even"):
        build(_RefusesAfterOpening, tmp_path / "new", n=3)
    assert not (tmp_path / "new").exists()
    (tmp_path / "mine").mkdir()
    with pytest.raises(DatasetError, match="must be even"):
        build(_RefusesAfterOpening, tmp_path / "mine", n=3)
    assert (tmp_path / "mine").is_dir() and not any((tmp_path / "mine").iterdir())
