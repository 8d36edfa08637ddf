"""Time axis, splits, normalisation statistics and the per-sample draw (xVal paper, App. B.1).

A sample (seed 002, §3.2 and App. B.1) takes ``P ~ U{60..90}`` random grid points ("stations")
and ``L ~ U{8..16}`` consecutive 8-hourly times from a random start, and is the record::

    {"description": {"coords": [[sin(lat), sin(lon), cos(lon)], ...]   # P rows
                     "start": [sin(2πy), cos(2πy), sin(2πh/24), cos(2πh/24)]},
     "data": [[T_1, ..., T_L], ...]}                                   # P rows, normalised

with ``y`` the fraction of the year elapsed at the first time (days since 1 Jan / days in that
year) and ``h`` its UTC hour. ``T = (t2m[K] - mean) / std`` with ``mean``/``std`` fitted on the
train period (:func:`fit_normalization`).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np

from scinum.errors import DatasetError

from .source import T2mView, open_view_cached

__all__ = ["series_index", "split_periods", "fit_normalization", "SampleConfig", "SampleMaker", "start_features", "coord_features"]


def series_index(times: np.ndarray, step_hours: int = 8) -> np.ndarray:
    """int64[N]: indices of ``times`` on the ``step_hours`` grid anchored at 00 UTC
    (8 h: 00, 08, 16 UTC). Hourly sources give every 8th field; 8-hourly ones all of them."""
    hours = times.astype("datetime64[s]").astype(np.int64)
    on_grid = hours % (3600 * step_hours) == 0
    return np.flatnonzero(on_grid)


def runs_remaining(times: np.ndarray, step_hours: int) -> np.ndarray:
    """int64[N]: for each time of an increasing series, how many consecutive times (itself
    included) follow it at exactly ``step_hours`` spacing. A window of L steps may start at k
    iff ``runs_remaining[k] >= L``, so windows never cross a gap in the source."""
    n = len(times)
    out = np.ones(n, dtype=np.int64)
    if n == 0:
        return out
    step = np.timedelta64(step_hours, "h")
    breaks = np.diff(times) != step
    for k in range(n - 2, -1, -1):  # O(N) once per split; N ~ 1e5 for 90 years 8-hourly
        if not breaks[k]:
            out[k] = out[k + 1] + 1
    return out


def split_periods(times: np.ndarray, periods: dict[str, tuple[str | None, str | None]]) -> dict[str, np.ndarray]:
    """Positions (into ``times``) of each split's half-open period ``[start, end)`` (ISO dates,
    ``None`` = open). Periods must not overlap; each must hold at least one time."""
    out, bounds = {}, []
    for name, (a, b) in periods.items():
        lo = np.datetime64(a, "ns") if a else times[0]
        hi = np.datetime64(b, "ns") if b else times[-1] + np.timedelta64(1, "ns")
        if hi <= lo:
            raise DatasetError(f"split {name!r}: period end {b} is not after its start {a}")
        for other, (olo, ohi) in bounds:
            if lo < ohi and olo < hi:
                raise DatasetError(f"splits {other!r} and {name!r} overlap in time")
        bounds.append((name, (lo, hi)))
        out[name] = np.flatnonzero((times >= lo) & (times < hi))
    return out


def fraction_periods(times: np.ndarray, fractions: tuple[float, float, float], step_hours: int) -> dict[str, tuple[str, str]]:
    """Consecutive train/val/test periods covering the series ``times`` in the given
    fractions (the last ends one step after the last time)."""
    cuts = np.cumsum((0.0,) + tuple(fractions)) / sum(fractions)
    idx = np.minimum((cuts * len(times)).round().astype(int), len(times))
    end = times[-1] + np.timedelta64(step_hours, "h")
    edges = [str(np.datetime64(times[i] if i < len(times) else end, "s")) for i in idx]
    return {n: (edges[k], edges[k + 1]) for k, n in enumerate(("train", "val", "test"))}


def coord_features(lat_deg: np.ndarray, lon_deg: np.ndarray) -> np.ndarray:
    """float64[P, 3]: [sin(lat), sin(lon), cos(lon)] of stations given in degrees."""
    la, lo = np.deg2rad(lat_deg), np.deg2rad(lon_deg)
    return np.stack([np.sin(la), np.sin(lo), np.cos(lo)], axis=1)


def start_features(t: np.datetime64) -> np.ndarray:
    """float64[4]: [sin, cos] of the year phase then [sin, cos] of the UTC time-of-day phase."""
    t = np.datetime64(t, "s")
    year = t.astype("datetime64[Y]")
    y = (t - year.astype("datetime64[s]")) / ((year + 1).astype("datetime64[s]") - year.astype("datetime64[s]"))
    h = (t - t.astype("datetime64[D]").astype("datetime64[s]")) / np.timedelta64(1, "h")
    a, b = 2 * np.pi * y, 2 * np.pi * h / 24.0
    return np.array([np.sin(a), np.cos(a), np.sin(b), np.cos(b)])


def fit_normalization(
    view: T2mView, t: np.ndarray, rows: np.ndarray, seed: int, *, n_times: int = 64, n_rows: int = 32, n_cols: int = 64
) -> tuple[np.ndarray, int]:
    """Draw the train-period sample the statistics are fitted on, without loading the grid.

    ``n_times`` random train times × ``n_rows`` random allowed grid rows × ``n_cols`` random
    columns (an orthogonal read; uniform over grid points like the stations). Returns the
    raw values float64[n] (source units, NaN dropped) and the number of NaNs dropped.
    """
    rng = np.random.default_rng([seed, zlib.crc32(b"normalization")])
    tt = np.sort(rng.choice(t, size=min(n_times, len(t)), replace=False))
    rr = np.sort(rng.choice(rows, size=min(n_rows, len(rows)), replace=False))
    cc = np.sort(rng.choice(len(view.lon), size=min(n_cols, len(view.lon)), replace=False))
    v = view.read_outer(tt, rr, cc).ravel()
    ok = np.isfinite(v)
    return v[ok], int((~ok).sum())


@dataclass
class SampleConfig:
    """Everything a split's samples depend on (with ``seed`` and ``split``); picklable."""

    source: str
    variable: str | None
    split: str
    seed: int
    times: np.ndarray  # int64[N] internal view time indices of this split's 8-hourly series
    starts_ok: np.ndarray  # int64[N] runs_remaining of that series
    stamps: np.ndarray  # datetime64[ns][N] of that series
    rows: np.ndarray  # int64[R] grid rows (latitudes) stations may come from
    offset: float  # added to source values to get K
    mean: float  # K
    std: float  # K
    stations: tuple[int, int] = (60, 90)
    steps: tuple[int, int] = (8, 16)
    decimals: int | None = 4
    max_redraw_rounds: int = 50
    _starts: dict = field(default_factory=dict, repr=False)


class SampleMaker:
    """``make_sample(i) -> (record, {"nan_redraws": k})`` for one split, deterministic in
    (seed, split, i). The source is opened lazily once per process (never pickled)."""

    def __init__(self, cfg: SampleConfig, view: T2mView | None = None):
        self.cfg = cfg
        self._view = view

    def __getstate__(self) -> dict:
        return {"cfg": self.cfg, "_view": None}

    @property
    def view(self) -> T2mView:
        if self._view is None:
            self._view = open_view_cached(self.cfg.source, self.cfg.variable)
        return self._view

    def _valid_starts(self, length: int) -> np.ndarray:
        s = self.cfg._starts.get(length)
        if s is None:
            s = self.cfg._starts[length] = np.flatnonzero(self.cfg.starts_ok >= length)
        return s

    def __call__(self, i: int) -> tuple[dict, dict]:
        c = self.cfg
        rng = np.random.default_rng([c.seed, zlib.crc32(c.split.encode()), i])
        length = int(rng.integers(c.steps[0], c.steps[1] + 1))
        n = int(rng.integers(c.stations[0], c.stations[1] + 1))
        starts = self._valid_starts(length)
        if len(starts) == 0:
            raise DatasetError(
                f"{c.source}: split {c.split!r} has no run of {length} consecutive 8-hourly times (time range shorter than one sample)"
            )
        k = int(starts[rng.integers(len(starts))])
        t = c.times[k : k + length]
        nlon = len(self.view.lon)
        population = len(c.rows) * nlon
        if population < n:
            raise DatasetError(f"{c.source}: only {population} grid points available, a sample needs {n}")
        flat = rng.choice(population, size=n, replace=False)
        values = self.view.read(t, c.rows[flat // nlon], flat % nlon)
        used, redraws = set(flat.tolist()), 0
        for _ in range(c.max_redraw_rounds):
            bad = np.flatnonzero(~np.isfinite(values).all(axis=0))
            if len(bad) == 0:
                break
            redraws += len(bad)
            if len(used) + len(bad) > population:
                break
            new = []
            while len(new) < len(bad):
                cand = int(rng.integers(population))
                if cand not in used:
                    used.add(cand)
                    new.append(cand)
            flat[bad] = new
            values[:, bad] = self.view.read(t, c.rows[flat[bad] // nlon], flat[bad] % nlon)
        if not np.isfinite(values).all():
            raise DatasetError(
                f"{c.source}: split {c.split!r} sample {i}: still NaN after {redraws} station re-draws; the source is mostly missing here"
            )
        data = ((values + c.offset) - c.mean) / c.std  # (L, P)
        coords = coord_features(self.view.lat[c.rows[flat // nlon]], self.view.lon[flat % nlon])
        start = start_features(c.stamps[k])
        if c.decimals is not None:
            data, coords, start = (np.round(a, c.decimals) + 0.0 for a in (data, coords, start))
        record = {"description": {"coords": coords.tolist(), "start": start.tolist()}, "data": data.T.tolist()}
        return record, {"nan_redraws": redraws}
