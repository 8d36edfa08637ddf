"""Test-suite settings.

Property tests are reproducible: the default hypothesis profile is derandomized (the same
examples on every run and machine, no example database), so a commit that changes nothing cannot
turn the suite red by luck. To let hypothesis explore new examples locally (and find new bugs):
``HYPOTHESIS_PROFILE=explore python -m pytest -q``; add what it finds as an explicit test.

Shared fixtures: ``one_thread`` (a test file opts in with
``pytestmark = pytest.mark.usefixtures("one_thread")``) and ``toy_dataset`` (the small
``{"m", "data"}`` datasets the distributed-training tests train on).
"""
import os
import random

import pytest
import torch
from hypothesis import HealthCheck, settings

settings.register_profile("reproducible", derandomize=True, database=None, deadline=None,
                          print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))


@pytest.fixture
def one_thread():
    """Tiny models run faster on one thread (and do not fight other processes for cores)."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


class ToyMD:
    """Picklable sample function of the distributed tests: ``{"m": m, "data": [[m·t, noise]...]}``."""

    def __call__(self, i):
        rng = random.Random(i)
        m = round(rng.uniform(1, 5), 3)
        return {"m": m, "data": [[round(m * t, 4), round(rng.uniform(-1, 1), 4)] for t in range(3)]}, {}


@pytest.fixture(scope="session")
def toy_dataset():
    """``make(path, n_train, n_val, fields=None, shard_size=16) -> path``: a dataset of
    :class:`ToyMD` records (``fields``: the evaluation fields its manifest declares)."""
    from scinum.datasets import DatasetWriter

    def make(path, n_train, n_val, fields=None, shard_size=16):
        w = DatasetWriter(path, builder="toy", version="1", parameters={}, seed=0, shard_size=shard_size)
        w.write_split("train", n_train, ToyMD())
        w.write_split("val", n_val, ToyMD())
        w.finish(**({"evaluation": {"fields": list(fields)}} if fields else {}))
        return path
    return make
