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
* planet order randomly permuted, so ``planet0`` is not always the innermost.

Out-of-distribution splits change exactly one quantity (see :func:`draw_system`).
"""
from __future__ import annotations

import math
import zlib
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from scinum.errors import DatasetError

__all__ = ["PlanetsConfig", "System", "draw_system", "sample_rng", "SPLITS",
           "MASS_RANGE", "ECC_RANGE", "ZERO_ANGLE_PROB", "ANGLE_HALF_WIDTH"]

MASS_RANGE = (1e-5, 5e-5)          #: planet mass prior, in central masses
ECC_RANGE = (0.0, 0.1)             #: eccentricity prior
ZERO_ANGLE_PROB = 0.3              #: probability that every start angle of a sample is 0
ANGLE_HALF_WIDTH = math.pi / 6     #: otherwise start angles ~ U(-π/6, π/6), rad
SPLITS = ("train", "val", "test", "ood_stepsize", "ood_a1")


@dataclass(frozen=True)
class PlanetsConfig:
    """Everything but the seed and the counts that determines the samples.

    Attributes:
        steps: output times per sample, ``t_k = k·Δt`` for ``k = 0..steps-1``.
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

    steps: int = 20
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
        self.validate()

    def validate(self) -> None:
        """Raise :class:`DatasetError` naming the offending parameter if any is impossible."""
        def bad(msg: str) -> DatasetError:
            return DatasetError(f"planets: {msg}")

        if int(self.steps) != self.steps or self.steps < 1:
            raise bad(f"steps must be an integer >= 1, got {self.steps}")
        lo, hi = self.planets
        if len(self.planets) != 2 or int(lo) != lo or int(hi) != hi or not 1 <= lo <= hi:
            raise bad(f"planets range must be integers 1 <= min <= max, got {self.planets}")
        if not self.stepsizes:
            raise bad("the set of step sizes is empty")
        if not all(math.isfinite(s) and s > 0 for s in self.stepsizes):
            raise bad(f"step sizes must be finite and > 0, got {self.stepsizes}")
        af_lo, af_hi = self.a_final
        if not (math.isfinite(af_hi) and 1 < af_lo <= af_hi):
            raise bad(f"a_final range must satisfy 1 < min <= max (a_f is the outermost "
                      f"semi-major axis and the innermost is 1), got {self.a_final}")
        s_lo, s_hi = self.ood_stepsize_range
        if not (math.isfinite(s_hi) and 0 < s_lo < s_hi):
            raise bad(f"ood_stepsize_range must satisfy 0 < min < max, got "
                      f"{self.ood_stepsize_range}")
        if not self.ood_stepsize_margin > 0:
            raise bad(f"ood_stepsize_margin must be > 0, got {self.ood_stepsize_margin}")
        if sum(b - a for a, b in self.ood_stepsize_intervals()) <= 0:
            raise bad(f"ood_stepsize_range {self.ood_stepsize_range} minus a band of "
                      f"±{self.ood_stepsize_margin} around {self.stepsizes} is empty")
        a1_lo, a1_hi = self.ood_a1_range
        if not 1 <= a1_lo < a1_hi <= self.a1_gap_end():
            raise bad(f"ood_a1_range must satisfy 1 <= min < max <= {self.a1_gap_end():.6g} "
                      f"(the end of the a1 gap of the training prior), got {self.ood_a1_range}")
        if int(self.max_attempts) != self.max_attempts or self.max_attempts < 1:
            raise bad(f"max_attempts must be an integer >= 1, got {self.max_attempts}")

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


def sample_rng(seed: int, split: str, index: int, attempt: int) -> np.random.Generator:
    """The generator of one draw: depends only on ``(seed, split, index, attempt)``."""
    return np.random.default_rng([seed, zlib.crc32(split.encode()), index, attempt])


def _uniform_over(rng: np.random.Generator, intervals: list[tuple[float, float]]) -> float:
    """One draw uniform over a union of disjoint intervals."""
    lengths = np.array([b - a for a, b in intervals])
    u = rng.uniform(0.0, lengths.sum())
    k = min(int(np.searchsorted(np.cumsum(lengths), u, side="right")), len(intervals) - 1)
    return float(min(intervals[k][0] + u - lengths[:k].sum(), intervals[k][1]))


def draw_system(rng: np.random.Generator, config: PlanetsConfig, split: str) -> System:
    """Draw one system of ``split`` from the priors (module docstring).

    ``train``/``val``/``test`` use the training prior. The OOD splits change one quantity:

    * ``ood_stepsize``: Δt uniform over ``ood_stepsize_range`` minus a band of
      ±``ood_stepsize_margin`` around every training step size; all else as in training.
    * ``ood_a1``: planet0 is the innermost planet with ``a1 ~ U(ood_a1_range)`` and the others
      are equally spaced from ``a1`` to ``a_f`` (training prior) and permuted over planet1...;
      all else as in training. Training gives a semi-major axis of exactly 1 or of at least
      :meth:`PlanetsConfig.a1_gap_end`, and the other planets here stay in that range.
    """
    if split not in SPLITS:
        raise DatasetError(f"planets: unknown split {split!r}, expected one of {SPLITS}")
    n = int(rng.integers(config.planets[0], config.planets[1] + 1))
    m = rng.uniform(*MASS_RANGE, size=n)
    a_f = rng.uniform(*config.a_final)
    e = rng.uniform(*ECC_RANGE, size=n)
    zero_angles = rng.uniform() < ZERO_ANGLE_PROB
    theta = rng.uniform(-ANGLE_HALF_WIDTH, ANGLE_HALF_WIDTH, size=n)
    if zero_angles:
        theta = np.zeros(n)
    stepsize = float(config.stepsizes[rng.integers(len(config.stepsizes))])
    if split == "ood_stepsize":
        stepsize = _uniform_over(rng, config.ood_stepsize_intervals())
    a_start = 1.0
    if split == "ood_a1":
        lo, hi = config.ood_a1_range
        a_start = lo
        while not lo < a_start < hi:  # open interval: never exactly 1 (or lo)
            a_start = rng.uniform(lo, hi)
    a = np.linspace(a_start, a_f, n)
    if split == "ood_a1":  # planet0 keeps the innermost orbit, the others are permuted
        order = np.concatenate([[0], 1 + rng.permutation(n - 1)])
    else:
        order = rng.permutation(n)
    return System(m=m[order], a=a[order], e=e[order], theta=theta[order], stepsize=stepsize)
