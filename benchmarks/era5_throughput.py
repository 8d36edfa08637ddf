"""ERA5 builder throughput: samples/s drawn from a synthetic 0.25° multi-month NetCDF file.

Writes a global 0.25° (721 × 1440) 8-hourly synthetic ``t2m`` file in today's CDS layout into a
temporary folder (``--days 61``: 183 fields, ~0.76 GB, uncompressed float32), then draws the
same samples two ways, interleaved in blocks so both see the same machine state:

* project: :class:`scinum_era5.sampling.SampleMaker` (one orthogonal read of the sampled times × the
  station rows per sample, then numpy picks the stations);
* reference: the plain approach, the same draws but ``DataArray.isel(time=slice, latitude=i,
  longitude=j).values`` station by station.

Both produce identical records (checked). A last row times the whole builder (JSON shards,
manifest) with ``--workers``. The file was just written, so reads come from the page cache for
both paths; on cold disks or compressed CDS files both slow down. The last line is the headline.

    python benchmarks/era5_throughput.py [--days 61] [--samples 60] [--workers 2] [--smoke]

``--smoke``: a small coarse file and a few samples, one worker (checks that it runs).
"""

from __future__ import annotations

import argparse
import tempfile
import time
import zlib
from pathlib import Path

import numpy as np

from scinum_era5 import builder, synthetic
from scinum_era5.sampling import SampleConfig, SampleMaker, coord_features, fit_normalization, runs_remaining, series_index, start_features
from scinum_era5.source import open_view


def reference_sample(da, cfg: SampleConfig, lat: np.ndarray, lon: np.ndarray, i: int) -> dict:
    """The plain approach: same random draws as SampleMaker, one ``isel`` per station."""
    rng = np.random.default_rng([cfg.seed, zlib.crc32(cfg.split.encode()), i])
    length = int(rng.integers(cfg.steps[0], cfg.steps[1] + 1))
    n = int(rng.integers(cfg.stations[0], cfg.stations[1] + 1))
    starts = np.flatnonzero(cfg.starts_ok >= length)
    k = int(starts[rng.integers(len(starts))])
    flat = rng.choice(len(cfg.rows) * len(lon), size=n, replace=False)
    rows, cols = cfg.rows[flat // len(lon)], flat % len(lon)
    t0 = int(cfg.times[k])
    series = [
        da.isel(valid_time=slice(t0, t0 + length), latitude=int(r), longitude=int(c)).values.astype(np.float64) for r, c in zip(rows, cols)
    ]
    data = (np.array(series) + cfg.offset - cfg.mean) / cfg.std  # (P, L)
    coords = coord_features(lat[rows], lon[cols])
    start = start_features(cfg.stamps[k])
    data, coords, start = (np.round(a, cfg.decimals) + 0.0 for a in (data, coords, start))
    return {"description": {"coords": coords.tolist(), "start": start.tolist()}, "data": data.tolist()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--days", type=float, default=61, help="length of the synthetic file")
    p.add_argument("--resolution", type=float, default=0.25)
    p.add_argument("--samples", type=int, default=60, help="samples per path")
    p.add_argument("--block", type=int, default=10, help="samples per interleaved block")
    p.add_argument("--workers", type=int, default=2, help="workers for the full-builder row")
    p.add_argument("--smoke", action="store_true", help="tiny sizes: checks that the script runs, measures nothing")
    a = p.parse_args(argv)
    if a.smoke:
        a.days, a.resolution, a.samples, a.block, a.workers = 8, 5.0, 4, 2, 1
    with tempfile.TemporaryDirectory(prefix="era5bench") as tmp:
        path = Path(tmp) / "t2m.nc"
        t = time.perf_counter()
        synthetic.write_netcdf(path, start="2020-01-01", days=a.days, resolution=a.resolution)
        gen_s = time.perf_counter() - t
        view = open_view(path)
        idx = series_index(view.times)
        rows = np.arange(len(view.lat))
        raw, _ = fit_normalization(view, idx, rows, 0)
        cfg = SampleConfig(
            source=str(path),
            variable=None,
            split="train",
            seed=0,
            times=idx,
            starts_ok=runs_remaining(view.times[idx], 8),
            stamps=view.times[idx],
            rows=rows,
            offset=0.0,
            mean=float(raw.mean()),
            std=float(raw.std()),
        )
        make, da = SampleMaker(cfg, view), view.pieces[0].da
        for i in range(3):  # same records both ways (and warm-up)
            assert make(i)[0] == reference_sample(da, cfg, view.lat, view.lon, i), i
        t_proj = t_ref = 0.0
        for b in range(0, a.samples, a.block):
            ids = range(1000 + b, 1000 + min(a.samples, b + a.block))
            t = time.perf_counter()
            for i in ids:
                make(i)
            t_proj += time.perf_counter() - t
            t = time.perf_counter()
            for i in ids:
                reference_sample(da, cfg, view.lat, view.lon, i)
            t_ref += time.perf_counter() - t
        n_build = 4 * a.samples
        out = Path(tmp) / "ds"
        bp = argparse.ArgumentParser()
        builder.add_arguments(bp)
        t = time.perf_counter()
        builder.run(
            bp.parse_args(
                [
                    str(out),
                    "--source",
                    str(path),
                    "--train",
                    str(n_build),
                    "--val",
                    "0",
                    "--test",
                    "0",
                    "--ood",
                    "0",
                    "--shard-size",
                    str(max(1, n_build // (2 * a.workers))),
                    "--workers",
                    str(a.workers),
                ]
            )
        )
        t_build = time.perf_counter() - t
        size_gb = path.stat().st_size / 1e9
    proj, ref = a.samples / t_proj, a.samples / t_ref
    print(
        f"synthetic file: {len(view.lat)}x{len(view.lon)} grid, {len(view.times)} fields "
        f"8-hourly, {size_gb:.2f} GB, written in {gen_s:.1f} s"
    )
    print(f"{'path':<46} {'samples':>8} {'seconds':>8} {'samples/s':>10}")
    print(f"{'project: SampleMaker (row-block read)':<46} {a.samples:>8} {t_proj:>8.2f} {proj:>10.1f}")
    print(f"{'reference: xarray isel per station':<46} {a.samples:>8} {t_ref:>8.2f} {ref:>10.1f}")
    print(f"{f'full builder, {a.workers} workers (incl. startup)':<46} {n_build:>8} {t_build:>8.2f} {n_build / t_build:>10.1f}")
    print(f"era5_throughput: {proj:.1f} samples/s vs reference {ref:.1f} samples/s = {proj / ref:.2f}x (target >= 1x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
