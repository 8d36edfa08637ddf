"""Distributed and mixed-precision training, proven on CPU: 2-process DDP (gloo) and bf16.

DDP here: each rank takes whole batches of ``data.batch_size`` (batch g goes to rank g % 2) and
the gradients are averaged — exactly what one process does with ``accumulate_grad_batches: 2``
over the same batches. So a 2-process run and a 1-process run with accumulation must end with
the same weights, up to the order of floating-point sums in the all-reduce.
"""

import csv

import numpy as np
import pytest
import torch

import scinum
from scinum.train.config import load_config
from scinum.errors import ConfigError
from scinum.train.fit import fit

from conftest import ToyMD as Toy  # the records of tests/conftest.py's toy_dataset
from conftest import fit_cli, tiny_config


@pytest.fixture(scope="module")
def dataset(tmp_path_factory, toy_dataset):
    return toy_dataset(tmp_path_factory.mktemp("ddp") / "data", 64, 16, shard_size=64)


def _config(dataset, out, **trainer):
    return tiny_config(
        dataset,
        out,
        seed=0,
        trainer={"val_check_interval": 3, "limit_val_batches": 1, "checkpoint_every_n_steps": 3, "log_every_n_steps": 1, **trainer},
    )


def _weights(path):
    return torch.load(path, weights_only=True)["state_dict"]


def test_two_process_ddp_matches_one_process_with_accumulation(dataset, tmp_path):
    rc, out, err = fit_cli(_config(dataset, tmp_path / "ddp", devices=2, strategy="ddp"), tmp_path, "ddp")
    assert rc == 0, err[-3000:]
    # rank 0 alone writes the model and says so, once
    assert err.count("model written to") == 1 and out == ""  # messages on stderr
    assert sorted(p.name for p in (tmp_path / "ddp").glob("*.ckpt")) == ["model.ckpt"]
    one = fit(load_config(overrides=_config(dataset, tmp_path / "one", devices=1, accumulate_grad_batches=2)))
    a, b = _weights(tmp_path / "ddp" / "model.ckpt"), _weights(one)
    assert a.keys() == b.keys()
    diff = max(float((a[k] - b[k]).abs().max()) for k in a)
    assert diff < 1e-5, diff  # same batches, same averaged gradients; only sum order differs
    plain = _weights(fit(load_config(overrides=_config(dataset, tmp_path / "plain", devices=1))))
    assert max(float((a[k] - plain[k]).abs().max()) for k in a) > 100 * diff  # the test can tell
    # resume from the DDP run's checkpoint: 6 -> 9 steps, and the model fills finite values
    more = _config(dataset, tmp_path / "ddp", devices=2, strategy="ddp", max_steps=9)
    rc, _, err = fit_cli(more, tmp_path, "more")
    assert rc == 0, err[-3000:]
    last = torch.load(tmp_path / "ddp" / "checkpoints" / "last.ckpt", weights_only=True)
    assert last["global_step"] == 9
    filled = scinum.load(tmp_path / "ddp" / "model.ckpt").fill(Toy()(999)[0], ["m", "data[-1][*]"])
    assert np.isfinite([filled["m"], *filled["data"][-1]]).all()


def test_too_few_batches_for_the_ranks_fails_before_spawning(dataset, tmp_path):
    cfg = load_config(overrides=_config(dataset, tmp_path / "x", devices=2, strategy="ddp"))
    cfg["data"]["batch_size"] = 16  # the 16-record val split: 1 batch for 2 ranks
    with pytest.raises(ConfigError, match=r"val split: 16 records.*batch_size to at most 8.*limit_val_batches: 0"):
        fit(cfg)
    assert not (tmp_path / "x" / "checkpoints").exists()


def test_bf16_mixed_on_cpu_trains_and_loads_in_fp32(dataset, tmp_path):
    path = fit(load_config(overrides=_config(dataset, tmp_path / "bf16", devices=1, precision="bf16-mixed", max_steps=4)))
    with open(tmp_path / "bf16" / "logs" / "metrics.csv") as f:
        losses = [float(r["train/loss"]) for r in csv.DictReader(f) if r["train/loss"]]
    assert len(losses) == 4 and np.isfinite(losses).all()
    model = scinum.load(path)
    assert all(p.dtype == torch.float32 for p in model.model.parameters())
    filled = model.fill(Toy()(7)[0], ["m"])
    assert np.isfinite(filled["m"])
