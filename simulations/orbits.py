"""Orbits integrated by REBOUND's C library directly: a system placed at t = 0
(:func:`new_simulation`) and its planets' heliocentric positions at evenly spaced times
(:func:`trajectory`), for the planets builder (:mod:`scinum_simulations.planets`)."""

from __future__ import annotations

import ctypes
import signal
import threading
from ctypes import addressof, byref, c_double, c_int, c_void_p, sizeof

import numpy as np
import rebound

from .planets_prior import System

__all__ = ["new_simulation", "trajectory"]

# The C functions behind ``Simulation.add(primary=..., a=...)`` and ``Simulation.integrate``
# (the same signatures since REBOUND 4) are called directly, through this module's own handle on
# REBOUND's library (its prototypes are ours, REBOUND's stay untouched): the Python wrappers cost
# ~10 us a call, ~0.3 ms of a sample's ~1.5 ms, against ~1.1 ms in the integrator itself.
_C = ctypes.CDLL(rebound.clibrebound._name)
_C.reb_particle_from_orbit_err.restype = rebound.Particle
_C.reb_particle_from_orbit_err.argtypes = (c_double, rebound.Particle, *(c_double,) * 7, ctypes.POINTER(c_int))
_C.reb_simulation_add.argtypes = (c_void_p, rebound.Particle)
_C.reb_simulation_integrate.argtypes = (c_void_p, c_double)
_C.reb_simulation_integrate.restype = c_int
_STAR = rebound.Particle(m=1.0)  #: the central star, at rest at the origin
_probe = rebound.Simulation()
if (_probe.G, _probe.integrator) != (1.0, "ias15"):  # new_simulation relies on both defaults
    raise ImportError(
        f"scinum_simulations.orbits needs REBOUND's defaults G = 1 and IAS15, this "
        f"REBOUND {rebound.__version__} gives G = {_probe.G}, {_probe.integrator}"
    )
del _probe
#: what ``Simulation.integrate`` raises for each failure status of ``reb_simulation_integrate``
_FAILURES = {
    1: rebound.GenericError,
    2: rebound.NoParticles,
    3: rebound.Encounter,
    4: rebound.Escape,
    6: KeyboardInterrupt,
    7: rebound.Collision,
}
_PARTICLE_BYTES = sizeof(rebound.Particle)
_X, _Y = rebound.Particle.x.offset, rebound.Particle.y.offset  #: byte offsets in a particle


def new_simulation(system: System) -> rebound.Simulation:
    """An IAS15 simulation (G = 1) of ``system`` at t = 0: the star (mass 1) at rest at the
    origin, each planet on its orbit around it (inclination, node and pericentre 0, true anomaly
    = start angle), placed by REBOUND's ``reb_particle_from_orbit_err``."""
    sim = rebound.Simulation()  # G = 1 and the IAS15 integrator: REBOUND's defaults
    where, err = addressof(sim), c_int()
    _C.reb_simulation_add(where, _STAR)
    for m, a, e, theta in zip(system.m.tolist(), system.a.tolist(), system.e.tolist(), system.theta.tolist()):
        planet = _C.reb_particle_from_orbit_err(1.0, _STAR, m, a, e, 0.0, 0.0, 0.0, theta, byref(err))
        if err.value:
            raise ValueError(f"REBOUND cannot place a planet with a = {a}, e = {e} (reb_particle_from_orbit_err error {err.value})")
        _C.reb_simulation_add(where, planet)
    return sim


def _give_sigint_back() -> None:
    """Install Python's SIGINT handler again (REBOUND's integrator replaced it at the C level),
    where Python may: on the main thread, and where Python had one."""
    handler = signal.getsignal(signal.SIGINT)
    if handler is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, handler)


def trajectory(sim: rebound.Simulation, stepsize: float, steps: int) -> np.ndarray:
    """Integrate ``sim`` to ``t_k = k·stepsize`` and return heliocentric positions.

    Returns float64 ``[steps, N - 1, 2]``: ``(x, y)`` of particle ``j + 1`` minus the star's at
    each ``t_k`` (``t_0``: the state given). Calls REBOUND's C integrator directly (exact output
    times) and copies its particle array after each step (one ``memmove``); the positions are read
    out of those copies at the end, through one strided NumPy view.
    Raises what ``Simulation.integrate`` raises if the integration fails
    (``rebound.GenericError``...; ``KeyboardInterrupt`` on Ctrl-C). REBOUND's integrator takes
    the process's SIGINT for itself and keeps it; Python's handler is put back after (else Ctrl-C
    would never again interrupt the process that built the samples).
    """
    n, where = sim.N, addressof(sim)
    sim.exact_finish_time = 1
    block = n * _PARTICLE_BYTES  # the particle array, copied whole after each step
    particles = addressof(sim.particles[0])
    snapshots = ctypes.create_string_buffer(steps * block)
    base = addressof(snapshots)
    ctypes.memmove(base, particles, block)
    try:
        for k in range(1, steps):
            status = _C.reb_simulation_integrate(where, k * stepsize)
            if status in _FAILURES:
                sim.process_messages()
                raise _FAILURES[status](f"REBOUND status {status} integrating to t = {k * stepsize}")
            ctypes.memmove(base + k * block, particles, block)
    finally:
        _give_sigint_back()
    sim.process_messages()  # warnings REBOUND queued, as its wrapper would have shown them
    if addressof(sim.particles[0]) != particles:
        raise RuntimeError("REBOUND moved its particle array during the integration")
    xy = np.ndarray((steps, n, 2), np.float64, snapshots, _X, (block, _PARTICLE_BYTES, _Y - _X))
    return xy[:, 1:] - xy[:, :1]
