"""Runs that cannot end refuse to start, before any process is spawned or step taken: a
non-positive batch size (the sampler would spin forever), ``max_steps: -1`` (trains until
killed), no devices, zero intervals, and records longer than the context a run may attend over."""

import random

import pytest

from scinum.train.config import load_config
from scinum.train.sampler import BucketBatchSampler
from scinum.errors import ConfigError
from scinum.train.fit import fit

from conftest import tiny_config, write_dataset  # tests/conftest.py


class Wide:
    def __call__(self, i):
        rng = random.Random(i)
        return {"x": [round(rng.uniform(-1, 1), 3) for _ in range(600)]}, {}


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    path = tmp_path_factory.mktemp("wide") / "data"
    return write_dataset(path, Wide(), {"train": 4, "val": 2}, shard_size=8)


def _cfg(data, out, **over):
    cfg = tiny_config(data, out, data={"batch_size": 2}, model={"d_model": 8, "n_heads": 1}, trainer={"max_steps": 2, "devices": 1})
    cfg = load_config(overrides=cfg)
    for key, value in over.items():
        section, leaf = key.split(".")
        cfg[section][leaf] = value
    return cfg


@pytest.mark.parametrize(
    "key,value",
    [
        ("data.batch_size", -4),
        ("data.batch_size", 0),
        ("data.batch_size", "16"),
        ("trainer.max_steps", -1),
        ("trainer.max_steps", 0),
        ("trainer.devices", 0),
        ("trainer.devices", []),
        ("trainer.val_check_interval", 0),
        ("trainer.checkpoint_every_n_steps", 0),
        ("trainer.accumulate_grad_batches", 0),
        ("trainer.collective_timeout_s", 0),
        ("trainer.limit_val_batches", -1),
    ],
)
def test_a_run_that_could_not_end_is_refused_naming_the_key(key, value, wide, tmp_path):
    with pytest.raises(ConfigError, match=rf"^config: {key.replace('.', '[.]')} = "):
        fit(_cfg(wide, tmp_path / "run", **{key: value}))
    assert not (tmp_path / "run").exists()  # refused before anything was written


def test_the_sampler_itself_refuses_a_non_positive_batch_size():
    with pytest.raises(ConfigError, match="batch size -4"):
        BucketBatchSampler([3, 4, 5], -4)


def test_a_record_longer_than_the_allowed_context_is_refused_before_training(wide, tmp_path):
    cfg = _cfg(wide, tmp_path / "run", **{"data.max_record_tokens": 500})
    with pytest.raises(
        ConfigError,
        match=r"(train|val) record \d+ is \d{3} tokens long, over "
        r"data.max_record_tokens 500.*M pairs",
    ):
        fit(cfg)
    assert not (tmp_path / "run" / "checkpoints").exists()
    cfg["data"]["max_record_tokens"] = 1000  # raised: it trains
    assert fit(cfg).exists()
