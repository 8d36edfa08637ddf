"""Plug-ins (scinum.plugins): a package outside the tree supplies an encoding, a head and a
builder through its entry points, and ``scinum build``, ``scinum fit``, ``scinum.load(...).fill``
and ``scinum evaluate`` use them with no change to scinum; its checkpoint loaded where the
package is not installed names the missing plug-in in one line.

The package is a folder on ``PYTHONPATH`` holding ``mypkg/`` and ``mypkg-0.1.dist-info/`` (its
``METADATA`` and ``entry_points.txt``): what ``pip install`` leaves in site-packages."""

import csv
import json
import os
import subprocess
import sys
import textwrap

import pytest

import scinum
from scinum.datasets import builders
from scinum import encodings, heads
from scinum.errors import CheckpointError
from scinum.plugins import PluginNotFound, Registry

from conftest import tiny_config  # tests/conftest.py

PACKAGE = '''
"""A scinum plug-in package: the encoding 'halved', the head kind 'spread', the builder 'toy'."""
import torch

from scinum.encodings import NumberEncoding
from scinum.heads import HeadOutputs, ScalarHead


class Halved(NumberEncoding):
    """xVal with half the value as its feature."""
    name = "halved"
    combine = "multiply"
    default_normalizer = "minmax"

    @property
    def dim(self):
        return 1

    def encode(self, values):
        return (torch.as_tensor(values, dtype=torch.float64) * 0.5).float().unsqueeze(-1)

    def decode(self, features):
        return features[..., 0].double() * 2

    def representable(self, values):
        return torch.isfinite(torch.as_tensor(values, dtype=torch.float64))

    def make_head(self, d_model, vocab=None):
        return ScalarHead(d_model)


class Spread(ScalarHead):
    """A scalar head that also reports |prediction| as a 'spread' (an evaluation column)."""
    outputs = HeadOutputs(point="value", columns=("spread",), label="spread")

    def __init__(self, d_model, scale: float = 1.0):
        super().__init__(d_model)
        self.scale = scale

    def uncertainty(self, out, quantiles=()):
        return {"spread": out.detach().double().abs() * self.scale}

    @classmethod
    def evaluation_columns(cls, u):
        return {"spread": u["spread"]} if "spread" in u else {}
'''

BUILDER = '''
"""Toy records {"x": ..., "y": 2x + 1}: the builder 'toy'."""
import random

from scinum.datasets import DatasetWriter

DESCRIPTION = "toy linear records (a plug-in builder)"


class Toy:
    def __call__(self, i):
        x = round(random.Random(i).uniform(-1, 1), 3)
        return {"x": x, "y": round(2 * x + 1, 3)}, {}


def build(out, *, train: int = 32, val: int = 8, test: int = 8, seed: int = 0,
          compress: bool = False) -> dict:
    """Toy linear records."""
    w = DatasetWriter(out, builder="toy", version="1", parameters={}, seed=seed, shard_size=64,
                      compress=compress)
    for split, n in (("train", train), ("val", val), ("test", test)):
        w.write_split(split, n, Toy())
    return w.finish(evaluation={"fields": ["y"]})
'''

ENTRY_POINTS = """
[scinum.encodings]
halved = mypkg:Halved

[scinum.heads]
spread = mypkg:Spread

[scinum.builders]
toy = mypkg.builder
"""


@pytest.fixture(scope="module")
def plugin_dir(tmp_path_factory):
    """A folder that, on ``sys.path``, installs ``mypkg`` and its entry points."""
    root = tmp_path_factory.mktemp("site")
    (root / "mypkg").mkdir()
    (root / "mypkg" / "__init__.py").write_text(textwrap.dedent(PACKAGE))
    (root / "mypkg" / "builder.py").write_text(textwrap.dedent(BUILDER))
    info = root / "mypkg-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mypkg\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    return root


def _scinum(args, plugin_dir=None, cwd=None):
    """``scinum ARGS`` in a fresh process, with the plug-in package installed or not."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["OMP_NUM_THREADS"] = "1"
    if plugin_dir is not None:
        env["PYTHONPATH"] = str(plugin_dir)
    return subprocess.run(
        [sys.executable, "-m", "scinum.cli", *map(str, args)], env=env, cwd=cwd, capture_output=True, text=True, timeout=600, input=""
    )


@pytest.fixture(scope="module")
def trained(plugin_dir, tmp_path_factory):
    """``scinum build toy`` then ``scinum fit`` with the plug-in encoding and head."""
    work = tmp_path_factory.mktemp("work")
    r = _scinum(["build", "toy", work / "data", "--train", "48", "--val", "8", "--test", "8"], plugin_dir)
    assert r.returncode == 0, r.stderr
    cfg = tiny_config(
        work / "data",
        work / "run",
        encoding={"name": "halved"},
        head={"kind": "spread", "scale": 2.0},
        optim={"warmup_steps": 1},
        trainer={"max_steps": 3, "val_check_interval": 3, "limit_val_batches": 1, "checkpoint_every_n_steps": 3, "log_every_n_steps": 1},
    )
    (work / "c.yaml").write_text(json.dumps(cfg))  # JSON is YAML
    r = _scinum(["fit", "--config", work / "c.yaml"], plugin_dir)
    assert r.returncode == 0, r.stderr[-3000:]
    return work


@pytest.fixture
def installed(plugin_dir, monkeypatch):
    """The plug-in package on this process's ``sys.path``; forgotten afterwards."""
    monkeypatch.syspath_prepend(str(plugin_dir))
    regs = (encodings.REGISTRY, heads.REGISTRY, builders.REGISTRY)
    for reg in regs:
        reg.refresh()
    yield
    for reg, name in zip(regs, ("halved", "spread", "toy")):
        reg._items.pop(name, None)
        reg._origin.pop(name, None)
        reg.refresh()
    for mod in [m for m in sys.modules if m == "mypkg" or m.startswith("mypkg.")]:
        del sys.modules[mod]


def test_scinum_build_lists_and_runs_an_installed_builder(plugin_dir, trained):
    r = _scinum(["build"], plugin_dir)
    assert r.returncode == 0
    lines = {line.split()[0]: line for line in r.stdout.splitlines()[1:]}
    assert {"planets", "era5", "jsonl", "toy"} <= set(lines)
    assert "toy linear records" in lines["toy"] and "[mypkg]" in lines["toy"]
    manifest = json.loads((trained / "data" / "manifest.json").read_text())
    assert manifest["builder"] == "toy" and manifest["splits"]["train"]["count"] == 48
    r = _scinum(["build", "toy", "--help"], plugin_dir)  # the CLI derived from build's signature
    assert "--train" in r.stdout and "--no-compress" in r.stdout


def test_fit_load_fill_and_evaluate_use_the_plugins(plugin_dir, trained, installed, tmp_path):
    model = scinum.load(trained / "run" / "model.ckpt")
    assert type(model.model.head).__name__ == "Spread" and model.model.head.scale == 2.0
    assert model.meta.encoding == {"name": "halved"} and model.meta.head["kind"] == "spread"
    filled = model.fill({"x": 0.5, "y": None}, ["y"])
    assert isinstance(filled["y"], float)
    r = _scinum(["evaluate", "--ckpt", trained / "run" / "model.ckpt", "--data", trained / "data", "--out", tmp_path / "res"], plugin_dir)
    assert r.returncode == 0, r.stderr[-3000:]
    with open(tmp_path / "res" / "predictions.csv") as f:
        rows = [r for r in csv.DictReader(f) if r["kind"] == "model"]  # not the references'
    assert len(rows) == 8 and rows[0]["model"] == "halved+spread" and rows[0]["head"] == "spread"
    assert all(float(r["spread"]) >= 0 for r in rows)  # the column the head declares
    meta = json.loads((tmp_path / "res" / "meta.json").read_text())
    assert meta["heads"] == {"halved+spread": meta["heads"]["halved+spread"]}
    assert meta["heads"]["halved+spread"]["columns"] == ["spread"]


def test_a_checkpoint_whose_plugin_is_missing_names_it(trained):
    ckpt = trained / "run" / "model.ckpt"
    r = _scinum(["fill", "--ckpt", ckpt, "--mask", "y"])
    assert r.returncode == 1
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1, err
    assert "unknown number encoding 'halved' (not installed)" in err
    assert "install the package that provides the scinum.encodings entry point 'halved'" in err
    assert "weights do not match" not in err
    with pytest.raises(CheckpointError, match="entry point 'halved'"):
        scinum.load(ckpt)  # this process: the package is not on sys.path


def test_missing_plugins_are_one_line_errors(tmp_path):
    with pytest.raises(PluginNotFound, match="scinum.encodings entry point 'nope'") as e:
        encodings.get("nope")
    assert isinstance(e.value, ValueError) and "\n" not in str(e.value)
    with pytest.raises(ValueError, match="scinum.heads entry point 'nope'"):
        heads.make_head(encodings.get("xval"), 8, {"kind": "nope"})
    r = _scinum(["build", "nope", tmp_path])
    assert r.returncode != 0 and "scinum.builders entry point 'nope'" in r.stderr


def test_lookups_by_name_or_by_class():
    from scinum.encodings import XVal

    assert encodings.lookup("xval") is XVal and encodings.lookup(XVal) is XVal
    assert isinstance(encodings.get(XVal), XVal)
    assert encodings.REGISTRY.name_of(XVal) == "xval" and encodings.REGISTRY.name_of(XVal()) == "xval"
    assert heads.lookup("mixture") is heads.MixtureHead and heads.lookup(heads.MixtureHead) is heads.MixtureHead
    head = heads.make_head(encodings.get("xval"), 8, {"kind": heads.MixtureHead, "n_components": 2})
    assert isinstance(head, heads.MixtureHead) and head.k == 2
    assert {"xval", "fone", "bittokens", "p1000"} <= set(encodings.names())
    assert {"native", "mixture"} <= set(heads.REGISTRY.names())
    assert {"planets", "era5", "jsonl"} <= set(builders.names())


def test_heads_declare_their_outputs():
    assert heads.MixtureHead.outputs.uncertainty == "quantiles"
    assert "mixture" in heads.MixtureHead.outputs.columns and heads.MixtureHead.outputs.label == "gmm"
    assert heads.ScalarHead.outputs.uncertainty is None and heads.ScalarHead.outputs.columns == ()
    assert heads.model_label("fone", {"kind": "mixture"}) == "fone+gmm"
    assert heads.model_label("xval", {"kind": "native"}) == "xval"
    assert heads.model_label("xval", {"kind": "absent"}) == "xval+absent"


def test_builders_refuse_kwargs_and_name_unknown_parameters(tmp_path):
    class Bad:
        @staticmethod
        def build(out, **params):
            return {}

    reg = Registry("scinum.test", "thing", builders._check)
    with pytest.raises(TypeError, match="explicit keyword"):
        reg.register("bad", Bad)
    with pytest.raises(Exception, match=r"unknown parameter\(s\) \['stepz'\]"):
        builders.build("planets", tmp_path / "x", train=4, stepz=3)


def test_builtins_do_not_need_package_metadata(monkeypatch):
    """An editable install whose metadata predates the entry points still finds scinum's own."""
    import scinum.plugins as plugins

    monkeypatch.setattr(plugins, "entry_points", lambda group: [])
    reg = Registry("scinum.encodings", "number encoding")
    reg.register("xval", encodings.XVal)
    assert reg.get("xval") is encodings.XVal
    for r in (encodings.REGISTRY, heads.REGISTRY, builders.REGISTRY):
        monkeypatch.setattr(r, "_entry_points", None)
    assert encodings.get("fone").name == "fone" and heads.lookup("native") is heads.NativeHead
    assert builders.get("jsonl").__name__ == "scinum.datasets.jsonl"


def test_unusable_plugins_are_one_line_errors(tmp_path, monkeypatch):
    """Issue 37 case 9: a builder entry point that is a function or takes ``**params``, a head
    that is no NumberHead: tracebacks; a plug-in calling ``sys.exit(3)`` at import ended scinum
    with rc 3 and no message."""
    from importlib.metadata import EntryPoint

    from scinum import plugins

    (tmp_path / "exits_at_import.py").write_text("import sys\nsys.exit(3)\n")
    (tmp_path / "odd_plugins.py").write_text(
        "def fn_builder(out):\n    pass\n\n\nclass Loose:\n    @staticmethod\n"
        "    def build(out, **params):\n        pass\n\n\nclass NotAHead:\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    eps = {
        "scinum.builders": [
            EntryPoint("exits", "exits_at_import:x", "scinum.builders"),
            EntryPoint("fn", "odd_plugins:fn_builder", "scinum.builders"),
            EntryPoint("loose", "odd_plugins:Loose", "scinum.builders"),
        ],
        "scinum.heads": [EntryPoint("nohead", "odd_plugins:NotAHead", "scinum.heads")],
    }
    monkeypatch.setattr(plugins, "entry_points", lambda group: eps.get(group, []))
    for registry, name, says in (
        (builders.REGISTRY, "exits", "SystemExit: 3"),
        (builders.REGISTRY, "fn", "has no build"),
        (builders.REGISTRY, "loose", "takes \\*args/\\*\\*kwargs"),
        (heads.REGISTRY, "nohead", "not a NumberHead subclass"),
    ):
        monkeypatch.setattr(registry, "_entry_points", None)
        with pytest.raises(PluginNotFound, match=f"{name!r}.*{says}") as e:
            registry.get(name)
        assert "\n" not in str(e.value)
