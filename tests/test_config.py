"""The run config: one typed schema holds every default, ``scinum fit --print-config`` prints what
a fit records, and a bad config is one line naming the key, the value and the choices."""

import inspect
import json
import subprocess
import sys
from dataclasses import MISSING, fields
from pathlib import Path

import pytest
import yaml

from scinum import encodings
from scinum.cli.main import main as cli_main
from scinum.errors import ConfigError
from scinum.train.config import DataConfig, OptimConfig, RunConfig, TrainerConfig, load_config
from scinum.train.data import MLMDataModule
from scinum.model.config import ModelConfig
from scinum.util.schema import section_defaults

from conftest import tiny_config  # tests/conftest.py

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def _default(f):
    return f.default_factory() if f.default_factory is not MISSING else f.default


def test_each_default_is_defined_once_in_the_section_dataclasses():
    DEFAULTS = section_defaults(RunConfig)
    for section, cls in [("data", DataConfig), ("optim", OptimConfig), ("trainer", TrainerConfig)]:
        assert DEFAULTS[section] == {f.name: _default(f) for f in fields(cls)}
    assert DEFAULTS["model"] == {f.name: _default(f) for f in fields(ModelConfig) if f.name not in ModelConfig.DERIVED}
    assert DEFAULTS["model"]["max_positions"] is None  # the longest training record
    # the data module takes the data section as it is, with the same defaults
    params = dict(inspect.signature(MLMDataModule).parameters)
    for name in ("encoding", "normalizer", "seed", "structure", "structure_tokens", "line"):  # not the data section's (the run's, model's)
        params.pop(name)
    assert set(params) == {f.name for f in fields(DataConfig)}
    for name, p in params.items():
        if name != "path":
            got = list(p.default) if isinstance(p.default, tuple) else p.default
            assert got == DEFAULTS["data"][name], name
    assert params and inspect.signature(MLMDataModule).parameters["seed"].default == DEFAULTS["seed"]


def test_the_module_docstrings_sketch_of_a_config_states_the_defaults():
    """Every ``key: value`` the module docstring's sketch gives for a section (``data:``,
    ``model:``, ``optim:``, ``trainer:``, and the top-level keys) is that key's default; it
    said d_model 256 and lr 3e-4 long after the defaults moved."""
    import scinum.train.config as module

    defaults = section_defaults(RunConfig)
    checked = 0
    for line in module.__doc__.splitlines():
        name, _, rest = line.strip().partition(":")
        if name in ("data", "model", "optim", "trainer") and rest.strip().startswith("{"):
            for item in rest.strip().strip("{}").split(","):
                key, _, value = item.partition(":")
                if key.strip() in ("path", "...") or not value:
                    continue
                assert yaml.safe_load(value) == defaults[name][key.strip()], f"{name}.{key.strip()}"
                checked += 1
        elif name in ("seed", "budget", "normalizer", "calibrate"):
            assert yaml.safe_load(rest.split("#")[0]) == defaults[name], name
            checked += 1
    assert checked >= 20  # the sketch was read, not skipped


@pytest.fixture(scope="module")
def dataset(tmp_path_factory, toy_dataset):
    return toy_dataset(tmp_path_factory.mktemp("toy") / "ds", 16, 4)


def _yaml(tmp_path, config: dict):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(config))
    return str(path)


def test_print_config_is_the_full_config_a_fit_records(dataset, tmp_path, capsys):
    out = tmp_path / "run"
    cfg = _yaml(tmp_path, tiny_config(dataset, out, data={"batch_size": 4}, trainer={"limit_val_batches": 1}))
    args = ["fit", "--config", cfg, "--trainer.max_steps", "2", "optim.lr=1e-3", "encoding.name=fone"]
    assert cli_main(args + ["--print-config"]) == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    assert not out.exists()  # printed, not trained
    defaults = section_defaults(RunConfig)
    assert set(printed) == set(defaults) and all(
        set(printed[k]) == set(v) for k, v in defaults.items() if isinstance(v, dict) and k not in ("encoding", "head")
    )
    assert printed["trainer"]["max_steps"] == 2 and printed["optim"]["lr"] == 1e-3
    assert cli_main(args) == 0
    assert printed == json.loads((out / "config.json").read_text())


def test_scinum_fit_validates_its_config_once_and_builds_one_encoding(dataset, tmp_path, monkeypatch):
    """Issue 39: a ``scinum fit`` validated its config twice (load_config, then fit) and built
    its number encoding four times before the model was saved (twice in validation, once for
    the data, once for the model). Reading the written checkpoint back builds its own."""
    import scinum.train.fit as train_fit
    from scinum.encodings import XVal
    from scinum.train import config as train_config

    counts = {"validations": 0, "encodings": 0}
    validate, init, save = train_config.validate_config, XVal.__init__, train_fit.save_checkpoint

    def counting_validate(config):
        counts["validations"] += 1
        return validate(config)

    def counting_init(self, *args, **kwargs):
        counts["encodings"] += 1
        init(self, *args, **kwargs)

    def save_and_count(path, model, meta):
        counts["encodings at save"] = counts["encodings"]
        save(path, model, meta)

    monkeypatch.setattr(train_config, "validate_config", counting_validate)
    monkeypatch.setattr(train_fit, "validate_config", counting_validate)
    monkeypatch.setattr(XVal, "__init__", counting_init)
    monkeypatch.setattr(train_fit, "save_checkpoint", save_and_count)
    cfg = _yaml(tmp_path, tiny_config(dataset, tmp_path / "run", trainer={"max_steps": 2, "limit_val_batches": 1}))
    assert cli_main(["fit", "--config", cfg]) == 0
    assert counts["validations"] == 1 and counts["encodings at save"] == 1, counts


@pytest.mark.parametrize(
    "bad,parts",
    [
        ({"encoding": {"name": "xvall"}}, ["encoding.name", "'xvall'", "not a number encoding", "choices:", "xval", "fone", "plugged"]),
        ({"head": {"kind": "mixtur"}}, ["head.kind", "'mixtur'", "choices: mixture, native"]),
        ({"head": {"kind": "native", "point": "mean"}}, ["head", "native head of xval takes no option", "point"]),
        ({"head": {"kind": "mixture", "n_comp": 3}}, ["head", "mixture head takes no option", "n_comp"]),
        ({"encoding": {"name": "p10"}, "head": {"kind": "mixture"}}, ["head", "p10 writes a number as"]),
        ({"model": {"d_model": "big"}}, ["model.d_model", "'big'", "int"]),
        ({"model": {"positions": "sinusoid"}}, ["model.positions", "'sinusoid'", "choices: learned, rope, both"]),
        ({"data": {"mask_prob": 1.5}}, ["data.mask_prob", "1.5", "[0, 1]"]),
        ({"trainer": {"max_stepz": 3}}, ["trainer.max_stepz", "unknown key", "choices:", "max_steps"]),
        ({"optimizer": {"lr": 1}}, ["optimizer", "unknown key", "choices:", "optim"]),
        ({"normalizer": "minmx"}, ["normalizer", "'minmx'", "choices:", "minmax", "standard"]),
        ({"model": {"d_model": 30}}, ["model", "d_model 30", "4 heads"]),
        ({"budget": {"samples": -3}}, ["budget.samples", "-3"]),
        ({"optim": {"curvature_weight": -1}}, ["optim.curvature_weight", "-1", ">= 0"]),
        ({"optim": {"curvature_share": 0}}, ["optim.curvature_share", "(0, 1]"]),
        ({"optim": {"curvature_reach": -2}}, ["optim.curvature_reach", "-2", ">= 0"]),
        ({"optim": {"curvature_share": 2}}, ["optim.curvature_share", "(0, 1]"]),
        ({"optim": {"curvature_weight": 1}, "encoding": {"name": "p10"}}, ["optim.curvature_weight", "p10 spells them in tokens"]),
        ({"optim": {"curvature_weight": 1}, "encoding": {"name": "fone"}}, ["optim.curvature_weight", "DigitHead has none"]),
    ],
)
def test_a_bad_config_is_one_line_naming_the_key_value_and_choices(tmp_path, monkeypatch, bad, parts):
    # choices come from the registries, plug-ins included
    monkeypatch.setitem(encodings.REGISTRY._lazy, "plugged", "scinum.encodings.xval:XVal")
    cfg = _yaml(tmp_path, {**bad, "data": {"path": str(tmp_path), **bad.get("data", {})}})
    with pytest.raises(SystemExit) as e:
        cli_main(["fit", "--config", cfg])
    msg = str(e.value.code)
    assert msg.startswith("scinum fit: bad config: ") and "\n" not in msg and len(msg) < 600, msg
    for p in parts:
        assert p in msg, msg


def test_a_bad_config_ends_scinum_fit_with_one_line_on_stderr_and_no_traceback(tmp_path):
    cfg = _yaml(tmp_path, {"data": {"path": str(tmp_path)}, "encoding": {"name": "xvall"}})
    run = subprocess.run([sys.executable, "-m", "scinum.cli", "fit", "--config", cfg], capture_output=True, text=True, timeout=300)
    assert run.returncode != 0 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.startswith("scinum fit: bad config: encoding.name = 'xvall': not a number encoding; choices: ")


def test_a_yaml_alias_bomb_is_refused_in_one_short_line(tmp_path):
    """Issue 37 case 5: an alias bomb under ``encoding:`` (nine levels of nine: 387 million
    leaves, a few hundred bytes of YAML) was expanded while the error message was formatted
    (MemoryError)."""
    import time

    lines = ["data: {path: d}", "encoding:", "  name: xval", "  a: &a [x, x, x, x, x, x, x, x, x]"]
    for prev, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"  {name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    (tmp_path / "c.yaml").write_text("\n".join(lines) + "\n")
    started = time.perf_counter()
    with pytest.raises(ConfigError, match="encoding = .*unexpected keyword argument") as e:
        load_config(tmp_path / "c.yaml")
    assert time.perf_counter() - started < 10
    assert "\n" not in str(e.value) and len(str(e.value)) < 400


@pytest.mark.parametrize(
    "override, says",
    [
        ("trainer.precision=bf17", "trainer.precision = 'bf17': expected one of auto"),
        ("trainer.strategy=ddpp", "trainer.strategy = 'ddpp': expected auto or a Lightning strategy"),
        ("trainer.accelerator=qpu", "trainer.accelerator = 'qpu': expected auto or a Lightning accelerator"),
        ("trainer.val_check_interval=0.5", "trainer.val_check_interval = 0.5: expected a value of type int"),
        ("trainer.limit_val_batches=1.5", "trainer.limit_val_batches = 1.5: expected a count of batches"),
        ("budget={samples: .inf}", "budget.samples: must be a positive finite number"),
        ("seed=1180591620717411303424", "seed = 1180591620717411303424: expected an integer in [0, 2^32)"),
        ("seed=-1", "seed = -1: expected an integer in [0, 2^32)"),
        ("optim.lr=1e300", "optim.lr = 1e+300: expected a number in (0, 10]"),
        ("data=5", "data = 5: expected a mapping"),
        ("model.d_model=1000000000", "weights, over the 1e+11 this scinum builds"),
    ],
)
def test_settings_lightning_torch_or_numpy_would_refuse_are_one_line(override, says, capsys):
    """Issue 37 case 8: settings only Lightning, torch or numpy checked were tracebacks (or,
    for a seed beyond 2^32, a random seed with a warning)."""
    tiny = Path(__file__).resolve().parent.parent / "configs" / "planets-tiny.yaml"
    with pytest.raises(ConfigError) as e:
        load_config(tiny, [override])
    assert says in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_a_field_trained_for_is_asked_with_everything_else_visible_by_default_and_measured_presets_keep_their_form():
    """``data.mask_fields_alone`` is on by default (as ``scinum fill`` asks; experiments/era5-target-alone);
    the presets whose published runs trained without it say so."""
    from scinum.train.config import DataConfig

    assert DataConfig().mask_fields_alone is True
    root = Path(__file__).resolve().parents[1]
    planets = yaml.safe_load((root / "recipes" / "planets.yaml").read_text())["best"]["train"]["data"]
    co2 = yaml.safe_load((root / "recipes" / "co2.yaml").read_text())["data"]
    era5 = yaml.safe_load((root / "recipes" / "era5.yaml").read_text())["best"]["train"]["data"]
    assert planets["mask_fields_alone"] is False and co2["mask_fields_alone"] is False and era5["mask_fields_alone"] is True
