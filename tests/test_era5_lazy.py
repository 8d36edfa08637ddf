"""ERA5 builder reads lazily: a wrapped backend counts every element the builder asks for."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from xarray.backends import BackendArray
from xarray.core import indexing

from scinum_era5 import synthetic
from scinum_era5.sampling import SampleConfig, SampleMaker, fit_normalization, runs_remaining, series_index
from scinum_era5.source import view_from_datasets


class CountingArray(BackendArray):
    """An in-memory backend that records each raw read: its key and how many elements."""

    def __init__(self, data: np.ndarray, vectorized: bool):
        self.data, self.shape, self.dtype = data, data.shape, data.dtype
        self.support = indexing.IndexingSupport.VECTORIZED if vectorized else indexing.IndexingSupport.OUTER
        self.reads: list[tuple[tuple, int]] = []

    def __getitem__(self, key):
        return indexing.explicit_indexing_adapter(key, self.shape, self.support, self._raw)

    def _raw(self, key: tuple) -> np.ndarray:
        if self.support == indexing.IndexingSupport.VECTORIZED:
            arrays = indexing._arrayize_vectorized_indexer(indexing.VectorizedIndexer(key), self.shape).tuple
            out = self.data[arrays]
        else:  # orthogonal: one axis at a time, last axis first so axis numbers stay valid
            out = self.data
            for axis in reversed(range(len(key))):
                out = out[(slice(None),) * axis + (key[axis],)]
        self.reads.append((key, out.size))
        return np.asarray(out)

    @property
    def elements(self) -> int:
        return sum(n for _, n in self.reads)


@pytest.fixture(scope="module")
def field():
    times = synthetic.time_axis("2021-01-01", 40, 8)
    lat, lon = synthetic.grid(1.0)
    return times, lat, lon, synthetic.t2m_field(times, lat, lon, seed=1)


def counted_view(field, vectorized: bool):
    times, lat, lon, values = field
    backend = CountingArray(values, vectorized)
    var = xr.Variable(("valid_time", "latitude", "longitude"), indexing.LazilyIndexedArray(backend), attrs={"units": "K"})
    ds = xr.Dataset({"t2m": var}, coords={"valid_time": times, "latitude": lat, "longitude": lon})
    return view_from_datasets([(ds, "counting")], vectorized=vectorized), backend


def maker(view) -> SampleMaker:
    t = series_index(view.times)
    cfg = SampleConfig(
        source="counting",
        variable=None,
        split="train",
        seed=0,
        times=t,
        starts_ok=runs_remaining(view.times[t], 8),
        stamps=view.times[t],
        rows=np.arange(len(view.lat)),
        offset=0.0,
        mean=280.0,
        std=15.0,
    )
    return SampleMaker(cfg, view)


def test_vectorised_backend_reads_exactly_the_sampled_points(field):
    view, backend = counted_view(field, vectorized=True)
    assert backend.elements == 0  # opening reads nothing
    make = maker(view)
    wanted = 0
    for i in range(10):
        record, _ = make(i)
        wanted += len(record["data"]) * len(record["data"][0])
    assert backend.elements == wanted  # nothing but the stations' series
    assert backend.elements < view.times.size * view.lat.size * view.lon.size / 50


def test_orthogonal_backend_reads_only_sampled_times_and_station_rows(field):
    view, backend = counted_view(field, vectorized=False)
    make = maker(view)
    for i in range(5):
        backend.reads.clear()
        record, _ = make(i)
        length = len(record["data"][0])
        ((key, n),) = backend.reads  # one read per sample
        tkey, rkey, ckey = key
        n_times = len(range(*tkey.indices(view.shape[0]))) if isinstance(tkey, slice) else len(tkey)
        assert n_times == length
        lats = {round(float(np.degrees(np.arcsin(c[0])))) for c in record["description"]["coords"]}
        assert set(np.round(view.lat[rkey]).astype(int).tolist()) == lats  # station rows only
        assert n <= length * len(lats) * view.shape[2]
    backend.reads.clear()
    raw, nans = fit_normalization(view, series_index(view.times), np.arange(len(view.lat)), 0)
    assert nans == 0 and raw.size == 64 * 32 * 64
    assert len(backend.reads) == 1 and backend.elements <= 64 * 32 * view.shape[2]
