"""Budgets -> steps, exactly, for each kind; the seconds budget's clock; fit honouring a budget."""

import json
import math

import numpy as np
import pytest

from scinum.train.budget import TimeBudget, resolve_steps, steps_for_samples, steps_for_tokens
from scinum.train.config import check_budget
from scinum.errors import ConfigError
from scinum.train.module import lr_factor


@pytest.mark.parametrize("samples,bs,steps", [(38400, 8, 4800), (38400, 32, 1200), (100, 32, 4), (96, 32, 3), (1, 32, 1), (33, 32, 2)])
def test_samples_budget_is_ceil_of_samples_over_batch(samples, bs, steps):
    assert steps_for_samples(samples, bs) == steps
    assert resolve_steps({"samples": samples}, batch_size=bs, max_steps=7) == steps


def test_samples_budget_with_gradient_accumulation_counts_every_batch():
    # 2 batches of 8 per step: 100 samples need ceil(100 / 16) = 7 steps
    assert resolve_steps({"samples": 100}, batch_size=8, max_steps=1, accumulate=2) == 7


def test_tokens_budget_by_hand():
    # records of 1..10 tokens, batches of 5: every pass is 2 batches of 55 tokens in all,
    # whatever order the sampler draws them in
    lengths = np.arange(1, 11)
    for seed in (0, 1, 7):
        kw = dict(batch_size=5, max_steps=1, lengths=lengths, seed=seed)
        assert resolve_steps({"tokens": 55}, **kw) == 2
        assert resolve_steps({"tokens": 56}, **kw) == 3
        assert resolve_steps({"tokens": 110}, **kw) == 4
        assert resolve_steps({"tokens": 111}, **kw) == 5
        assert resolve_steps({"tokens": 1}, **kw) == 1
    # equal lengths: 40 tokens a step, 95 tokens reached at step 3
    assert resolve_steps({"tokens": 95}, batch_size=4, max_steps=1, lengths=np.full(100, 10)) == 3


def test_tokens_budget_follows_the_real_batch_stream():
    """Uneven lengths: the step count is where the sampler's own cumulative tokens cross N."""
    from scinum.train.sampler import BucketBatchSampler

    rng = np.random.default_rng(0)
    lengths = rng.integers(5, 50, size=97)
    cum = np.cumsum([sum(lengths[i] for i, _ in b) for b, _ in zip(BucketBatchSampler(lengths, 8, seed=3), range(60))])
    for n in (1, int(cum[0]), int(cum[0]) + 1, int(cum[20]), int(cum[59])):
        expected = int(np.searchsorted(cum, n) + 1)
        assert resolve_steps({"tokens": n}, batch_size=8, max_steps=1, lengths=lengths, seed=3) == expected
    assert steps_for_tokens(10, [[3], [3], [3], [3]]) == 4
    with pytest.raises(ConfigError, match="ended after 9 tokens"):
        steps_for_tokens(10, [[3], [3], [3]])


def test_samples_budget_counts_the_short_batch_at_the_end_of_a_pass():
    """60 records in batches of 8: each pass ends with a batch of 4, so 32 samples can take 5
    steps; with the lengths at hand the count is the sampler's own, not ceil(32 / 8) = 4."""
    from scinum.train.sampler import BucketBatchSampler

    lengths = np.random.default_rng(1).integers(5, 50, size=60)
    for seed in (0, 3):
        sizes = [len(b) for b, _ in zip(BucketBatchSampler(lengths, 8, seed=seed), range(40))]
        assert sorted(set(sizes)) == [4, 8]  # the short batch is there
        cum = np.cumsum(sizes)
        for n in (8, 32, 60, 64, 200):
            steps = resolve_steps({"samples": n}, batch_size=8, max_steps=1, lengths=lengths, seed=seed)
            assert cum[steps - 1] >= n and (steps == 1 or cum[steps - 2] < n)
        assert resolve_steps({"samples": 60}, batch_size=8, max_steps=1, lengths=lengths, seed=seed) == 8
    # a training set the batch divides: the stream and ceil agree
    even = np.full(64, 10)
    assert resolve_steps({"samples": 100}, batch_size=8, max_steps=1, lengths=even) == 13 == steps_for_samples(100, 8)


def test_seconds_budget_caps_steps_and_defaults_to_no_cap():
    assert resolve_steps({"seconds": 5}, batch_size=8, max_steps=7) == 10**9
    assert resolve_steps({"seconds": 5, "max_steps": 30}, batch_size=8, max_steps=7) == 30
    assert resolve_steps(None, batch_size=8, max_steps=7) == 7


@pytest.mark.parametrize(
    "bad,match",
    [
        ({"samples": 10, "tokens": 5}, "exactly one of"),
        ({}, "exactly one of"),
        ({"samples": 10, "steps": 3}, "exactly one of"),
        ({"samples": -1}, r"budget\.samples"),
        ({"tokens": "many"}, r"budget\.tokens"),
        ({"samples": 10, "max_steps": 5}, r"max_steps"),
        ([38400], "mapping"),
    ],
)
def test_bad_budgets_name_the_key(bad, match):
    with pytest.raises(ConfigError, match=match):
        check_budget(bad)


class _Trainer:
    should_stop = False


def test_time_budget_counts_training_time_only():
    now = [0.0]
    tb = TimeBudget(10.0, clock=lambda: now[0])
    tr = _Trainer()
    steps = 0
    while not tr.should_stop:
        tb.on_train_batch_start(tr, None, None, steps)
        now[0] += 3.0  # a step takes 3 s (forward, backward, optimiser)
        tb.on_train_batch_end(tr, None, None, None, steps)
        steps += 1
        if steps == 2:  # 100 s of validation and a checkpoint do not count
            tb.on_validation_start(tr, None)
            now[0] += 100.0
            tb.on_save_checkpoint(tr, None, {})
            now[0] += 50.0
        else:
            now[0] += 0.5  # drawing the next batch counts
    # 3, 6.5, 9.5 (after the pause the clock restarts at the batch), 13 >= 10: stops after step 4
    assert steps == 4 and tb.elapsed == pytest.approx(13.0)
    assert tb.fraction == 1.0
    state = tb.state_dict()
    again = TimeBudget(10.0)
    again.load_state_dict(state)
    assert again.elapsed == pytest.approx(13.0)


def test_lr_schedule_runs_on_time_with_a_seconds_budget():
    assert lr_factor(0, 10, 100, 0.1, fraction=0.9) == pytest.approx(0.1)  # still warming up
    assert lr_factor(50, 10, 100, 0.1, fraction=0.0) == pytest.approx(1.0)
    assert lr_factor(50, 10, 100, 0.1, fraction=1.0) == pytest.approx(0.1)
    assert lr_factor(50, 10, 100, 0.1, fraction=0.5) == pytest.approx(0.55)
    assert lr_factor(55, 10, 100, 0.1) == pytest.approx(0.55)  # step-based as before


def test_fit_takes_its_steps_from_the_budget(tmp_path, toy_dataset):
    from test_training import Toy, _config  # the records and config of the training tests
    from scinum.train.fit import fit

    path = toy_dataset(tmp_path / "ds", 48, 8, ["m"], shard_size=32, sample=Toy())
    cfg = _config(path, tmp_path / "a", budget={"samples": 20})
    fit(cfg)
    info = json.loads((tmp_path / "a" / "training.json").read_text())
    assert info["steps"] == 3 and info["budget"] == {"samples": 20} and info["train_seconds"] > 0
    assert json.loads((tmp_path / "a" / "config.json").read_text())["trainer"]["max_steps"] == 3
    cfg = _config(path, tmp_path / "b", budget={"seconds": 1e-6, "max_steps": 50})
    fit(cfg)
    assert json.loads((tmp_path / "b" / "training.json").read_text())["steps"] == 1
    assert math.isfinite(json.loads((tmp_path / "b" / "training.json").read_text())["train_seconds"])


def test_a_huge_budget_resolves_at_once_and_as_the_walk_would():
    """Issue 37 case 5: ``budget: {samples: 1.0e12}`` walked the batch stream record by record
    before training (hours, nothing logged). Whole passes are counted, only the last walked:
    the same step counts as walking, in time that does not grow with the budget."""
    import time
    from scinum.train.budget import steps_for_tokens, token_stream

    lengths = np.random.default_rng(2).integers(5, 50, size=61)
    for kind in ("samples", "tokens"):
        for n in (1, 60, 61, 62, 500, int(lengths.sum()) * 3, int(lengths.sum()) * 3 + 1, 4321):
            walked = steps_for_tokens(n, token_stream(lengths, 8, 5, 3), kind)
            assert resolve_steps({kind: n}, batch_size=8, max_steps=1, lengths=lengths, seed=5, pool=3) == walked
    started = time.perf_counter()
    assert resolve_steps({"samples": 10**12}, batch_size=8, max_steps=1, lengths=lengths) > 10**11
    assert time.perf_counter() - started < 5
