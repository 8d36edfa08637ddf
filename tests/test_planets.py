"""Planets builder: priors, physics (Kepler), determinism, kill-and-resume, bad input, CLI."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import rebound
from scipy import stats

from scinum.cli.main import main as cli_main
from scinum.datasets.directory import Dataset
from scinum.errors import DatasetError
from scinum_simulations import planets
from scinum_simulations.planets import BOUND, ECC_SCALE, MASS_SCALE, PlanetsConfig, SampleMaker, build, new_simulation, simulate
from scinum_simulations.planets_prior import BLOCK, Draws, StepCounts

REPO = Path(__file__).resolve().parents[1]


def _draws(split: str, n: int, config: PlanetsConfig = PlanetsConfig()):
    draws = Draws(config, 7, split)
    return [draws(i) for i in range(n)]


def _shards(path: Path) -> dict[str, bytes]:
    """Contents of the shards and manifest of a dataset directory (hidden temp files aside)."""
    return {str(f.relative_to(path)): f.read_bytes() for f in sorted(path.rglob("*")) if f.is_file() and not f.name.startswith(".")}


def _unpack(record: dict):
    """(m, a, e, stepsize, positions[steps, n, 2]) of a record, scalings undone."""
    desc = record["description"]
    planets = [desc[f"planet{j}"] for j in range(len(desc) - 1)]
    m = np.array([p["m"] for p in planets]) / MASS_SCALE
    a = np.array([p["a"] for p in planets])
    e = np.array([p["e"] for p in planets]) / ECC_SCALE
    return m, a, e, desc["stepsize"], np.array(record["data"])


# ---------------------------------------------------------------- priors (no simulation)


def test_training_prior():
    draws = _draws("train", 4000)
    n = np.array([len(s.m) for s in draws])
    assert set(n) == {2, 3, 4} and np.all(np.abs(np.bincount(n)[2:] / len(n) - 1 / 3) < 0.03)
    m = np.concatenate([s.m for s in draws])
    e = np.concatenate([s.e for s in draws])
    assert stats.kstest(m, stats.uniform(1e-5, 4e-5).cdf).pvalue > 1e-3
    assert stats.kstest(e, stats.uniform(0, 0.1).cdf).pvalue > 1e-3
    assert abs(np.corrcoef(m[:-1], e[1:])[0, 1]) < 0.05 and abs(np.corrcoef(m, e)[0, 1]) < 0.05
    steps = np.array([s.stepsize for s in draws])
    assert set(steps) == {0.2, 0.3, 0.5, 0.8}
    assert all(abs(np.mean(steps == v) - 0.25) < 0.03 for v in (0.2, 0.3, 0.5, 0.8))
    for s in draws:  # equally spaced from 1 to a_f in [1.5, 3], order permuted
        a = np.sort(s.a)
        assert a[0] == 1.0 and 1.5 <= a[-1] <= 3.0
        np.testing.assert_allclose(np.diff(a), (a[-1] - 1) / (len(a) - 1), rtol=1e-12)
    # planet0 is the innermost with probability E[1/n] = (1/2 + 1/3 + 1/4)/3
    inner = np.mean([s.a[0] == 1.0 for s in draws])
    assert abs(inner - (1 / 2 + 1 / 3 + 1 / 4) / 3) < 0.03
    # start angles: all zero in 30% of samples, else independent U(-pi/6, pi/6)
    zero = np.array([np.all(s.theta == 0) for s in draws])
    assert abs(zero.mean() - 0.3) < 0.03
    theta = np.concatenate([s.theta for s, z in zip(draws, zero) if not z])
    assert stats.kstest(theta, stats.uniform(-math.pi / 6, math.pi / 3).cdf).pvalue > 1e-3


def test_ood_priors_are_out_of_distribution():
    config = PlanetsConfig()
    train_a = np.concatenate([s.a for s in _draws("train", 3000)])
    assert not np.any((train_a > 1) & (train_a < config.a1_gap_end()))
    for s in _draws("ood_a1", 2000):
        assert 1 < s.a[0] < 1.16 and s.a[0] == s.a.min()
        assert np.all(s.a[1:] >= config.a1_gap_end() - 1e-12) and np.all(s.a <= 3)
        assert s.stepsize in config.stepsizes
    steps = np.array([s.stepsize for s in _draws("ood_stepsize", 4000)])
    assert 0.1 <= steps.min() and steps.max() <= 0.9
    dist = np.abs(steps[:, None] - np.array(config.stepsizes)[None]).min(axis=1)
    assert dist.min() >= 0.025
    assert np.mean(steps < 0.2) > 0.05 and np.mean(steps > 0.8) > 0.05  # around, not only between


def test_one_planet_and_equal_spacing_ends_exactly():
    """a is linspace(1, a_f, n): the outermost is a_f itself, one planet sits at a = 1."""
    for s in _draws("train", 50, PlanetsConfig(planets=(1, 1))):
        assert s.a.tolist() == [1.0]
    for s in _draws("ood_a1", 300):
        np.testing.assert_array_equal(np.sort(s.a), np.linspace(s.a[0], s.a.max(), len(s.a)))


def test_a_draw_depends_only_on_seed_split_index_attempt():
    """Blocks of BLOCK samples are drawn at once; the order of the requests never matters."""
    config, order = PlanetsConfig(), [3 * BLOCK + 7, 5, BLOCK - 1, BLOCK, 5, 3 * BLOCK + 7]
    fresh = [Draws(config, 4, "test")(i) for i in order]
    shared = Draws(config, 4, "test")
    for i, s in zip(order, fresh):
        assert np.array_equal(shared(i).m, s.m) and shared(i).stepsize == s.stepsize
    firsts = {Draws(config, 4, "test")(i).m[0] for i in range(2 * BLOCK)}
    retries = {Draws(config, 4, "test")(i, 1).m[0] for i in range(2 * BLOCK)}
    assert len(firsts) == len(retries) == 2 * BLOCK and not firsts & retries


def test_same_inputs_same_draw_and_attempts_differ():
    a = Draws(PlanetsConfig(), 3, "train")(11, 0)
    b = Draws(PlanetsConfig(), 3, "train")(11, 0)
    c = Draws(PlanetsConfig(), 3, "train")(11, 1)
    d = Draws(PlanetsConfig(), 3, "val")(11, 0)
    assert np.array_equal(a.m, b.m) and not np.array_equal(a.m, c.m)
    assert not np.array_equal(a.m, d.m)


# ---------------------------------------------------------------- physics


def _angles(pos: np.ndarray) -> np.ndarray:
    return np.unwrap(np.arctan2(pos[..., 1], pos[..., 0]), axis=0)


def test_kepler_mean_angular_speed_and_stepsize():
    """Mean angular speed = a^-1.5 (G = M = 1); each step advances as Kepler allows for Δt."""
    config = PlanetsConfig(steps=400)
    for split in ("train", "ood_stepsize", "ood_a1"):
        make = SampleMaker(config, seed=1, split=split)
        for i in range(4):
            m, a, e, dt, pos = _unpack(make(i)[0])
            assert pos.shape == (400, len(a), 2)
            n_kepler = a**-1.5
            span = dt * (len(pos) - 1)
            theta = _angles(pos)
            n_mean = (theta[-1] - theta[0]) / span
            # |true - mean longitude| <= 2e + 1.25e^2, so the mean rate is off by <= twice that
            allowed = 2 * (2 * e + 1.25 * e**2) / span / n_kepler + 0.005
            assert np.all(np.abs(n_mean / n_kepler - 1) < np.minimum(allowed, 0.03)), (split, i)
            # per step: dθ/dt = n (1 + e cos f)^2 / (1 - e^2)^1.5 bounds the advance over Δt
            # (2% slack: planet-planet perturbations slowly change e over the trajectory)
            step = np.diff(theta[:100], axis=0) / (n_kepler * dt)
            lo = (1 - e) ** 2 / (1 - e**2) ** 1.5
            hi = (1 + e) ** 2 / (1 - e**2) ** 1.5
            assert np.all(step > lo * 0.98) and np.all(step < hi * 1.02), (split, i)
            # the description belongs to the planet in the same column: r in [a(1-e), a(1+e)]
            r = np.hypot(pos[:100, :, 0], pos[:100, :, 1])
            assert np.all(r > a * (1 - e) * 0.98) and np.all(r < a * (1 + e) * 1.02), (split, i)


def test_start_angles_follow_prior():
    make = SampleMaker(PlanetsConfig(steps=2), seed=5, split="train")
    zero = 0
    for i in range(60):
        pos = _unpack(make(i)[0])[4]
        theta0 = np.arctan2(pos[0, :, 1], pos[0, :, 0])
        assert np.all(np.abs(theta0) <= math.pi / 6 + 1e-12)
        zero += bool(np.all(pos[0, :, 1] == 0))
    assert 6 <= zero <= 32  # ~Binomial(60, 0.3): mean 18


def test_simulate_matches_attribute_reads():
    s = Draws(PlanetsConfig(), 0, "train")(0, 0)
    pos = simulate(s, 5)
    sim = rebound.Simulation()
    sim.add(m=1.0)
    for m, a, e, t in zip(s.m, s.a, s.e, s.theta):
        sim.add(primary=sim.particles[0], m=m, a=a, e=e, theta=t)
    for k in range(5):
        sim.integrate(k * s.stepsize)
        ref = [[p.x - sim.particles[0].x, p.y - sim.particles[0].y] for p in sim.particles[1:]]
        assert pos[k].tolist() == ref


def test_ctrl_c_still_interrupts_python_after_an_integration():
    """REBOUND's integrator takes SIGINT at the C level and keeps it: after simulate(), a SIGINT
    must still raise KeyboardInterrupt in Python (before the fix it was swallowed silently)."""
    import signal
    import threading

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        simulate(Draws(PlanetsConfig(), 0, "train")(0, 0), 5)
        threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
        start = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            while time.perf_counter() - start < 5:
                pass
        assert time.perf_counter() - start < 2
    finally:
        signal.signal(signal.SIGINT, before)


def test_failed_integration_raises_as_rebound_does_and_is_redrawn(monkeypatch):
    """trajectory() calls REBOUND's C integrator directly: a failure raises the exception
    Simulation.integrate would, and the sample is re-drawn and counted as rejected_rebound."""
    s = Draws(PlanetsConfig(), 0, "train")(0, 0)
    sim = planets.new_simulation(s)
    sim.exit_max_distance = 0.5  # every planet is beyond it
    with pytest.raises(rebound.Escape):
        planets.trajectory(sim, s.stepsize, 3)
    redrawn = simulate(Draws(PlanetsConfig(), 0, "train")(0, 1), 3)
    made = []

    def first_escapes(system):
        sim = new_simulation(system)
        sim.exit_max_distance = 0.5 if not made else 0.0  # 0: no limit
        made.append(sim)
        return sim

    monkeypatch.setattr(planets, "new_simulation", first_escapes)
    record, st = SampleMaker(PlanetsConfig(steps=3), 0, "train")(0)
    assert st == {"rejected": 1, "rejected_bound": 0, "rejected_rebound": 1} and len(made) == 2
    assert record["data"] == redrawn.tolist()


def test_unstable_draws_are_rejected_and_counted():
    """a_f up to 14 puts outer planets beyond |x| = 10: those draws are re-drawn."""
    config = PlanetsConfig(steps=3, a_final=(8.0, 14.0))
    make = SampleMaker(config, seed=2, split="train")
    rejected = 0
    for i in range(12):
        record, st = make(i)
        assert st["rejected"] == st["rejected_bound"] + st["rejected_rebound"]
        rejected += st["rejected"]
        assert np.abs(np.array(record["data"])).max() < BOUND
        assert record == make(i)[0]
    assert rejected > 0
    with pytest.raises(DatasetError, match="unstable"):
        SampleMaker(PlanetsConfig(steps=2, a_final=(15.0, 16.0), planets=(2, 2), max_attempts=3), 0, "train")(0)


# ---------------------------------------------------------------- dataset directory

SMALL = dict(train=12, val=3, test=3, ood=4, seed=9, shard_size=4)


def test_determinism_one_vs_two_workers(tmp_path):
    config = PlanetsConfig(steps=6)
    build(tmp_path / "w1", config=config, workers=1, **SMALL)
    manifest = build(tmp_path / "w2", config=config, workers=2, **SMALL)
    assert _shards(tmp_path / "w1") == _shards(tmp_path / "w2")
    build(tmp_path / "s5", config=config, workers=1, **{**SMALL, "shard_size": 5})
    for split in ("train", "ood_a1"):  # the samples do not depend on the shard size
        assert list(Dataset(tmp_path / "s5").records(split)) == list(Dataset(tmp_path / "w1").records(split))
    ds = Dataset(tmp_path / "w2")
    assert ds.splits == ["train", "val", "test", "ood_stepsize", "ood_a1"]
    assert [ds.count(s) for s in ds.splits] == [12, 3, 3, 4, 4]
    assert manifest["scalings"]["description.*.m"]["factor"] == 1e5
    assert manifest["scalings"]["description.*.e"]["factor"] == 20
    assert set(manifest["ood"]) == {"ood_stepsize", "ood_a1"}
    # the builder declares what to evaluate; analysis reads it (nothing planets-specific there)
    from scinum.analysis.scoring import default_fields

    assert default_fields(manifest) == ["description.stepsize", "description.planet0.a", "description.planet0.e", "description.planet0.m"]
    assert manifest["evaluation"]["ood_fields"]["ood_a1"] == "description.planet0.a"
    assert "rejected" in manifest["splits"]["train"]["stats"]
    for split in ds.splits:
        for r in ds.records(split):
            assert len(r["data"]) == 6
            assert len(r["description"]) - 1 == len(r["data"][0])


@pytest.mark.parametrize("workers", ["1", "2"])
def test_kill_and_resume_is_byte_identical(tmp_path, workers):
    """kill -9 mid-build (with 2 workers: this process and a helper that must die with it)
    leaves only complete shards; the same command resumes to the bytes of an unkilled build."""
    args = [
        "build",
        "planets",
        "--train",
        "600",
        "--val",
        "0",
        "--test",
        "0",
        "--ood",
        "0",
        "--steps",
        "3",
        "--shard-size",
        "8",
        "--workers",
        workers,
        "--seed",
        "4",
    ]
    cli_main(args[:2] + [str(tmp_path / "full")] + args[2:])
    out = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(REPO), "TQDM_DISABLE": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "scinum.cli", *args[:2], str(out), *args[2:]],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while len(list(out.glob("train/part-*.jsonl"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.kill()
    proc.wait()
    assert not (out / "manifest.json").exists(), "build finished before it could be killed"
    time.sleep(0.3)
    written = sorted(out.rglob("*"))
    time.sleep(1.0)  # a helper that outlived the kill would go on writing shards
    assert sorted(out.rglob("*")) == written
    for f in out.glob("train/part-*.jsonl"):  # every shard on disk is complete
        assert len(f.read_text().splitlines()) == 8
    assert cli_main(args[:2] + [str(out)] + args[2:]) == 0
    assert _shards(out) == _shards(tmp_path / "full")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(train=-1), "count"),
        (dict(ood=-3), "count"),
        (dict(seed=-1), "seed"),
        (dict(workers=0), "workers"),
        (dict(config_kw=dict(stepsizes=())), "empty"),
        (dict(config_kw=dict(stepsizes=(0.2, -0.1))), "step sizes"),
        (dict(config_kw=dict(a_final=(0.8, 2.0))), "a_final"),
        (dict(config_kw=dict(a_final=(1.0, 2.0))), "a_final"),
        (dict(config_kw=dict(a_final=(2.5, 2.0))), "a_final"),
        (dict(config_kw=dict(planets=(0, 3))), "planets"),
        (dict(config_kw=dict(planets=(4, 2))), "planets"),
        (dict(config_kw=dict(steps=0)), "steps"),
        (dict(config_kw=dict(steps=(5, 3))), "steps"),
        (dict(config_kw=dict(steps=(0, 3))), "steps"),
        (dict(config_kw=dict(steps=(3, 4, 5))), "steps"),
        (dict(config_kw=dict(steps=4.5)), "steps"),
        (dict(config_kw=dict(ood_a1_range=(1.0, 1.3))), "ood_a1_range"),
        (dict(config_kw=dict(planets=(2, 5))), "ood_a1_range"),  # gap ends at 1.125 < 1.16
        (dict(config_kw=dict(ood_stepsize_range=(0.19, 0.21))), "empty"),
        (dict(config_kw=dict(ood_stepsize_margin=0.0)), "margin"),
    ],
)
def test_bad_parameters_raise_clear_errors(tmp_path, kwargs, match):
    base = dict(train=1, val=1, test=1, ood=1, seed=0)
    config_kw = kwargs.pop("config_kw", None)
    with pytest.raises(DatasetError, match=match):
        config = PlanetsConfig(**config_kw) if config_kw else None
        build(tmp_path / "out", config=config, **{**base, **kwargs})
    assert not (tmp_path / "out").exists()


def test_cli_builds_and_reports_errors(tmp_path, capsys):
    out = tmp_path / "ds"
    argv = [
        "build",
        "planets",
        str(out),
        "--train",
        "3",
        "--val",
        "1",
        "--test",
        "1",
        "--ood",
        "1",
        "--steps",
        "4",
        "--planets",
        "2",
        "3",
        "--workers",
        "1",
        "--compress",
        "--seed",
        "3",
    ]
    assert cli_main(argv) == 0
    ds = Dataset(out)
    assert ds.manifest["compressed"] and ds.files("train")[0].name.endswith(".jsonl.gz")
    records = list(ds.records("train"))
    assert len(records) == 3 and all(2 <= len(r["data"][0]) <= 3 for r in records)
    assert cli_main(argv) == 0  # complete dataset, same parameters: nothing to do
    assert cli_main(["build", "planets", str(tmp_path / "bad"), "--stepsizes"]) == 1
    assert "step sizes is empty" in capsys.readouterr().err
    assert cli_main(["build", "planets", str(tmp_path / "bad"), "--a-final", "0.5", "2"]) == 1


# ---------------------------------------------------------------- steps per sample


def _descriptions(path: Path) -> str:
    """sha256 of every sample's description and step count, all splits (draws, not REBOUND)."""
    import hashlib
    import json

    ds = Dataset(path)
    rows = [(r["description"], len(r["data"])) for s in ds.splits for r in ds.records(s)]
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


def test_a_fixed_step_count_builds_what_builder_version_2_built(tmp_path):
    """Recorded from the builder at 96bed8f (before step ranges existed): a fixed int must keep
    giving the same samples (the shards there and here were byte-identical)."""
    build(tmp_path / "d", train=30, val=3, test=3, ood=5, seed=5, steps=7, workers=1, shard_size=16)
    assert _descriptions(tmp_path / "d") == "4fbffee6d2ffec7b8ac353b4c68f7327ccd135478dbd6525055c2ade8b6741fd"


def test_a_step_range_draws_each_samples_count_deterministically(tmp_path):
    config = PlanetsConfig(steps=(3, 6))
    counts = [StepCounts(config, 2, "train")(i) for i in range(2 * BLOCK + 5)]
    assert set(counts) == {3, 4, 5, 6}
    again = StepCounts(config, 2, "train")
    assert [again(i) for i in reversed(range(len(counts)))] == counts[::-1]  # any order
    assert counts != [StepCounts(config, 2, "val")(i) for i in range(len(counts))]
    assert counts != [StepCounts(config, 3, "train")(i) for i in range(len(counts))]
    assert StepCounts(PlanetsConfig(steps=(4, 4)), 2, "train")(17) == 4
    build(tmp_path / "r", train=12, val=2, test=2, ood=3, seed=2, steps=[3, 6], workers=1)
    ds = Dataset(tmp_path / "r")
    assert ds.manifest["parameters"]["steps"] == [3, 6]
    for split in ds.splits:
        want = StepCounts(config, 2, split)
        assert [len(r["data"]) for r in ds.records(split)] == [want(i) for i in range(ds.count(split))]
    # the systems are those of a fixed count (the count has its own generator)
    fixed = build(tmp_path / "f", train=12, val=0, test=0, ood=0, seed=2, steps=3, workers=1)
    assert fixed and [r["description"] for r in ds.records("train")] == [r["description"] for r in Dataset(tmp_path / "f").records("train")]
    assert (
        cli_main(
            [
                "build",
                "planets",
                str(tmp_path / "c"),
                "--train",
                "4",
                "--val",
                "0",
                "--test",
                "0",
                "--ood",
                "0",
                "--steps",
                "3",
                "6",
                "--workers",
                "1",
            ]
        )
        == 0
    )
    assert {len(r["data"]) for r in Dataset(tmp_path / "c").records("train")} <= {3, 4, 5, 6}
    assert cli_main(["build", "planets", str(tmp_path / "x"), "--steps", "3", "4", "5"]) == 1
