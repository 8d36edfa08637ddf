"""A synthetic ERA5-like 2 m temperature field, written in the schemas the builder reads.

The field (kelvin) is plausible enough to exercise the builder and the model, not to replace ERA5::

    T(t, lat, lon) = T0(lat)                                   latitude gradient, cold Antarctica
                   - S(lat, lon) * sin(lat) * cos(2π(y(t) - 0.04))   seasonal cycle (NH coldest mid Jan)
                   + D(lat, lon) * cos(2π(h(t) + lon/15 - 15)/24)    diurnal cycle, peak 15 h local
                   + N(lat) * W(t, lat, lon)                   spatially correlated weather noise

``y(t)`` is the fraction of the year, ``h(t)`` the UTC hour, ``S``/``D`` grow with a fixed smooth
"continentality" pattern, and ``W`` is a unit-variance AR(1) process (e-folding time 36 h) on a
coarse 10° grid, bilinearly interpolated to the output grid. Everything is deterministic in
``seed`` and the time axis.

Layouts (see :func:`write_netcdf`, :func:`write_zarr`):

* ``"cds"``: today's CDS NetCDF: ``t2m(valid_time, latitude, longitude)`` in K, ``valid_time`` in
  seconds since 1970, scalar coord ``number``, ``expver`` strings along ``valid_time``;
* ``"cds-legacy"``: the older CDS NetCDF: ``time`` in hours since 1900 and, with ``era5t_from``,
  an ``expver`` *dimension* (1 = ERA5, 5 = ERA5T), each time present in one of them, NaN
  (or the fill value when ``packed``) in the other;
* Zarr with ARCO-ERA5 naming: ``2m_temperature(time, latitude, longitude)``.

Latitude runs 90 → -90, longitude 0 → 360 - resolution, as ERA5 delivers them.
Run ``python -m scinum_era5.synthetic OUT.nc --days 30`` to write one from the command line.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Iterator

import netCDF4
import numpy as np

from scinum.util.atomic import atomic_path

__all__ = ["grid", "time_axis", "t2m_blocks", "t2m_field", "write_netcdf", "write_zarr"]

_COARSE_DEG = 10.0
_TAU_HOURS = 36.0


def grid(resolution: float = 2.0, lat_max: float = 90.0, lat_min: float = -90.0) -> tuple[np.ndarray, np.ndarray]:
    """ERA5-ordered grid in degrees: latitude float64[nlat] descending from ``lat_max`` to
    ``lat_min``, longitude float64[nlon] ascending from 0 to ``360 - resolution``."""
    nlat = int(round((lat_max - lat_min) / resolution)) + 1
    lat = lat_max - resolution * np.arange(nlat, dtype=np.float64)
    lon = resolution * np.arange(int(round(360.0 / resolution)), dtype=np.float64)
    return lat, lon


def time_axis(start: str = "2020-01-01", days: float = 30, step_hours: int = 8) -> np.ndarray:
    """datetime64[ns][T]: ``days`` days from ``start`` every ``step_hours`` hours."""
    n = int(days * 24 // step_hours)
    return np.datetime64(start, "ns") + np.arange(n, dtype=np.int64) * np.timedelta64(step_hours, "h").astype("m8[ns]")


def _bilinear(lat: np.ndarray, lon: np.ndarray):
    """Weights to interpolate a coarse (lat 90..-90, lon 0..350 periodic) field to (lat, lon)."""
    clat, clon = grid(_COARSE_DEG)
    fy = np.clip((clat[0] - lat) / _COARSE_DEG, 0, len(clat) - 1 - 1e-9)
    iy = fy.astype(int)
    fx = (lon % 360.0) / _COARSE_DEG
    ix = fx.astype(int) % len(clon)
    wy, wx = (fy - iy)[:, None], (fx - np.floor(fx))[None, :]
    iy0, iy1 = iy[:, None], (iy + 1)[:, None]
    ix0, ix1 = ix[None, :], ((ix + 1) % len(clon))[None, :]

    def interp(c: np.ndarray) -> np.ndarray:
        return (1 - wy) * ((1 - wx) * c[iy0, ix0] + wx * c[iy0, ix1]) + wy * ((1 - wx) * c[iy1, ix0] + wx * c[iy1, ix1])

    return interp, (len(clat), len(clon))


def t2m_blocks(times: np.ndarray, lat: np.ndarray, lon: np.ndarray, seed: int = 0, block: int = 8) -> Iterator[np.ndarray]:
    """Yield the field, float32[<=block, nlat, nlon] in K, ``block`` time steps at a time.

    ``times`` is datetime64[T] increasing; memory stays O(block · nlat · nlon).
    """
    rng = np.random.default_rng(seed)
    interp, cshape = _bilinear(lat, lon)
    phi_lat = np.deg2rad(lat)[:, None]
    continental = 1 / (1 + np.exp(-2.5 * interp(rng.standard_normal(cshape))))  # (nlat, nlon) in (0, 1)
    t0 = 302.0 - 45.0 * np.sin(phi_lat) ** 2 - 20.0 * np.clip((-lat[:, None] - 65) / 25, 0, 1)
    season_amp = (4.0 + 16.0 * continental) * np.sin(phi_lat)
    diurnal_amp = 1.0 + 6.0 * continental * np.cos(phi_lat)
    noise_amp = 1.5 + 3.5 * np.abs(np.sin(phi_lat))
    times = np.asarray(times, dtype="datetime64[ns]")
    hours = (times - np.datetime64("1970-01-01", "ns")) / np.timedelta64(1, "h")
    years = times.astype("datetime64[Y]")
    year_frac = (times - years.astype("datetime64[ns]")) / ((years + 1).astype("datetime64[ns]") - years.astype("datetime64[ns]"))
    state = rng.standard_normal(cshape)
    for b in range(0, len(times), block):
        out = np.empty((min(block, len(times) - b), len(lat), len(lon)), dtype=np.float32)
        for k in range(out.shape[0]):
            j = b + k
            if j > 0:
                phi = np.exp(-(hours[j] - hours[j - 1]) / _TAU_HOURS)
                state = phi * state + np.sqrt(1 - phi**2) * rng.standard_normal(cshape)
            utc = hours[j] % 24.0
            field = (
                t0
                - season_amp * np.cos(2 * np.pi * (year_frac[j] - 0.04))
                + diurnal_amp * np.cos(2 * np.pi * (utc + lon[None, :] / 15.0 - 15.0) / 24.0)
                + noise_amp * interp(state)
            )
            out[k] = field
        yield out


def t2m_field(times: np.ndarray, lat: np.ndarray, lon: np.ndarray, seed: int = 0) -> np.ndarray:
    """The whole field, float32[T, nlat, nlon] in K (small grids only)."""
    return np.concatenate(list(t2m_blocks(times, lat, lon, seed)), axis=0)


def write_netcdf(
    path: str | os.PathLike,
    *,
    layout: str = "cds",
    start: str = "2020-01-01",
    days: float = 30,
    step_hours: int = 8,
    resolution: float = 2.0,
    lat_max: float = 90.0,
    lat_min: float = -90.0,
    seed: int = 0,
    era5t_from: str | None = None,
    packed: bool = False,
    celsius: bool = False,
    compress: bool = False,
    block: int = 8,
) -> Path:
    """Write the synthetic field as one ERA5-schema NetCDF-4 file and return its path.

    ``layout`` is ``"cds"`` or ``"cds-legacy"`` (module docstring). ``era5t_from`` (legacy only,
    ISO date): times from then on are stored under expver 5 (ERA5T), earlier ones under expver 1,
    as an ``expver`` dimension. ``packed`` stores int16 with scale/offset like old CDS files
    (values then differ by up to half the 3 mK packing step). ``celsius`` writes °C with
    ``units = "degC"`` (to test unit handling). The file is written under a temporary name and
    renamed.
    """
    if layout not in ("cds", "cds-legacy"):
        raise ValueError(f"layout must be 'cds' or 'cds-legacy', got {layout!r}")
    path = Path(path)
    times = time_axis(start, days, step_hours)
    lat, lon = grid(resolution, lat_max, lat_min)
    legacy = layout == "cds-legacy"
    with atomic_path(path) as tmp, netCDF4.Dataset(tmp, "w", format="NETCDF4") as nc:
        tname = "time" if legacy else "valid_time"
        nc.createDimension(tname, len(times))
        nc.createDimension("latitude", len(lat))
        nc.createDimension("longitude", len(lon))
        dims: tuple[str, ...] = (tname, "latitude", "longitude")
        split = None
        if legacy and era5t_from is not None:
            nc.createDimension("expver", 2)
            ev = nc.createVariable("expver", "i4", ("expver",))
            ev[:] = [1, 5]
            ev.long_name = "expver"
            dims = (tname, "expver", "latitude", "longitude")
            split = int(np.searchsorted(times, np.datetime64(era5t_from, "ns")))
        tv = nc.createVariable(tname, "i4" if legacy else "i8", (tname,))
        if legacy:
            tv.units, tv.calendar = "hours since 1900-01-01 00:00:00.0", "gregorian"
            tv[:] = (times - np.datetime64("1900-01-01", "ns")) // np.timedelta64(1, "h")
        else:
            tv.units, tv.calendar = "seconds since 1970-01-01", "proleptic_gregorian"
            tv[:] = (times - np.datetime64("1970-01-01", "ns")) // np.timedelta64(1, "s")
        tv.standard_name, tv.long_name = "time", "time"
        for name, values, units in (("latitude", lat, "degrees_north"), ("longitude", lon, "degrees_east")):
            v = nc.createVariable(name, "f8" if not legacy else "f4", (name,))
            v[:] = values
            v.units, v.standard_name, v.long_name = units, name, name
        if not legacy:
            num = nc.createVariable("number", "i8", ())
            num[...] = 0
            num.long_name, num.units = "ensemble member numerical id", "1"
            ev = nc.createVariable("expver", str, (tname,))
            for j in range(len(times)):
                ev[j] = "0001"
            ev.long_name = "experiment version"
        kw: dict = {"zlib": compress, "complevel": 1} if compress else {}
        if packed:
            var = nc.createVariable("t2m", "i2", dims, fill_value=np.int16(-32767), **kw)
            var.scale_factor = np.float64(0.003)  # ±98 K around the offset
            var.add_offset = np.float64(260.0 if not celsius else -13.15)
            var.missing_value = np.int16(-32767)
        else:
            var = nc.createVariable("t2m", "f4", dims, fill_value=np.float32(np.nan), **kw)
        var.units = "degC" if celsius else "K"
        var.long_name = "2 metre temperature"
        if not legacy:
            var.coordinates = "number valid_time latitude longitude expver"
        j = 0
        for blk in t2m_blocks(times, lat, lon, seed, block):
            if celsius:
                blk = blk - np.float32(273.15)
            n = blk.shape[0]
            if split is None:
                var[j : j + n] = blk
            else:
                for k in range(n):
                    e = 0 if j + k < split else 1
                    var[j + k, e] = blk[k]
                    var[j + k, 1 - e] = np.ma.array(np.zeros(blk.shape[1:], np.float32), mask=True)
            j += n
    return path


def write_zarr(
    path: str | os.PathLike,
    *,
    start: str = "2020-01-01",
    days: float = 30,
    step_hours: int = 8,
    resolution: float = 2.0,
    lat_max: float = 90.0,
    lat_min: float = -90.0,
    seed: int = 0,
) -> Path:
    """Write the field as a Zarr store with ARCO-ERA5 naming (``2m_temperature``, ``time``),
    one chunk per time step like ARCO-ERA5. Builds the array in memory: small grids only."""
    import xarray as xr

    times = time_axis(start, days, step_hours)
    lat, lon = grid(resolution, lat_max, lat_min)
    da = xr.DataArray(
        t2m_field(times, lat, lon, seed),
        dims=("time", "latitude", "longitude"),
        coords={"time": times, "latitude": lat, "longitude": lon},
        attrs={"units": "K", "long_name": "2 metre temperature"},
    )
    ds = da.to_dataset(name="2m_temperature").chunk({"time": 1})
    ds.to_zarr(path, mode="w", zarr_format=2, consolidated=True)
    return Path(path)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="write a synthetic ERA5-schema 2 m temperature file")
    p.add_argument("out", help="output .nc file (or .zarr directory with --layout zarr)")
    p.add_argument("--layout", choices=("cds", "cds-legacy", "zarr"), default="cds")
    p.add_argument("--start", default="2020-01-01")
    p.add_argument("--days", type=float, default=30)
    p.add_argument("--step-hours", type=int, default=8)
    p.add_argument("--resolution", type=float, default=2.0, help="grid spacing in degrees")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--era5t-from", default=None, help="legacy layout: ISO date where ERA5T starts")
    a = p.parse_args(argv)
    common = dict(start=a.start, days=a.days, step_hours=a.step_hours, resolution=a.resolution, seed=a.seed)
    if a.layout == "zarr":
        write_zarr(a.out, **common)
    else:
        write_netcdf(a.out, layout=a.layout, era5t_from=a.era5t_from, **common)
    print(a.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
