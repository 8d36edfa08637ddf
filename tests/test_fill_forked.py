"""scinum.fill.forked.forked_slices: slices shared by this process and forked copies."""

import os
import time

import pytest
import torch

from scinum.errors import ScinumError
from scinum.fill.forked import CAN_FORK, forked_slices

pytestmark = pytest.mark.skipif(not CAN_FORK, reason="the system cannot fork")
PARENT = os.getpid()


def test_every_slice_comes_back_once_in_order_from_both_processes():
    seen = []

    def work(k):
        time.sleep(0.01)  # long enough for the copy to start before this process takes every slice
        return [(k, i, os.getpid()) for i in range(3)]

    out = forked_slices(work, 12, 2, seen.append)
    assert [(k, i) for k, i, _ in out] == [(k, i) for k in range(12) for i in range(3)]
    assert {pid for *_, pid in out} - {PARENT}, "no slice was done by a copy"
    assert seen == sorted(seen) and seen[-1] == 36  # progress counts every process's items


def test_the_first_slice_that_raises_is_raised_and_nothing_after_it_starts(tmp_path):
    def work(k):
        (tmp_path / f"started-{k}").touch()
        time.sleep(0.01)
        if k in (5, 9):
            raise ValueError(f"slice {k}")
        return [k]

    with pytest.raises(ValueError, match="slice 5"):
        forked_slices(work, 40, 2)
    started = sorted(int(p.name.split("-")[1]) for p in tmp_path.iterdir())
    assert started[:6] == list(range(6)) and max(started) < 9  # the other process finishes what it took, then stops


def test_an_error_that_does_not_pickle_comes_back_as_its_text():
    class Local(Exception):  # a local class: pickle cannot find it
        pass

    def work(k):
        time.sleep(0.01)
        if os.getpid() != PARENT:
            raise Local(f"in the copy at slice {k}")
        return [k]

    with pytest.raises(ScinumError, match=r"Local: in the copy at slice \d+"):
        forked_slices(work, 20, 2)


def test_a_copy_that_dies_leaves_its_slices_to_this_process():
    def work(k):
        time.sleep(0.01)
        if os.getpid() != PARENT and k >= 2:
            os._exit(3)  # killed mid-slice, nothing sent
        return [k * 10]

    with pytest.warns(RuntimeWarning, match="exit code 3"):
        out = forked_slices(work, 10, 2)
    assert out == [k * 10 for k in range(10)]


def test_one_slice_or_one_worker_runs_here_on_one_thread():
    pids = forked_slices(lambda k: [(os.getpid(), torch.get_num_threads())], 1, 2)
    pids += forked_slices(lambda k: [(os.getpid(), torch.get_num_threads())], 3, 1)
    assert pids == [(PARENT, 1)] * 4


def test_an_interrupt_ends_the_copies_at_once():
    """Ctrl-C while the slices run: raised within a slice's time, not after every slice; no copy
    is left running."""
    import multiprocessing
    import signal
    import threading

    def work(k):
        time.sleep(0.05)
        return [k]

    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal (a C library may have taken it)
    try:
        threading.Timer(0.5, os.kill, (PARENT, signal.SIGINT)).start()
        start = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            forked_slices(work, 400, 2)  # 10 s of slices on two processes
        assert time.perf_counter() - start < 3
    finally:
        signal.signal(signal.SIGINT, before)
    assert multiprocessing.active_children() == []
