"""CPU threads that wait for each other briefly, then sleep.

Torch runs its CPU operators on an OpenMP pool of ``torch.get_num_threads()`` threads (every core
by default). A thread that reaches the end of an operator's parallel region first spins, waiting
for the others: libgomp, the runtime of torch's Linux wheels, spins 300,000 times before it
sleeps. When another process holds one of the cores, the thread it displaced finishes its share
only when the scheduler gives it a turn, and its partners burn their own turns spinning: each of
the thousand small operators of a training step can then wait a scheduler slice, and a small
model's fit slows several-fold beside other work. libgomp itself spins far less (100 times, 1,000
under an active wait policy) where it knows the cores are oversubscribed (more threads than CPUs);
it cannot know when another process takes them, so :func:`short_spin_waits` asks for 1,000 spins
everywhere (``GOMP_SPINCOUNT``), the count chosen by measurement: experiments/cpu-threads-under-load.

The runtime reads the variable once, when it loads with torch, so ``import scinum`` calls this
before anything imports torch. A wait policy or spin count the user set is kept, and a process
that imported torch before scinum keeps the runtime's default. Other OpenMP runtimes (LLVM's
``libomp`` on macOS) do not read it.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Iterator

__all__ = ["SPIN_COUNT", "short_spin_waits", "torch_threads"]

#: spins before a waiting thread sleeps (libgomp's own: 300,000; on cores it knows to be oversubscribed, 100)
SPIN_COUNT = 1000


def short_spin_waits() -> bool:
    """Set ``GOMP_SPINCOUNT`` to :data:`SPIN_COUNT` unless a wait policy or spin count is set or
    torch is already imported (then too late to matter); whether it set it."""
    if "OMP_WAIT_POLICY" in os.environ or "GOMP_SPINCOUNT" in os.environ or "torch" in sys.modules:
        return False
    os.environ["GOMP_SPINCOUNT"] = str(SPIN_COUNT)
    return True


@contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Torch's CPU operators on ``n`` threads inside the block (``-1``: as the process has set
    them, torch's default being every physical core), the caller's count restored after."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(before if n == -1 else n)
    try:
        yield
    finally:
        torch.set_num_threads(before)
