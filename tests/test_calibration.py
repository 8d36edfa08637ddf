"""Quantile recalibration of a mixture head on validation data (scinum.fill.calibration)."""

import random

import numpy as np
import pytest

import scinum
from scinum.fill.calibration import fit_recalibration
from scinum.model.recalibration import GRID, recalibrated
from scinum.train.config import load_config
from scinum.train.fit import fit

from conftest import tiny_config, write_dataset  # tests/conftest.py


class Noisy:
    """``{"x": x, "y": x + noise}``: y is predictable only up to its noise."""

    def __call__(self, i):
        r = random.Random(i)
        x = round(r.uniform(0, 10), 3)
        return {"x": x, "y": round(x + r.gauss(0, 0.3), 4)}, None


@pytest.fixture(scope="module")
def runs(tmp_path_factory, one_thread_module):
    root = tmp_path_factory.mktemp("cal")
    write_dataset(root / "ds", Noisy(), {"train": 200, "val": 120}, builder="noisy", shard_size=200, evaluation={"fields": ["y"]})
    out = {}
    for calibrate in (True, False):
        out[calibrate] = fit(
            load_config(
                None,
                tiny_config(
                    root / "ds",
                    root / f"run-{calibrate}",
                    data={"batch_size": 16, "mask_fields": ["y"], "mask_fields_prob": 1.0},
                    calibrate=calibrate,
                    head={"kind": "mixture", "n_components": 3},
                    model={"d_model": 32},
                    optim={"lr": 3e-3, "warmup_steps": 5},
                    trainer={"max_steps": 60, "val_check_interval": 60, "limit_val_batches": 1, "checkpoint_every_n_steps": 100},
                ),
            )
        )
    return root / "ds", out


def _coverage(model, records, level):
    res = model.predict_many(records, ["y"], intervals=(level,))
    key = f"interval_{round(level * 100)}"
    inside = [lo <= r["y"] <= hi for r, f in zip(records, res) for lo, hi in [f.predictions[0].uncertainty[key]]]
    return float(np.mean(inside))


def test_recalibrated_intervals_cover_their_level_on_validation(runs):
    data, ckpts = runs
    plain, calibrated = scinum.load(ckpts[False]), scinum.load(ckpts[True])
    assert plain.meta.calibration == {} and set(calibrated.meta.calibration) == {"y"}
    found = fit_recalibration(plain, data, ["y"])["y"]  # the same fit, from the plain model
    assert np.allclose(found["table"], calibrated.meta.calibration["y"])
    val = [r for r in scinum.Dataset(data).records("val")]
    for level, before in ((0.68, found["coverage68_before"]), (0.95, found["coverage95_before"])):
        assert _coverage(plain, val, level) == pytest.approx(before)
        after = _coverage(calibrated, val, level)
        assert abs(after - level) <= 3 / len(val)  # nominal, up to the granularity of 120 records
        if abs(before - level) > 3 / len(val):  # it was off, and it is corrected (seed 3's 68 %
            assert abs(after - level) < abs(before - level)  # intervals are nominal before)
    # the same weights: point values and mixture parameters unchanged, only the intervals move
    rec = {"x": 4.0, "y": None}
    a, b = plain.predict(rec).predictions[0], calibrated.predict(rec).predictions[0]
    assert a.value == b.value and a.uncertainty["stds"] == b.uncertainty["stds"]
    assert a.uncertainty["interval_68"] != b.uncertainty["interval_68"]


def test_recalibrated_levels_follow_the_table():
    tables = {1: np.linspace(0, 1, 101) ** 2}  # a model whose levels come out too high
    levels = recalibrated([0.16, 0.5, 0.84], np.array([0, 1, 1]), tables)
    assert np.allclose(levels[0], [0.16, 0.5, 0.84])  # field 0: no table
    assert np.allclose(levels[1], np.interp([0.16, 0.5, 0.84], GRID, tables[1]))
    assert levels.min() > 0 and levels.max() < 1


def test_mixture_cdf_stays_in_unit_interval_when_float32_weights_sum_above_one():
    """Issue 37 case 0: float32 log-softmax weights summing to 1 + 1e-7 gave a CDF (and a
    recalibration level) of 1.0000001, which the checkpoint's own check then refused."""
    import torch
    from scinum.heads import MixtureHead

    head = MixtureHead(8, n_components=2)
    log_w = torch.tensor([[0.5 + 1e-7, 0.5]], dtype=torch.float32).log()
    assert log_w.double().exp().sum() > 1  # the drift this test is about
    out = (log_w, torch.zeros(1, 2), torch.ones(1, 2))
    u = head.cdf(out, torch.tensor([1e3], dtype=torch.float64))
    assert 0 <= u.min() and u.max() <= 1
    table = np.quantile(head.cdf(out, torch.tensor([1e3], dtype=torch.float64)).numpy(), GRID)
    from scinum.model.recalibration import check_table

    assert check_table(table.tolist())


def test_save_checkpoint_refuses_metadata_its_load_would_refuse(tmp_path):
    """Issue 37 case 0: a table out of [0, 1] is refused when saving (nothing written), not
    only when the saved checkpoint is loaded back."""
    from scinum.model.checkpoint import CheckpointMeta, load_checkpoint, save_checkpoint
    from scinum.tokens.codec import Vocabulary
    from scinum.errors import CheckpointError
    from scinum.model.config import ModelConfig
    from scinum.tokens.normalize import Normalizer

    vocab = Vocabulary.build([{"x": 1.0}])
    meta = CheckpointMeta(
        model=ModelConfig(vocab_size=len(vocab), d_model=16, n_layers=1, n_heads=2, max_positions=8),
        encoding={"name": "xval"},
        vocab=vocab,
        normalizer=Normalizer.identity(vocab.fields),
    )
    net = meta.build_model()
    save_checkpoint(tmp_path / "ok.ckpt", net, meta)
    assert load_checkpoint(tmp_path / "ok.ckpt")[0].calibration == {}
    meta.calibration = {"x": [min(1.0, float(q)) for q in GRID[:-1]] + [1.0000000261]}
    with pytest.raises(CheckpointError, match="bad.ckpt.*calibration"):
        save_checkpoint(tmp_path / "bad.ckpt", net, meta)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok.ckpt"]


def test_too_few_validation_numbers_leave_the_intervals_unfitted_and_say_so(runs, tmp_path, capsys):
    import shutil

    from scinum.fill.calibration import MIN_VALUES, recalibrate
    from scinum.model.checkpoint import load_checkpoint

    _, ckpts = runs
    splits = {"train": 40, "val": MIN_VALUES - 1}
    write_dataset(tmp_path / "few", Noisy(), splits, builder="noisy", shard_size=200, evaluation={"fields": ["y"]})
    ckpt = shutil.copy(ckpts[False], tmp_path / "model.ckpt")
    meta, net = load_checkpoint(ckpt)
    recalibrate(meta, net, tmp_path / "few")
    assert meta.calibration == {}
    assert meta.run["calibration"] == {
        "split": "val",
        "min_values": MIN_VALUES,
        "fields": {"y": {"n": MIN_VALUES - 1, "fitted": False}},
    }
    captured = capsys.readouterr()
    assert (
        f"intervals of y not recalibrated: {MIN_VALUES - 1} val numbers, fewer than the {MIN_VALUES}" in captured.err and captured.out == ""
    )
    recalibrate(meta, net, runs[0])  # 120 numbers: fitted, and counted
    assert meta.run["calibration"]["fields"] == {"y": {"n": 120, "fitted": True}}
