"""Priors of the planets dataset: the configuration, its validation and the parameter draws.

Everything here is pure NumPy (no REBOUND), so the priors can be tested with many draws cheaply.
Units: G = 1, central mass 1, length unit = the innermost training orbit (a = 1), so an orbit
of semi-major axis ``a`` has mean angular speed ``n = a**-1.5`` rad per time unit (period 2π at
a = 1). The priors are those of the xVal paper (seed 002, App. B.2):

* number of planets ``n ~ U{planets[0], ..., planets[1]}`` (paper: 2-4);
* masses ``m ~ U(1e-5, 5e-5)`` (central masses), independently per planet;
* semi-major axes equally spaced from 1 to ``a_f ~ U(a_final)`` (paper: (1.5, 3));
* eccentricities ``e ~ U(0, 0.1)`` per planet, pericentre on the +x axis;
* start angle (true longitude at t = 0): 0 for every planet in 30 % of the samples, otherwise
  independently ``U(-π/6, π/6)`` per planet;
* step size ``Δt`` uniform over the set ``stepsizes`` (paper: {0.2, 0.3, 0.5, 0.8});
* planet order randomly permuted, so ``planet0`` is not always the innermost;
* output times per sample: a fixed ``steps``, or ``T ~ U{steps[0], ..., steps[1]}`` drawn per
  sample from ``(seed, split, index)`` alone (a generator of its own: the system draws are the
  same as with a fixed count, and re-drawing an unstable system keeps the sample's ``T``).

Out-of-distribution splits change exactly one quantity (see :func:`draw_system`).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from scinum.errors import DatasetError

__all__ = [
    "PlanetsConfig",
    "System",
    "Draws",
    "StepCounts",
    "systems_from_uniforms",
    "block_uniforms",
    "retry_uniforms",
    "BLOCK",
    "SPLITS",
    "MASS_RANGE",
    "ECC_RANGE",
    "ZERO_ANGLE_PROB",
    "ANGLE_HALF_WIDTH",
]

MASS_RANGE = (1e-5, 5e-5)  #: planet mass prior, in central masses
ECC_RANGE = (0.0, 0.1)  #: eccentricity prior
ZERO_ANGLE_PROB = 0.3  #: probability that every start angle of a sample is 0
ANGLE_HALF_WIDTH = math.pi / 6  #: otherwise start angles ~ U(-π/6, π/6), rad
SPLITS = ("train", "val", "test", "ood_stepsize", "ood_a1")


@dataclass(frozen=True)
class PlanetsConfig:
    """Everything but the seed and the counts that determines the samples.

    Attributes:
        steps: output times per sample, ``t_k = k·Δt`` for ``k = 0..steps-1``; an int, or an
            inclusive range ``(min, max)`` from which each sample draws its own count.
        planets: inclusive range of the number of planets.
        stepsizes: the training set of step sizes Δt (time units).
        a_final: range of the outermost semi-major axis ``a_f`` (length units, > 1).
        ood_stepsize_range: interval of the ``ood_stepsize`` Δt draws (time units).
        ood_stepsize_margin: half-width of the band around each training Δt that
            ``ood_stepsize`` never draws (time units).
        ood_a1_range: open interval of planet0's semi-major axis in ``ood_a1``; must lie in the
            gap ``(1, 1 + (a_final[0] - 1)/(planets[1] - 1))`` the training prior never gives.
        max_attempts: unstable draws allowed in a row for one sample before giving up.
    """

    steps: int | tuple[int, int] = 20
    planets: tuple[int, int] = (2, 4)
    stepsizes: tuple[float, ...] = (0.2, 0.3, 0.5, 0.8)
    a_final: tuple[float, float] = (1.5, 3.0)
    ood_stepsize_range: tuple[float, float] = (0.1, 0.9)
    ood_stepsize_margin: float = 0.025
    ood_a1_range: tuple[float, float] = (1.0, 1.16)
    max_attempts: int = 100

    def __post_init__(self) -> None:
        for name in ("planets", "stepsizes", "a_final", "ood_stepsize_range", "ood_a1_range"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if isinstance(self.steps, (list, tuple)):
            object.__setattr__(self, "steps", tuple(self.steps))
        self.validate()

    def validate(self) -> None:
        """Raise :class:`DatasetError` naming the offending parameter if any is impossible."""

        def bad(msg: str) -> DatasetError:
            return DatasetError(f"planets: {msg}")

        steps = self.steps if isinstance(self.steps, tuple) else (self.steps,)
        if not 1 <= len(steps) <= 2 or not all(isinstance(k, (int, np.integer)) and k >= 1 for k in steps) or steps[0] > steps[-1]:
            raise bad(f"steps must be an integer >= 1 or a range [min, max] of them with min <= max, got {self.steps}")
        lo, hi = self.planets
        if len(self.planets) != 2 or int(lo) != lo or int(hi) != hi or not 1 <= lo <= hi:
            raise bad(f"planets range must be integers 1 <= min <= max, got {self.planets}")
        if not self.stepsizes:
            raise bad("the set of step sizes is empty")
        if not all(math.isfinite(s) and s > 0 for s in self.stepsizes):
            raise bad(f"step sizes must be finite and > 0, got {self.stepsizes}")
        af_lo, af_hi = self.a_final
        if not (math.isfinite(af_hi) and 1 < af_lo <= af_hi):
            raise bad(
                f"a_final range must satisfy 1 < min <= max (a_f is the outermost "
                f"semi-major axis and the innermost is 1), got {self.a_final}"
            )
        s_lo, s_hi = self.ood_stepsize_range
        if not (math.isfinite(s_hi) and 0 < s_lo < s_hi):
            raise bad(f"ood_stepsize_range must satisfy 0 < min < max, got {self.ood_stepsize_range}")
        if not self.ood_stepsize_margin > 0:
            raise bad(f"ood_stepsize_margin must be > 0, got {self.ood_stepsize_margin}")
        if sum(b - a for a, b in self.ood_stepsize_intervals()) <= 0:
            raise bad(
                f"ood_stepsize_range {self.ood_stepsize_range} minus a band of ±{self.ood_stepsize_margin} around {self.stepsizes} is empty"
            )
        a1_lo, a1_hi = self.ood_a1_range
        if not 1 <= a1_lo < a1_hi <= self.a1_gap_end():
            raise bad(
                f"ood_a1_range must satisfy 1 <= min < max <= {self.a1_gap_end():.6g} "
                f"(the end of the a1 gap of the training prior), got {self.ood_a1_range}"
            )
        if int(self.max_attempts) != self.max_attempts or self.max_attempts < 1:
            raise bad(f"max_attempts must be an integer >= 1, got {self.max_attempts}")

    def steps_range(self) -> tuple[int, int]:
        """``(min, max)`` output times per sample (equal for a fixed count)."""
        if isinstance(self.steps, tuple):
            return int(self.steps[0]), int(self.steps[-1])
        return int(self.steps), int(self.steps)

    def a1_gap_end(self) -> float:
        """Smallest semi-major axis > 1 the training prior can give: ``1 + (a_f,min - 1)/(n_max - 1)``."""
        n_max = self.planets[1]
        return math.inf if n_max == 1 else 1 + (self.a_final[0] - 1) / (n_max - 1)

    def ood_stepsize_intervals(self) -> list[tuple[float, float]]:
        """``ood_stepsize_range`` minus ``(s - margin, s + margin)`` for every training ``s``."""
        intervals = [tuple(self.ood_stepsize_range)]
        for s in sorted(self.stepsizes):
            cut_lo, cut_hi = s - self.ood_stepsize_margin, s + self.ood_stepsize_margin
            out = []
            for a, b in intervals:
                out += [(a, min(b, cut_lo))] if a < min(b, cut_lo) else []
                out += [(max(a, cut_hi), b)] if max(a, cut_hi) < b else []
            intervals = out
        return intervals

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-able dict (lists for tuples)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


@dataclass(frozen=True)
class System:
    """One planetary system as reported (planet order already permuted).

    Arrays have shape ``(n_planets,)``: ``m`` masses (central masses, unscaled), ``a``
    semi-major axes, ``e`` eccentricities, ``theta`` start angles (rad); ``stepsize`` is Δt.
    """

    m: np.ndarray
    a: np.ndarray
    e: np.ndarray
    theta: np.ndarray
    stepsize: float


#: samples whose first draws come from one generator: drawing a block at once (vectorised)
#: costs ~1 us a sample against ~75 us for a generator and a dozen NumPy calls per sample
BLOCK = 100


def _split_code(split: str) -> int:
    if split not in SPLITS:
        raise DatasetError(f"planets: unknown split {split!r}, expected one of {SPLITS}")
    return zlib.crc32(split.encode())


def _width(config: PlanetsConfig) -> int:
    """Uniforms per draw: count, a_f, zero-angle flag, step size, ood a1, then per planet slot
    mass, eccentricity, start angle and an order key."""
    return 5 + 4 * config.planets[1]


def block_uniforms(seed: int, split: str, block: int, config: PlanetsConfig) -> np.ndarray:
    """The uniforms of the first draws (attempt 0) of samples ``block·BLOCK ...``,
    float64 ``[BLOCK, width]`` in [0, 1); they depend only on ``(seed, split, block)``."""
    rng = np.random.default_rng([seed, _split_code(split), block, 0])
    return rng.random((BLOCK, _width(config)))


def retry_uniforms(seed: int, split: str, index: int, attempt: int, config: PlanetsConfig) -> np.ndarray:
    """The uniforms of re-draw ``attempt >= 1`` of sample ``index``, ``[1, width]``; they depend
    only on ``(seed, split, index, attempt)`` (a generator seed no block uses)."""
    if attempt < 1:
        raise ValueError(f"retry attempts start at 1, got {attempt}")
    rng = np.random.default_rng([seed, _split_code(split), index, attempt])
    return rng.random((1, _width(config)))


def _uniform_over(u: np.ndarray, intervals: list[tuple[float, float]]) -> np.ndarray:
    """Map uniforms ``u`` in [0, 1) to draws uniform over a union of disjoint intervals."""
    lo = np.array([a for a, _ in intervals])
    hi = np.array([b for _, b in intervals])
    ends = np.cumsum(hi - lo)
    x = u * ends[-1]
    k = np.minimum(np.searchsorted(ends, x, side="right"), len(intervals) - 1)
    return np.minimum(lo[k] + x - (ends[k] - (hi - lo)[k]), hi[k])


def systems_from_uniforms(u: np.ndarray, config: PlanetsConfig, split: str) -> list[System]:
    """The systems of ``split`` that uniforms ``u [n, width]`` give under the priors (module
    docstring), one per row.

    ``train``/``val``/``test`` use the training prior. The OOD splits change one quantity:

    * ``ood_stepsize``: Δt uniform over ``ood_stepsize_range`` minus a band of
      ±``ood_stepsize_margin`` around every training step size; all else as in training.
    * ``ood_a1``: planet0 is the innermost planet with ``a1 ~ U(ood_a1_range)`` (open) and the
      others are equally spaced from ``a1`` to ``a_f`` (training prior) and permuted over
      planet1...; all else as in training. Training gives a semi-major axis of exactly 1 or of
      at least :meth:`PlanetsConfig.a1_gap_end`, and the other planets here stay in that range.
    """
    _split_code(split)
    rows, slots = len(u), config.planets[1]
    lo_n = config.planets[0]
    n = lo_n + np.minimum((u[:, 0] * (slots - lo_n + 1)).astype(np.int64), slots - lo_n)
    a_f = config.a_final[0] + (config.a_final[1] - config.a_final[0]) * u[:, 1]
    zero_angles = u[:, 2] < ZERO_ANGLE_PROB
    if split == "ood_stepsize":
        stepsize = _uniform_over(u[:, 3], config.ood_stepsize_intervals())
    else:
        choices = np.array(config.stepsizes)
        stepsize = choices[np.minimum((u[:, 3] * len(choices)).astype(np.int64), len(choices) - 1)]
    a_start = np.ones(rows)
    if split == "ood_a1":  # open interval: never exactly lo or hi
        lo, hi = config.ood_a1_range
        a_start = np.clip(lo + (hi - lo) * u[:, 4], np.nextafter(lo, np.inf), np.nextafter(hi, -np.inf))
    per_planet = u[:, 5:].reshape(rows, 4, slots)
    m = MASS_RANGE[0] + (MASS_RANGE[1] - MASS_RANGE[0]) * per_planet[:, 0]
    e = ECC_RANGE[0] + (ECC_RANGE[1] - ECC_RANGE[0]) * per_planet[:, 1]
    theta = np.where(zero_angles[:, None], 0.0, ANGLE_HALF_WIDTH * (2 * per_planet[:, 2] - 1))
    # semi-major axes equally spaced from a_start to a_f (the last one exactly a_f), innermost first
    slot = np.arange(slots)
    gaps = (a_f - a_start) / np.maximum(n - 1, 1)
    a = np.where(slot[None] == (n - 1)[:, None], a_f[:, None], a_start[:, None] + slot * gaps[:, None])
    a[n == 1, 0] = a_start[n == 1]
    # permuted over the planets in use (slots >= n sort last); in ood_a1 planet0 stays innermost
    key = np.where(slot[None] < n[:, None], per_planet[:, 3], 2.0)
    if split == "ood_a1":
        key[:, 0] = -1.0
    a = np.take_along_axis(a, np.argsort(key, axis=1, kind="stable"), axis=1)
    return [System(m=m[r, :k], a=a[r, :k], e=e[r, :k], theta=theta[r, :k], stepsize=float(stepsize[r])) for r, k in enumerate(n.tolist())]


class Draws:
    """``draws(index, attempt) -> System`` of one split: attempt 0 comes from the sample's block
    (the last block drawn is kept, so consecutive samples cost one vectorised draw per block),
    re-draws from their own generators. Depends only on ``(seed, split, index, attempt)``."""

    def __init__(self, config: PlanetsConfig, seed: int, split: str):
        _split_code(split)
        self.config, self.seed, self.split = config, seed, split
        self._block: tuple[int, list[System]] = (-1, [])

    def __call__(self, index: int, attempt: int = 0) -> System:
        if attempt:
            u = retry_uniforms(self.seed, self.split, index, attempt, self.config)
            return systems_from_uniforms(u, self.config, self.split)[0]
        block = index // BLOCK
        if self._block[0] != block:
            u = block_uniforms(self.seed, self.split, block, self.config)
            self._block = (block, systems_from_uniforms(u, self.config, self.split))
        return self._block[1][index - block * BLOCK]


class StepCounts:
    """``steps(index) -> T`` of one split: the config's fixed count, or ``T ~ U{min..max}`` drawn
    per block of :data:`BLOCK` samples from a generator keyed on ``(seed, split, block)`` and
    used by nothing else (the system draws do not change when the count is a range)."""

    def __init__(self, config: PlanetsConfig, seed: int, split: str):
        self.lo, self.hi = config.steps_range()
        self.code = zlib.crc32(f"steps:{split}".encode())
        _split_code(split)
        self.seed = seed
        self._block: tuple[int, np.ndarray] = (-1, np.empty(0, np.int64))

    def __call__(self, index: int) -> int:
        if self.lo == self.hi:
            return self.lo
        block = index // BLOCK
        if self._block[0] != block:
            rng = np.random.default_rng([self.seed, self.code, block])
            self._block = (block, rng.integers(self.lo, self.hi + 1, size=BLOCK))
        return int(self._block[1][index - block * BLOCK])
