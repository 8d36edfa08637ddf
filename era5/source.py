"""Open ERA5 2 m temperature in any supported layout as one lazy (time, lat, lon) view.

Supported sources (all opened lazily with xarray; nothing is read until :meth:`T2mView.read`):

* CDS NetCDF as delivered today: ``t2m`` in K on ``(valid_time, latitude, longitude)``, extra
  coordinates ``number`` (scalar) and ``expver`` (along ``valid_time``);
* older CDS NetCDF: ``t2m`` on ``(time, latitude, longitude)``, or on
  ``(time, expver, latitude, longitude)`` when a request mixed ERA5 (expver 1) and ERA5T
  (expver 5). Each time is then taken from the expver that holds data there, the lowest expver
  (final ERA5) winning when both do; times where none holds data are dropped (a gap);
* one file, a folder of ``*.nc`` files or a glob pattern (files may come in any order; they are
  sorted by their first time, and times must not repeat across files);
* a Zarr store with ARCO-ERA5 naming: ``2m_temperature`` on ``(time, latitude, longitude)``.

Values are returned in the source's units; :func:`units_offset` says what to add to get kelvin.
"""

from __future__ import annotations

import functools
import glob
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import xarray as xr

from scinum.errors import DatasetError

__all__ = ["T2mView", "open_view", "open_view_cached", "view_from_datasets", "units_offset", "VARIABLE_NAMES"]

#: Names tried, in order, for the 2 m temperature variable (CDS, ARCO-ERA5, GRIB short name).
VARIABLE_NAMES = ("t2m", "2m_temperature", "2t")
_TIME_NAMES = ("valid_time", "time")
_LAT_NAMES = ("latitude", "lat")
_LON_NAMES = ("longitude", "lon")
_KELVIN = {"k", "kelvin", "degk", "deg_k"}
_CELSIUS = {"degc", "°c", "c", "celsius", "deg_c", "degrees_celsius", "degree_celsius", "oc"}


@dataclass
class _Piece:
    """A lazy DataArray with dims exactly (time, lat, lon) and the file it comes from."""

    da: xr.DataArray
    times: np.ndarray  # datetime64[ns][n] of this piece's time index
    local: np.ndarray  # int64[n]: position of each of those times along da's time dim
    file: str


class T2mView:
    """All sources normalised to one lazy ``(time, lat, lon)`` array.

    Attributes: ``times`` datetime64[ns][T] strictly increasing; ``lat`` float64[nlat] and
    ``lon`` float64[nlon] in degrees, in the source's order; ``units`` the variable's ``units``
    attribute (or ``None``); ``source`` a description for messages; ``vectorized`` whether the
    backend reads scattered points natively (Zarr) rather than orthogonal slabs (NetCDF).
    """

    def __init__(self, pieces: list[_Piece], lat: np.ndarray, lon: np.ndarray, units: str | None, source: str, vectorized: bool):
        times = np.concatenate([p.times for p in pieces])
        piece_of = np.concatenate([np.full(len(p.times), i) for i, p in enumerate(pieces)])
        order = np.argsort(times, kind="stable")
        self.times = times[order]
        self.piece_of = piece_of[order]
        self.local_of = np.concatenate([p.local for p in pieces])[order]
        dup = np.flatnonzero(np.diff(self.times.astype(np.int64)) == 0)
        if len(dup):
            a, b = (pieces[self.piece_of[k]].file for k in (dup[0], dup[0] + 1))
            raise DatasetError(f"{b}: duplicated time {self.times[dup[0]]}, also in {a} (overlapping files)")
        self.pieces = pieces
        self.lat, self.lon = lat, lon
        self.units, self.source, self.vectorized = units, source, vectorized

    @property
    def shape(self) -> tuple[int, int, int]:
        return len(self.times), len(self.lat), len(self.lon)

    def _parts(self, t: np.ndarray):
        """Split internal time indices into (piece, positions in t, local index array)."""
        pid = self.piece_of[t]
        for p in np.unique(pid):
            sel = np.flatnonzero(pid == p)
            yield self.pieces[p], sel, self.local_of[t[sel]]

    @staticmethod
    def _tindex(local: np.ndarray):
        if len(local) > 1 and (np.diff(local) == 1).all():
            return slice(int(local[0]), int(local[-1]) + 1)
        return local

    def read(self, t: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Values at stations ``(lat[rows[k]], lon[cols[k]])`` for times ``t``.

        ``t`` int[L] increasing, ``rows``/``cols`` int[P]; returns float64[L, P] in source units
        (NaN where the source has none). Reads only those times; per time, the stations themselves
        (Zarr: vectorised indexing) or the grid rows they lie on, restricted to the longitude span
        of the stations (NetCDF: orthogonal indexing, which netCDF4 serves one row at a time).
        """
        out = np.empty((len(t), len(rows)), dtype=np.float64)
        for piece, sel, local in self._parts(np.asarray(t)):
            ti = self._tindex(local)
            tdim, ydim, xdim = piece.da.dims
            if self.vectorized:
                sub = piece.da.isel({tdim: ti, ydim: xr.DataArray(rows, dims="station"), xdim: xr.DataArray(cols, dims="station")})
                out[sel] = sub.values
            else:
                urows, inv = np.unique(rows, return_inverse=True)
                c0, c1 = int(cols.min()), int(cols.max()) + 1
                block = piece.da.isel({tdim: ti, ydim: urows, xdim: slice(c0, c1)}).values
                out[sel] = block[:, inv, cols - c0]
        return out

    def read_outer(self, t: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Orthogonal read: float64[len(t), len(rows), len(cols)] in source units.

        ``cols`` must be increasing. NetCDF sources read the rows' whole column span and pick
        the columns in memory (netCDF4 would otherwise issue one call per row × column pair).
        """
        out = np.empty((len(t), len(rows), len(cols)), dtype=np.float64)
        for piece, sel, local in self._parts(np.asarray(t)):
            tdim, ydim, xdim = piece.da.dims
            if self.vectorized:
                out[sel] = piece.da.isel({tdim: self._tindex(local), ydim: rows, xdim: cols}).values
            else:
                c0, c1 = int(cols[0]), int(cols[-1]) + 1
                block = piece.da.isel({tdim: self._tindex(local), ydim: rows, xdim: slice(c0, c1)}).values
                out[sel] = block[:, :, cols - c0]
        return out


def _pick(names: tuple[str, ...], have, what: str, file: str) -> str:
    for n in names:
        if n in have:
            return n
    raise DatasetError(f"{file}: no {what} (looked for {', '.join(names)}; found {', '.join(map(str, have)) or 'nothing'})")


def _check_times(times: np.ndarray, name: str, file: str) -> None:
    if not np.issubdtype(times.dtype, np.datetime64):
        raise DatasetError(f"{file}: time coordinate {name!r} is not decodable as dates (dtype {times.dtype}, units missing or not CF)")
    d = np.diff(times.astype("datetime64[ns]").astype(np.int64))
    if (d == 0).any():
        k = int(np.flatnonzero(d == 0)[0])
        raise DatasetError(f"{file}: duplicated time {times[k + 1]} at index {k + 1} of {name!r}")
    if (d < 0).any():
        k = int(np.flatnonzero(d < 0)[0])
        raise DatasetError(f"{file}: non-monotonic times in {name!r}: {times[k + 1]} at index {k + 1} comes after {times[k]}")


def _check_axis(values: np.ndarray, name: str, file: str) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64)
    d = np.diff(v)
    if len(v) == 0 or not (np.all(d > 0) or np.all(d < 0)) or not np.isfinite(v).all():
        raise DatasetError(f"{file}: coordinate {name!r} must be strictly monotonic and finite")
    return v


def _pieces_of(ds: xr.Dataset, file: str, variable: str | None):
    """Normalise one opened dataset: ([_Piece], lat, lon, units)."""
    var = _pick((variable,) if variable else VARIABLE_NAMES, ds.data_vars, "2 m temperature variable", file)
    da = ds[var]
    tdim = _pick(_TIME_NAMES, da.dims, "time dimension", file)
    ydim = _pick(_LAT_NAMES, da.dims, "latitude dimension", file)
    xdim = _pick(_LON_NAMES, da.dims, "longitude dimension", file)
    for d in da.dims:
        if d in (tdim, ydim, xdim, "expver"):
            continue
        if da.sizes[d] != 1:
            raise DatasetError(
                f"{file}: {var!r} has an extra dimension {d!r} of size {da.sizes[d]} (e.g. several ensemble members); select one first"
            )
        da = da.isel({d: 0})
    times = np.asarray(ds[tdim].values)
    _check_times(times, tdim, file)
    times = times.astype("datetime64[ns]")
    lat = _check_axis(ds[ydim].values, ydim, file)
    lon = _check_axis(ds[xdim].values, xdim, file)
    units = da.attrs.get("units")
    if "expver" not in da.dims:
        piece = _Piece(da.transpose(tdim, ydim, xdim), times, np.arange(len(times)), file)
        return [piece], lat, lon, units
    # Legacy layout: which expver holds each time? Probe a few grid points per time and expver.
    evs = da["expver"].values if "expver" in da.coords else np.arange(da.sizes["expver"])
    order = np.argsort(np.asarray(evs).astype(str))  # '1' before '5': final ERA5 wins
    ry = np.unique(np.linspace(0, len(lat) - 1, 3).astype(int))
    rx = np.unique(np.linspace(0, len(lon) - 1, 3).astype(int))
    probe = da.transpose(tdim, "expver", ydim, xdim).isel({ydim: ry, xdim: rx}).values
    has = np.isfinite(probe).any(axis=(2, 3))  # (time, expver)
    owner = np.full(len(times), -1)
    for e in order[::-1]:
        owner[has[:, e]] = e
    pieces = []
    for e in order:
        local = np.flatnonzero(owner == e)
        if len(local):
            sub = da.isel(expver=int(e)).transpose(tdim, ydim, xdim)
            pieces.append(_Piece(sub, times[local], local, f"{file} (expver {evs[e]})"))
    if not pieces:
        raise DatasetError(f"{file}: {var!r} holds no data in any expver")
    return pieces, lat, lon, units


def view_from_datasets(datasets: list[tuple[xr.Dataset, str]], variable: str | None = None, vectorized: bool = False) -> T2mView:
    """Build a view from already opened (lazy) datasets, each named by its file for messages."""
    pieces, grid, units = [], None, None
    for ds, file in datasets:
        p, lat, lon, u = _pieces_of(ds, file, variable)
        if grid is None:
            grid, units = (lat, lon, file), u
        elif len(lat) != len(grid[0]) or len(lon) != len(grid[1]) or not (np.allclose(lat, grid[0]) and np.allclose(lon, grid[1])):
            raise DatasetError(f"{file}: grid differs from that of {grid[2]}")
        elif u != units:
            raise DatasetError(f"{file}: units {u!r} differ from {units!r} in {grid[2]}")
        pieces += p
    if grid is None:
        raise DatasetError("no datasets given")
    return T2mView(pieces, grid[0], grid[1], units, datasets[0][1] if len(datasets) == 1 else f"{len(datasets)} files", vectorized)


def _is_zarr(p: Path) -> bool:
    return p.suffix == ".zarr" or (p.is_dir() and any((p / m).exists() for m in ("zarr.json", ".zgroup", ".zmetadata")))


def open_view(source: str | os.PathLike, variable: str | None = None) -> T2mView:
    """Open ``source`` (file, folder of ``*.nc``, glob pattern, or Zarr store) lazily."""
    src = str(source)
    p = Path(src)
    if p.exists() and _is_zarr(p):
        try:
            ds = xr.open_zarr(p, chunks=None, decode_timedelta=False)
        except Exception as e:  # noqa: BLE001 - report any backend failure with the path
            raise DatasetError(f"{src}: cannot open as Zarr ({e})") from None
        return view_from_datasets([(ds, src)], variable, vectorized=True)
    if p.is_dir():
        files = sorted(str(f) for f in p.glob("*.nc"))
    elif p.exists():
        files = [src]
    else:
        files = sorted(glob.glob(src))
    if not files:
        raise DatasetError(f"{src}: no such file, or no *.nc files match")
    opened = []
    for f in files:
        try:
            opened.append((xr.open_dataset(f, engine="netcdf4", chunks=None, cache=False, decode_timedelta=False), f))
        except Exception as e:  # noqa: BLE001 - report any backend failure with the path
            raise DatasetError(f"{f}: cannot open as NetCDF ({e})") from None
    return view_from_datasets(opened, variable, vectorized=False)


@functools.lru_cache(maxsize=4)
def open_view_cached(source: str, variable: str | None = None) -> T2mView:
    """:func:`open_view` once per process (workers call this; nothing loaded is pickled)."""
    return open_view(source, variable)


def units_offset(units: str | None, sample: np.ndarray, source: str) -> tuple[float, str]:
    """What to add to source values to get kelvin, and a note for the manifest.

    Rule (documented in era5/README.md): declared kelvin is used as is, declared °C gets
    +273.15; a declaration contradicted by the data (median of ``sample`` below 100 for K,
    above 150 for °C) is an error; without a ``units`` attribute, a median below 100 means °C.
    """
    finite = sample[np.isfinite(sample)]
    if finite.size == 0:
        raise DatasetError(f"{source}: the sampled temperatures are all NaN")
    med = float(np.median(finite))
    u = (units or "").strip().lower().replace(" ", "")
    if u in _KELVIN:
        if med < 100:
            raise DatasetError(
                f"{source}: units say kelvin but the median sampled value is {med:.1f}, which looks like °C; fix the units attribute"
            )
        return 0.0, "K"
    if u in _CELSIUS:
        if med > 150:
            raise DatasetError(
                f"{source}: units say °C but the median sampled value is {med:.1f}, which looks like kelvin; fix the units attribute"
            )
        return 273.15, f"declared {units!r}, converted to K by adding 273.15"
    if u == "":
        if med < 100:
            return 273.15, f"no units; median {med:.1f} < 100 taken as °C, +273.15"
        return 0.0, f"no units; median {med:.1f} >= 100 taken as K"
    raise DatasetError(f"{source}: unsupported temperature units {units!r} (expected K or °C)")
