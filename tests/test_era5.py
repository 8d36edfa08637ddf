"""ERA5 builder: layouts give identical samples, record format, determinism, splits, task."""

from __future__ import annotations

import argparse
import math
import pickle
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from scinum_era5 import builder, synthetic
from scinum_era5.sampling import SampleConfig, SampleMaker, runs_remaining, series_index, split_periods, start_features
from scinum_era5.source import open_view, open_view_cached
from scinum_era5.tasks import NEXT_STEP_MASK, baseline_mse, climatology, persistence, targets
from scinum.datasets.directory import Dataset
from scinum.errors import DatasetError
from scinum.records.paths import select

GRID = dict(days=60, resolution=5.0, seed=3)
COUNTS = ["--train", "12", "--val", "4", "--test", "4", "--ood", "4", "--ood-south-of", "-60", "--shard-size", "5"]


def build(src, out: Path, *extra: str) -> Dataset:
    """Run the builder in-process (exceptions propagate) and open the result."""
    p = argparse.ArgumentParser()
    builder.add_arguments(p)
    assert builder.run(p.parse_args([str(out), "--source", str(src), *COUNTS, *extra])) == 0
    return Dataset(out)


def records(ds: Dataset) -> dict[str, list[dict]]:
    return {s: list(ds.records(s)) for s in ds.splits}


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("era5src")
    out = {
        "cds": synthetic.write_netcdf(d / "cds.nc", **GRID),
        "legacy": synthetic.write_netcdf(d / "legacy.nc", layout="cds-legacy", era5t_from="2020-02-10", **GRID),
        "zarr": synthetic.write_zarr(d / "arco.zarr", **GRID),
    }
    folder = d / "monthly"
    folder.mkdir()
    with xr.open_dataset(out["cds"]) as ds:  # two files, named against time order
        ds.isel(valid_time=slice(90, None)).to_netcdf(folder / "a.nc")
        ds.isel(valid_time=slice(0, 90)).to_netcdf(folder / "b.nc")
    out["folder"] = folder
    return out


@pytest.fixture(scope="module")
def reference(sources, tmp_path_factory) -> tuple[Dataset, dict]:
    ds = build(sources["cds"], tmp_path_factory.mktemp("ref") / "ds")
    return ds, records(ds)


def test_all_layouts_give_identical_samples(sources, reference, tmp_path):
    ref_ds, ref = reference
    for name in ("legacy", "zarr", "folder"):
        ds = build(sources[name], tmp_path / name)
        assert records(ds) == ref, name
        assert ds.manifest["normalization"] == ref_ds.manifest["normalization"]
        assert ds.manifest["synthetic"] is False


def test_legacy_expver_combination_matches_single_layout(sources):
    new, old = open_view(sources["cds"]), open_view(sources["legacy"])
    assert len(old.pieces) == 2 and (old.times == new.times).all()
    t = np.arange(len(new.times))
    rows, cols = np.arange(len(new.lat)), np.arange(len(new.lon))
    np.testing.assert_array_equal(old.read_outer(t, rows, cols), new.read_outer(t, rows, cols))


def test_packed_legacy_file_and_hourly_source(sources, reference, tmp_path):
    packed = synthetic.write_netcdf(tmp_path / "packed.nc", layout="cds-legacy", packed=True, era5t_from="2020-02-10", **GRID)
    got, want = records(build(packed, tmp_path / "p")), reference[1]
    for split in want:
        for a, b in zip(got[split], want[split]):
            assert a["description"] == b["description"]
            np.testing.assert_allclose(a["data"], b["data"], atol=3e-4)  # int16 packing
    hourly = open_view(synthetic.write_netcdf(tmp_path / "h.nc", step_hours=1, **{**GRID, "days": 3}))
    picked = hourly.times[series_index(hourly.times)]
    assert len(picked) == 9 and (np.diff(picked) == np.timedelta64(8, "h")).all()


def test_record_format_and_manifest(reference):
    ds, recs = reference
    assert ds.splits == ["train", "val", "test", "ood_south"]
    for split, rs in recs.items():
        assert len(rs) == ds.count(split)
        for r in rs:
            coords, start, data = r["description"]["coords"], r["description"]["start"], r["data"]
            assert 60 <= len(coords) <= 90 and len(data) == len(coords)
            assert len({len(s) for s in data}) == 1 and 8 <= len(data[0]) <= 16
            assert all(len(c) == 3 and abs(c[1] ** 2 + c[2] ** 2 - 1) < 1e-3 for c in coords)
            assert len(start) == 4 and abs(start[0] ** 2 + start[1] ** 2 - 1) < 1e-3
            lat_ok = [math.asin(c[0]) < math.radians(-60) for c in coords]
            assert all(lat_ok) if split == "ood_south" else not any(lat_ok)
    train = np.concatenate([np.ravel(r["data"]) for r in recs["train"]])
    assert abs(train.mean()) < 0.3 and 0.6 < train.std() < 1.4
    m = ds.manifest
    assert m["evaluation"]["fields"] == [NEXT_STEP_MASK]
    assert m["evaluation"]["ood_fields"] == {"ood_south": NEXT_STEP_MASK}
    assert m["scalings"]["data[*][*]"]["std"] == m["normalization"]["std"] > 0
    assert m["splits"]["train"]["stats"] == {"nan_redraws": 0}
    p = m["periods"]
    assert p["train"][1] <= p["val"][0] and p["val"][1] <= p["test"][0]


def test_synthetic_source_is_labelled_and_resumes(tmp_path):
    extra = ["--synthetic-days", "60", "--synthetic-resolution", "6"]
    one = build("synthetic", tmp_path / "one", *extra)
    assert one.manifest["synthetic"] is True
    assert not (tmp_path / "one" / ".build").exists()
    again = build("synthetic", tmp_path / "one", *extra)  # complete: nothing rebuilt
    assert records(again) == records(one)


def test_sample_maker_survives_pickling(sources):
    """Workers get the maker pickled ('spawn'): it must not carry the opened source."""
    view = open_view(sources["cds"])
    t = series_index(view.times)
    cfg = SampleConfig(
        source=str(sources["cds"]),
        variable=None,
        split="train",
        seed=5,
        times=t,
        starts_ok=runs_remaining(view.times[t], 8),
        stamps=view.times[t],
        rows=np.arange(len(view.lat)),
        offset=0.0,
        mean=280.0,
        std=15.0,
    )
    maker = SampleMaker(cfg, view)
    blob = pickle.dumps(maker)
    assert len(blob) < 20_000 and b"xarray" not in blob
    open_view_cached.cache_clear()
    assert pickle.loads(blob)(3) == maker(3)


@pytest.mark.slow
def test_parallel_build_is_identical(tmp_path):
    extra = ["--synthetic-days", "60", "--synthetic-resolution", "6"]
    one = build("synthetic", tmp_path / "one", *extra)
    two = build("synthetic", tmp_path / "two", "--workers", "2", *extra)
    for split in one.splits:
        for a, b in zip(one.files(split), two.files(split)):
            assert a.read_bytes() == b.read_bytes()


def test_seed_changes_samples(sources, reference, tmp_path):
    other = build(sources["cds"], tmp_path / "s1", "--seed", "1")
    assert records(other)["train"] != reference[1]["train"]


def test_series_index_and_gaps():
    hourly = np.datetime64("2021-03-01T00", "ns") + np.arange(48) * np.timedelta64(1, "h")
    idx = series_index(hourly, 8)
    assert list(idx) == [0, 8, 16, 24, 32, 40]
    stamps = hourly[idx]
    stamps = np.delete(stamps, 3)  # a gap: windows must not cross it
    assert list(runs_remaining(stamps, 8)) == [3, 2, 1, 2, 1]


def test_periods_are_disjoint():
    t = np.datetime64("2020-01-01", "ns") + np.arange(10) * np.timedelta64(8, "h")
    pos = split_periods(t, {"train": (None, "2020-01-03"), "val": ("2020-01-03", None)})
    assert set(pos["train"]).isdisjoint(pos["val"]) and len(pos["train"]) + len(pos["val"]) == 10
    with pytest.raises(DatasetError, match="overlap"):
        split_periods(t, {"train": (None, "2020-01-03"), "val": ("2020-01-02", None)})


def test_start_features():
    np.testing.assert_allclose(start_features(np.datetime64("2021-01-01T00")), [0, 1, 0, 1], atol=1e-12)
    s = start_features(np.datetime64("2021-07-02T16"))  # ~ half year, 16 h
    assert s[1] < -0.99 and s[2] == pytest.approx(math.sin(2 * math.pi * 16 / 24))


def test_next_step_mask_and_baselines(reference):
    rec = {
        "description": {"coords": [[0, 0, 1]], "start": [0, 1, 0, 1]},
        "data": [[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [0.0] * 7 + [1.0]],
    }
    assert select(rec, NEXT_STEP_MASK) == [("data", 0, 7), ("data", 1, 7)]
    np.testing.assert_array_equal(targets(rec), [8.0, 1.0])
    np.testing.assert_array_equal(persistence(rec), [7.0, 0.0])
    np.testing.assert_array_equal(climatology(rec, 3), [(5.0 + 2.0) / 2, 0.0])  # steps 4 and 1
    res = baseline_mse(reference[1]["test"])
    assert res["n"] == sum(len(r["data"]) for r in reference[1]["test"])
    assert 0 < res["climatology"] and 0 < res["persistence"]


def test_default_build_draws_every_latitude_and_has_no_ood_split(sources, tmp_path):
    """The paper's distribution: stations from all latitudes; the latitude OOD split is opt-in."""
    p = argparse.ArgumentParser()
    builder.add_arguments(p)
    out = tmp_path / "paper"
    assert builder.run(p.parse_args([str(out), "--source", str(sources["cds"]), "--train", "12", "--val", "2", "--test", "2"])) == 0
    ds = Dataset(out)
    assert ds.splits == ["train", "val", "test"] and ds.manifest["ood"] == {}
    assert ds.manifest["evaluation"]["ood_fields"] == {}
    lats = [math.asin(c[0]) for r in ds.records("train") for c in r["description"]["coords"]]
    assert min(lats) < math.radians(-60) and max(lats) > math.radians(60)
    with pytest.raises(DatasetError, match="--ood-south-of"):
        builder.run(p.parse_args([str(tmp_path / "x"), "--source", str(sources["cds"]), "--ood", "3"]))
