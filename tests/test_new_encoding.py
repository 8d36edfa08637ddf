"""Adding a number encoding is one file and the registry: a toy encoding defined here (its own
features, its own head) trains with ``fit``, saves, loads with ``scinum.load`` and fills records,
with no change anywhere else in the project."""

import csv
import math
import random

import pytest
import torch
import torch.nn.functional as F

import scinum
from scinum import encodings
from scinum.train.config import load_config
from scinum.heads import MLPHead
from scinum.train.fit import fit

from conftest import tiny_config, write_dataset  # tests/conftest.py


class SignLogHead(MLPHead):
    """Predicts a sign (logit) and log10(1 + |x|) (squared error)."""

    def __init__(self, d_model: int):
        super().__init__(d_model, 2)

    def forward(self, h, token_logits=None):
        return self.features(h).float()

    def loss(self, out, target):
        t = target.float()
        return (
            F.binary_cross_entropy_with_logits(out[:, 0], (t < 0).float(), reduction="none") + (out[:, 1] - torch.log10(1 + t.abs())) ** 2
        )

    def predict(self, out):
        sign = torch.where(out[:, 0] > 0, -1.0, 1.0).double()
        return sign * (10 ** out[:, 1].double().clamp(min=0) - 1)


class SignLog(encodings.NumberEncoding):
    """Features (sign, log10(1 + |x|)), added to the [NUM] embedding."""

    name = "signlog_test"
    combine = "add"
    default_normalizer = "none"

    @property
    def dim(self):
        return 2

    def encode(self, values):
        v = torch.as_tensor(values, dtype=torch.float64)
        return torch.stack([torch.sign(v), torch.log10(1 + v.abs())], -1).float()

    def decode(self, features):
        f = features.double()
        return f[..., 0] * (10 ** f[..., 1] - 1)

    def representable(self, values):
        return torch.as_tensor(values, dtype=torch.float64).isfinite()

    def make_head(self, d_model, vocab=None):
        return SignLogHead(d_model)


@pytest.fixture
def signlog():
    encodings.register(SignLog)
    yield SignLog
    del encodings.REGISTRY._items[SignLog.name]


class Pairs:
    """``{"a": x, "b": 2x}`` with x in [1, 100]: filling b needs the value of a."""

    def __call__(self, i):
        x = round(random.Random(i).uniform(1, 100), 3)
        return {"a": x, "b": 2 * x}, None


def test_a_registered_toy_encoding_trains_saves_loads_and_fills(signlog, tmp_path, one_thread):
    data = tmp_path / "pairs"
    write_dataset(data, Pairs(), {"train": 64, "val": 8}, builder="pairs", shard_size=64, evaluation={"fields": ["b"]})
    path = fit(
        load_config(
            None,
            tiny_config(
                data,
                tmp_path / "run",
                data={"batch_size": 16, "mask_fields": ["b"], "mask_fields_prob": 1.0},
                encoding={"name": "signlog_test"},
                model={"d_model": 32},
                optim={"lr": 3e-3, "warmup_steps": 5},
                trainer={
                    "max_steps": 80,
                    "val_check_interval": 40,
                    "limit_val_batches": 1,
                    "checkpoint_every_n_steps": 100,
                    "log_every_n_steps": 5,
                },
            ),
        )
    )
    with open(tmp_path / "run" / "logs" / "metrics.csv") as f:
        number_loss = [float(r["train/number_loss"]) for r in csv.DictReader(f) if r["train/number_loss"]]
    assert number_loss[-1] < 0.5 * number_loss[0]  # it learns through its own head

    model = scinum.load(path)
    assert isinstance(model.encoding, SignLog) and isinstance(model.model.head, SignLogHead)
    filled = model.fill_many([{"a": 50.0, "b": None}, {"a": 10.0, "b": 0.0}], ["b"])
    values = [r["b"] for r in filled]
    assert all(isinstance(v, float) and math.isfinite(v) and v > 0 for v in values)
    assert values[0] > values[1]  # the prediction follows the visible number


def test_an_unregistered_encoding_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown number encoding 'signlog_test'"):
        encodings.get("signlog_test")
