"""Test-suite settings.

Property tests are reproducible: the default hypothesis profile is derandomized (the same
examples on every run and machine, no example database), so a commit that changes nothing cannot
turn the suite red by luck. To let hypothesis explore new examples locally (and find new bugs):
``HYPOTHESIS_PROFILE=explore python -m pytest -q``; add what it finds as an explicit test.

Shared fixtures: ``one_thread`` (a test file opts in with
``pytestmark = pytest.mark.usefixtures("one_thread")``), ``one_thread_module`` (the same for a
module-scoped fixture that trains) and ``toy_dataset`` (the small ``{"m", "data"}`` datasets the
distributed-training tests train on). Shared helpers, imported from here: :class:`ToyMD`,
:func:`tiny_config` (the tiny-run fit config training tests start from), :func:`write_dataset`
(a hand-built dataset directory), :func:`run_group` and :func:`fit_cli` (a ``scinum fit`` run in
its own process group).
"""

import os
import random
import signal
import subprocess
import sys

import pytest
import torch  # noqa: F401  imported before scinum, as it always was here: the runtime keeps its own spin count
import yaml
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from scinum.util.threads import torch_threads

settings.register_profile(
    "reproducible", derandomize=True, database=None, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))


@pytest.fixture
def one_thread():
    """Tiny models run faster on one thread (and do not fight other processes for cores)."""
    with torch_threads(1):
        yield


@pytest.fixture(scope="module")
def one_thread_module():
    """:func:`one_thread` for the whole module (module-scoped fixtures that train)."""
    with torch_threads(1):
        yield


def tiny_config(data, out, /, **sections) -> dict:
    """The tiny-run ``scinum fit`` config (a plain dict) training tests start from: batch 8, a
    one-layer trunk 16 wide with 2 heads, 2 warmup steps, 6 steps on the CPU, no progress bar.
    Each keyword replaces that top-level key, or updates that section key by key
    (``trainer={"devices": 2}``)."""
    cfg = {
        "data": {"path": str(data), "batch_size": 8},
        "out_dir": str(out),
        "model": {"d_model": 16, "n_layers": 1, "n_heads": 2},
        "optim": {"warmup_steps": 2},
        "trainer": {"max_steps": 6, "accelerator": "cpu", "progress_bar": False},
    }
    for key, value in sections.items():
        cfg[key] = {**cfg[key], **value} if isinstance(value, dict) and isinstance(cfg.get(key), dict) else value
    return cfg


def run_group(cmd, timeout, **kw):
    """Run ``cmd`` in a new process group with ``OMP_NUM_THREADS=1``; on timeout kill the whole
    group (every DDP rank) and fail. Returns ``(returncode, stdout, stderr)``."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, env=env, **kw)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        pytest.fail(f"hung: {cmd} did not end within {timeout} s\n{err[-3000:]}")
    return p.returncode, out, err


def fit_cli(cfg: dict, tmp_path, name: str, timeout: float = 240):
    """``scinum fit --config <tmp_path>/<name>.yaml`` (``cfg`` written there) under
    :func:`run_group`; returns ``(returncode, stdout, stderr)``."""
    f = tmp_path / f"{name}.yaml"
    f.write_text(yaml.safe_dump(cfg))
    return run_group([sys.executable, "-m", "scinum.cli", "fit", "--config", str(f)], timeout)


class ToyMD:
    """Picklable sample function of the distributed tests: ``{"m": m, "data": [[m·t, noise]...]}``."""

    def __call__(self, i):
        rng = random.Random(i)
        m = round(rng.uniform(1, 5), 3)
        return {"m": m, "data": [[round(m * t, 4), round(rng.uniform(-1, 1), 4)] for t in range(3)]}, {}


def write_dataset(path, sample, splits: dict, *, builder: str = "toy", seed: int = 0, shard_size: int = 1000, **manifest):
    """A dataset directory at ``path`` (returned) of ``sample(i) -> (record, extra)`` records:
    ``splits`` maps each split, in order, to its count, or to ``(count, other_sample)`` for a
    split of other records (an OOD split); ``manifest``: what :meth:`DatasetWriter.finish
    <scinum.datasets.directory.DatasetWriter.finish>` adds (``evaluation``, ``scalings``)."""
    from scinum.datasets.directory import DatasetWriter

    w = DatasetWriter(path, builder=builder, version="1", parameters={}, seed=seed, shard_size=shard_size)
    for split, n in splits.items():
        n, of = n if isinstance(n, tuple) else (n, sample)
        w.write_split(split, n, of)
    w.finish(**manifest)
    return path


def fit_asked_field(root, sample, field: str, shard_size: int = 1000):
    """A loaded :class:`~scinum.fill.model.Model` fitted for 10 steps on 96 training and 32
    validation records of ``sample`` (in ``root``), ``field`` asked in every record, with a
    two-component mixture head: a field's fill with a spread, in seconds."""
    import scinum
    from scinum.train.config import load_config
    from scinum.train.fit import fit

    write_dataset(root / "ds", sample, {"train": 96, "val": 32}, builder="toy", shard_size=shard_size, evaluation={"fields": [field]})
    cfg = tiny_config(
        root / "ds",
        root / "run",
        data={"batch_size": 16, "mask_fields": [field], "mask_fields_prob": 1.0},
        head={"kind": "mixture", "n_components": 2},
        trainer={"max_steps": 10, "val_check_interval": 10, "limit_val_batches": 1, "checkpoint_every_n_steps": 100},
    )
    return scinum.load(fit(load_config(None, cfg)))


@pytest.fixture(scope="session")
def toy_dataset():
    """``make(path, n_train, n_val, fields=None, shard_size=16, sample=None) -> path``: a
    dataset (builder "toy", seed 0) of ``sample``'s records, :class:`ToyMD` by default
    (``fields``: the evaluation fields its manifest declares)."""

    def make(path, n_train, n_val, fields=None, shard_size=16, sample=None):
        evaluation = {"evaluation": {"fields": list(fields)}} if fields else {}
        return write_dataset(path, sample or ToyMD(), {"train": n_train, "val": n_val}, shard_size=shard_size, **evaluation)

    return make


#: hypothesis: small JSON records (an object of up to 3 keys whose values nest lists and objects
#: of numbers, strings, booleans and nulls), for properties that hold for any record
_leaf = (
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
    | st.integers(-1000, 1000)
    | st.sampled_from(["u", "v"])
    | st.booleans()
    | st.none()
)
json_records = st.dictionaries(
    st.sampled_from(["a", "b", "c"]),
    st.recursive(
        _leaf,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["k", "x", "y"]), inner, max_size=3),
        max_leaves=25,
    ),
    min_size=1,
    max_size=3,
)
