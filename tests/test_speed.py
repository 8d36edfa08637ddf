"""Training-speed changes keep what a run writes: scinum.train.speed.logs_this_step."""

import csv

import pytest

from scinum.train.config import load_config
from scinum.train.speed import logs_this_step
from scinum.train.fit import fit

from conftest import tiny_config  # tests/conftest.py

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def _config(data, out, every):
    trainer = {
        "max_steps": 7,
        "val_check_interval": 100,
        "limit_val_batches": 0,
        "checkpoint_every_n_steps": 100,
        "log_every_n_steps": every,
    }
    return load_config(None, tiny_config(data, out, model={"d_model": 32}, trainer=trainer))


def _train_rows(out):
    with open(out / "logs" / "metrics.csv") as f:
        return {int(r["step"]): {k: v for k, v in r.items() if k.startswith("train/")} for r in csv.DictReader(f) if r.get("train/loss")}


def test_training_logs_only_written_steps_with_their_own_values(toy_dataset, tmp_path):
    """log_every_n_steps 3: the training step skips Lightning's logging on the steps no logger
    writes, and the rows that are written hold those steps' own metrics (the same as a run that
    logs every step has at those steps), not stale ones."""
    data = toy_dataset(tmp_path / "ds", 40, 8)
    fit(_config(data, tmp_path / "every1", 1))
    fit(_config(data, tmp_path / "every3", 3))
    every1, every3 = _train_rows(tmp_path / "every1"), _train_rows(tmp_path / "every3")
    assert sorted(every1) == list(range(7))
    assert sorted(every3) == [2, 5]
    for step, row in every3.items():
        assert row == every1[step] and row["train/tokens"]


def test_logs_this_step_outside_a_trainer():
    class Bare:
        pass

    assert logs_this_step(Bare())
