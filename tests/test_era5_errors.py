"""ERA5 builder: every bad input gets a clear error naming the file (or a documented fix-up)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from scinum_era5 import synthetic
from scinum.datasets.directory import Dataset
from scinum.errors import DatasetError

from test_era5 import GRID, build, records


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    return synthetic.write_netcdf(tmp_path_factory.mktemp("good") / "t2m.nc", **GRID)


def derived(good: Path, out: Path, change) -> Path:
    """A copy of the good file with ``change(ds) -> ds`` applied."""
    with xr.open_dataset(good) as ds:
        change(ds.load()).to_netcdf(out)
    return out


def test_missing_variable(good, tmp_path):
    bad = derived(good, tmp_path / "no_t2m.nc", lambda ds: ds.rename(t2m="sst"))
    with pytest.raises(DatasetError, match=r"no_t2m\.nc: no 2 m temperature variable.*sst"):
        build(bad, tmp_path / "out")
    with pytest.raises(DatasetError, match="no such file"):
        build(tmp_path / "missing.nc", tmp_path / "out2")


def test_celsius_declared_is_converted(good, tmp_path):
    celsius = synthetic.write_netcdf(tmp_path / "c.nc", celsius=True, **GRID)
    ds_c, ds_k = build(celsius, tmp_path / "c"), build(good, tmp_path / "k")
    assert "273.15" in ds_c.manifest["source"]["units"]
    a, b = records(ds_c), records(ds_k)
    for split in a:
        for ra, rb in zip(a[split], b[split]):
            assert ra["description"] == rb["description"]
            np.testing.assert_allclose(ra["data"], rb["data"], atol=2e-4)


def test_celsius_values_labelled_kelvin_is_an_error(tmp_path):
    celsius = synthetic.write_netcdf(tmp_path / "c.nc", celsius=True, **GRID)

    def relabel(units):
        def change(ds):
            ds["t2m"].attrs.pop("units", None)
            if units:
                ds["t2m"].attrs["units"] = units
            return ds

        return change

    lying = derived(celsius, tmp_path / "lying.nc", relabel("K"))
    with pytest.raises(DatasetError, match=r"lying\.nc: units say kelvin.*looks like °C"):
        build(lying, tmp_path / "o1")
    fahrenheit = derived(celsius, tmp_path / "f.nc", relabel("degF"))
    with pytest.raises(DatasetError, match="unsupported temperature units 'degF'"):
        build(fahrenheit, tmp_path / "o2")
    unlabelled = derived(celsius, tmp_path / "nounits.nc", relabel(None))
    assert "taken as °C" in build(unlabelled, tmp_path / "o3").manifest["source"]["units"]


def _times(ds: xr.Dataset, edit) -> xr.Dataset:
    t = ds.valid_time.values.copy()
    edit(t)
    return ds.assign_coords(valid_time=t)


def test_non_monotonic_and_duplicated_times(good, tmp_path):
    def swap(t):
        t[[5, 6]] = t[[6, 5]]

    def dup(t):
        t[5] = t[4]

    shuffled = derived(good, tmp_path / "shuffled.nc", lambda ds: _times(ds, swap))
    with pytest.raises(DatasetError, match=r"shuffled\.nc: non-monotonic times in 'valid_time'"):
        build(shuffled, tmp_path / "o1")
    duplicated = derived(good, tmp_path / "dup.nc", lambda ds: _times(ds, dup))
    with pytest.raises(DatasetError, match=r"dup\.nc: duplicated time 2020-01-02T08"):
        build(duplicated, tmp_path / "o2")
    folder = tmp_path / "overlap"
    folder.mkdir()
    with xr.open_dataset(good) as ds:
        ds.isel(valid_time=slice(0, 100)).to_netcdf(folder / "a.nc")
        ds.isel(valid_time=slice(90, None)).to_netcdf(folder / "b.nc")
    with pytest.raises(DatasetError, match=r"b\.nc: duplicated time .* also in .*a\.nc"):
        build(folder, tmp_path / "o3")


def test_time_range_shorter_than_one_sample(tmp_path):
    short = synthetic.write_netcdf(tmp_path / "short.nc", **{**GRID, "days": 4})
    with pytest.raises(DatasetError, match=r"short\.nc: .*shorter than one sample"):
        build(short, tmp_path / "o")


def test_nans_are_redrawn_and_counted(good, tmp_path):
    def holes(ds):
        v = ds["t2m"].values
        v[:, 5:15, :] = np.nan  # a band of 10 of the 37 rows, at every time
        v[7, :, ::3] = np.nan  # and every third column at one time
        return ds

    holey = derived(good, tmp_path / "holes.nc", holes)
    ds = build(holey, tmp_path / "o")
    redraws = sum(ds.manifest["splits"][s]["stats"]["nan_redraws"] for s in ds.splits)
    assert redraws > 20
    assert "NaN dropped" in ds.manifest["normalization"]["fitted_on"]
    for rs in records(ds).values():
        for r in rs:
            assert all(math.isfinite(x) for s in r["data"] for x in s)
            assert 60 <= len(r["data"]) <= 90
    empty = derived(good, tmp_path / "empty.nc", lambda ds: ds.assign(t2m=ds.t2m * np.nan))
    with pytest.raises(DatasetError, match=r"empty\.nc: the sampled temperatures are all NaN"):
        build(empty, tmp_path / "o2")


def test_grid_mismatch_across_files(good, tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    with xr.open_dataset(good) as ds:
        ds.isel(valid_time=slice(0, 90)).to_netcdf(folder / "a.nc")
        ds.isel(valid_time=slice(90, None), latitude=slice(1, None)).to_netcdf(folder / "b.nc")
    with pytest.raises(DatasetError, match=r"b\.nc: grid differs from that of .*a\.nc"):
        build(folder, tmp_path / "o")


def test_rebuild_with_other_parameters_is_refused(good, tmp_path):
    build(good, tmp_path / "o")
    with pytest.raises(DatasetError, match="other parameters"):
        build(good, tmp_path / "o", "--seed", "9")
    assert Dataset(tmp_path / "o").manifest["seed"] == 0
