"""trainer.early_stopping_patience: stop on a stalled val/loss, keep and restore the best weights."""

import json
import random
from types import SimpleNamespace

import lightning as L
import pytest
import torch

from scinum.model.checkpoint import load_checkpoint
from scinum.train.config import load_config
from scinum.train.early_stopping import BestWeights
from scinum.train.fit import fit
from scinum.datasets.jsonl import build

from conftest import tiny_config  # tests/conftest.py

pytestmark = pytest.mark.usefixtures("one_thread")


def test_best_weights_keeps_the_lowest_loss_and_stops_after_patience():
    net = torch.nn.Linear(2, 1)
    module = SimpleNamespace(model=net)
    cb = BestWeights(patience=2)
    trainer = SimpleNamespace(sanity_checking=False, should_stop=False, global_step=0, callback_metrics={})
    kept = None
    for step, loss in [(10, 3.0), (20, 2.0), (30, 2.5), (40, 2.6), (50, 1.0)]:
        if trainer.should_stop:
            break
        with torch.no_grad():
            net.weight.fill_(step)
        trainer.global_step, trainer.callback_metrics = step, {"val/loss": torch.tensor(loss)}
        cb.on_validation_end(trainer, module)
        if step == 20:
            kept = net.weight.clone()
    assert trainer.should_stop and cb.stopped_early  # 2.5 and 2.6: two validations without a lower loss
    assert cb.summary(40) == {"step": 20, "val_loss": 2.0, "last_step": 40, "stopped_early": True}
    assert torch.equal(cb.weights["weight"], kept)
    again = BestWeights(patience=2)
    again.load_state_dict(cb.state_dict())  # a resumed run keeps the best of before
    assert again.summary(40) == cb.summary(40)


def test_best_weights_does_not_stop_before_its_floor():
    """``min_steps`` (trainer.early_stopping_min_steps, the Regressor's budget floor): patience runs
    out at step 40, but the run goes on to the first validation at or after step 60, still keeping
    the lowest loss's weights."""
    module = SimpleNamespace(model=torch.nn.Linear(2, 1))
    cb = BestWeights(patience=2, min_steps=60)
    trainer = SimpleNamespace(sanity_checking=False, should_stop=False, global_step=0, callback_metrics={})
    stopped_at = None
    for step, loss in [(10, 3.0), (20, 2.0), (30, 2.5), (40, 2.6), (50, 2.7), (60, 2.8), (70, 1.0)]:
        trainer.global_step, trainer.callback_metrics = step, {"val/loss": torch.tensor(loss)}
        cb.on_validation_end(trainer, module)
        if trainer.should_stop:
            stopped_at = step
            break
    assert stopped_at == 60 and cb.stopped_early
    assert cb.summary(60) == {"step": 20, "val_loss": 2.0, "last_step": 60, "stopped_early": True}


class _Record(L.Callback):
    """The weights at every validation (after BestWeights has seen it)."""

    def __init__(self):
        self.seen = []

    def on_validation_end(self, trainer, pl_module):
        self.seen.append(
            (
                float(trainer.callback_metrics["val/loss"]),
                trainer.global_step,
                {k: v.clone() for k, v in pl_module.model.state_dict().items()},
            )
        )


def _data(tmp_path):
    r = random.Random(0)
    recs = [{"x": [round(r.uniform(0, 1), 4), round(r.uniform(0, 1), 4)]} for _ in range(300)]
    for x in recs:
        x["y"] = round(x["x"][0] + x["x"][1], 4)
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(x) + "\n" for x in recs))
    build(tmp_path / "ds", train=[tmp_path / "a.jsonl"], split=[0.8, 0.2, 0.0], progress=False)
    return tmp_path / "ds"


def _config(tmp_path, data, name, **trainer):
    return load_config(
        None,
        tiny_config(
            data,
            tmp_path / name,
            seed=0,
            data={"batch_size": 32},
            # learned positions: a curve whose best validation is not its last (with structure
            # positions this tiny run improves to its last step, and restoring would change nothing)
            # and no weight averaging, whose smoothed curve improves to its last step too
            model={"positions": "learned"},
            optim={"lr": 3e-2, "warmup_steps": 5, "weight_average": 0.0},
            trainer={"max_steps": 60, "devices": 1, "val_check_interval": 10, **trainer},
        ),
    )


def test_fit_restores_the_best_weights_and_says_which_step(tmp_path, capsys):
    data = _data(tmp_path)
    rec = _Record()
    ckpt = fit(_config(tmp_path, data, "es", early_stopping_patience=100), callbacks=[rec])
    loss, step, weights = min(rec.seen, key=lambda s: s[0])
    assert step < rec.seen[-1][1]  # the best is not the last: restoring it matters here
    meta, net = load_checkpoint(ckpt)
    assert meta.run["best"] == {"step": step, "val_loss": loss, "last_step": 60, "stopped_early": False}
    assert all(torch.equal(net.state_dict()[k], v) for k, v in weights.items())
    assert json.loads((tmp_path / "es" / "training.json").read_text())["best"]["step"] == step
    err = capsys.readouterr().err
    assert f"kept the weights of step {step}" in err
    plain = load_checkpoint(fit(_config(tmp_path, data, "plain")))[0]  # off by default: the last weights
    assert "best" not in plain.run
