"""optim.weight_average (scinum.train.weight_average): the moving average of the weights is what a
validation reads and what the run writes, and a killed run resumes to the same average."""

import pytest
import torch
import lightning as L

from scinum.errors import ConfigError
from scinum.model.checkpoint import load_checkpoint
from scinum.train.config import load_config
from scinum.train.fit import fit

from conftest import tiny_config  # tests/conftest.py
from test_early_stopping import _data
from test_training import Kill

pytestmark = pytest.mark.usefixtures("one_thread")

DECAY = 0.8


class _Weights(L.Callback):
    """The weights at the start, after every optimiser step and at every validation (listed after
    WeightAverage, so a validation shows what it swapped in)."""

    def __init__(self):
        self.start, self.steps, self.validated = None, [], []

    def _copy(self, pl_module):
        return [p.detach().clone() for p in pl_module.model.parameters()]

    def on_train_start(self, trainer, pl_module):
        self.start = self._copy(pl_module)

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        self.steps.append(self._copy(pl_module))

    def on_validation_start(self, trainer, pl_module):
        self.validated.append((trainer.global_step, self._copy(pl_module)))


def _config(tmp_path, data, name, **optim):
    return load_config(
        None,
        tiny_config(
            data,
            tmp_path / name,
            seed=0,
            data={"batch_size": 32},
            optim={"lr": 3e-2, "warmup_steps": 5, **optim},
            trainer={"max_steps": 12, "devices": 1, "val_check_interval": 5, "checkpoint_every_n_steps": 3},
        ),
    )


def _averages(start, steps, decay):
    """The module docstring's average after each step, computed here by hand."""
    avg, out = start, []
    for n, w in enumerate(steps, start=1):
        d = min(decay, (1 + n) / (10 + n))
        avg = [a + (1 - d) * (x - a) for a, x in zip(avg, w)]
        out.append(avg)
    return out


def _close(a, b):
    return all(torch.allclose(x, y, rtol=1e-5, atol=1e-6) for x, y in zip(a, b, strict=True))


def test_the_run_validates_and_writes_the_average_of_its_weights(tmp_path):
    data = _data(tmp_path)
    seen = _Weights()
    _, net = load_checkpoint(fit(_config(tmp_path, data, "avg", weight_average=DECAY), callbacks=[seen]))
    assert len(seen.steps) == 12
    want = _averages(seen.start, seen.steps, DECAY)
    assert _close(list(net.parameters()), want[-1])  # written: the average
    assert not _close(list(net.parameters()), seen.steps[-1])  # not the last step's weights
    assert [s for s, _ in seen.validated] == [5, 10]
    for step, weights in seen.validated:  # validated: the average at that step
        assert _close(weights, want[step - 1]) and not _close(weights, seen.steps[step - 1])
    plain = _Weights()
    _, last = load_checkpoint(fit(_config(tmp_path, data, "plain", weight_average=0.0), callbacks=[plain]))
    assert _close(last.parameters(), plain.steps[-1])  # off: the last weights
    assert [torch.equal(a, b) for a, b in zip(plain.steps[-1], seen.steps[-1])] == [True] * len(seen.steps[-1])  # training unchanged


def test_early_stopping_keeps_the_average_it_judged(tmp_path):
    data = _data(tmp_path)
    seen = _Weights()
    cfg = _config(tmp_path, data, "best", weight_average=DECAY)
    cfg["trainer"]["early_stopping_patience"] = 100
    meta, net = load_checkpoint(fit(cfg, callbacks=[seen]))
    kept = dict(seen.validated)[meta.run["best"]["step"]]
    assert [torch.equal(a, b) for a, b in zip(net.parameters(), kept)] == [True] * len(kept)


def test_a_killed_run_resumes_to_the_same_average(tmp_path):
    data = _data(tmp_path)
    _, whole = load_checkpoint(fit(_config(tmp_path, data, "whole", weight_average=DECAY)))
    cfg = _config(tmp_path, data, "killed", weight_average=DECAY)
    with pytest.raises(RuntimeError, match="killed"):
        fit(cfg, callbacks=[Kill(7)])  # the checkpoint of step 6 holds the weights and the average
    _, resumed = load_checkpoint(fit(cfg))
    assert _close(list(resumed.parameters()), list(whole.parameters()))


@pytest.mark.parametrize("bad", [1, 1.5, -0.1, "0.9"])
def test_a_decay_outside_0_1_is_refused_naming_the_key(tmp_path, bad):
    with pytest.raises(ConfigError, match="optim.weight_average"):
        load_config(None, tiny_config(tmp_path, tmp_path / "r", optim={"weight_average": bad}))
