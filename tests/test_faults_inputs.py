"""Fault corpus, second round (issue 30): every input kept or refused, nothing written outside
OUT, nothing half-written, one-line errors for bad flags, configs and results."""

import gzip
import json
import os

import pytest
import yaml

from scinum.cli.main import main as scinum
from scinum.train.config import load_config
from scinum.datasets.directory import Dataset, DatasetWriter
from scinum.errors import ConfigError, DatasetError, MalformedJSON
from scinum.datasets.jsonl import build


def _write(path, n, start=0):
    path.write_text("".join(json.dumps({"x": [0.5 + i / 1000, 1.0], "y": 0.25 + i / 1000}) + "\n" for i in range(start, start + n)))
    return path


@pytest.fixture
def files(tmp_path):
    return [_write(tmp_path / f"{name}.jsonl", 12 + k, start=100 * k) for k, name in enumerate("abcd")]


def _one_line_error(capsys, *parts):
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for p in parts:
        assert str(p) in err, err
    return err


# repeated flags accumulate ------------------------------------------------------------------
def test_repeated_train_and_ood_flags_keep_every_file(tmp_path, files, capsys):
    a, b, c, d = files
    out = tmp_path / "ds"
    assert (
        scinum(
            ["build", "jsonl", str(out), "--train", str(a), "--train", str(b), "--ood", f"late={c}", "--ood", f"late2={d}", "--fields", "y"]
        )
        == 0
    )
    m = Dataset(out).manifest
    assert m["splits"]["train"]["count"] == 12 + 13
    assert m["splits"]["ood_late"]["count"] == 14 and m["splits"]["ood_late2"]["count"] == 15
    assert [i["file"] for i in m["parameters"]["inputs"]["train"]] == [str(a), str(b)]


# colliding, empty and path-like split names -------------------------------------------------
@pytest.mark.parametrize("names", [("x", "ood_x"), ("ood_x", "x")])
def test_two_ood_names_for_one_split_are_refused(tmp_path, files, capsys, names):
    a, b, c, _ = files
    out = tmp_path / "ds"
    assert scinum(["build", "jsonl", str(out), "--train", str(a), "--ood", f"{names[0]}={b}", f"{names[1]}={c}"]) == 1
    _one_line_error(capsys, "'x'", "'ood_x'")
    assert not out.exists()


@pytest.mark.parametrize("name", ["../../escaped", "..", "a/b", "ood_../x", "", ".hidden", "ood_"])
def test_split_names_are_names_not_paths(tmp_path, files, capsys, name):
    a, b, _, _ = files
    out = tmp_path / "deep" / "ds"
    code = scinum(["build", "jsonl", str(out), "--train", str(a), "--ood", f"{name}={b}"])
    assert code == 1
    capsys.readouterr()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "b.jsonl", "c.jsonl", "d.jsonl"]
    with pytest.raises(DatasetError, match="split name"):  # the writer refuses paths too
        DatasetWriter(tmp_path / "w", builder="t", version="1", parameters={}, seed=0).open_split("ood_../../x")


def test_empty_split_fractions_are_an_error(tmp_path, files, capsys):
    out = tmp_path / "ds"
    assert scinum(["build", "jsonl", str(out), "--train", str(files[0]), "--split", ""]) == 1
    _one_line_error(capsys, "--split")
    assert not out.exists()


# the same file twice ---------------------------------------------------------------------
@pytest.mark.parametrize("how", ["train twice", "train and test", "symlink", "hard link"])
def test_one_file_given_twice_is_refused_naming_both(tmp_path, files, capsys, how):
    a = files[0]
    other = a
    if how == "symlink":
        other = tmp_path / "link.jsonl"
        other.symlink_to(a)
    elif how == "hard link":
        other = tmp_path / "hard.jsonl"
        os.link(a, other)
    flags = ["--train", str(a), str(other)] if how == "train twice" else ["--train", str(a), "--test", str(other)]
    out = tmp_path / "ds"
    assert scinum(["build", "jsonl", str(out), *flags]) == 1
    _one_line_error(capsys, str(a), str(other), "same file")
    assert not out.exists()


# damaged inputs ---------------------------------------------------------------------------
def _corrupt_gz(path, n=400):
    data = gzip.compress("".join(json.dumps({"x": [i / 7, 1.0], "y": i / 3}) + "\n" for i in range(n)).encode())
    mid = len(data) // 2
    path.write_bytes(data[:mid] + bytes([data[mid] ^ 0xFF]) + bytes(b ^ 0x5A for b in data[mid + 1 : mid + 40]) + data[mid + 40 :])
    return path


def test_corrupt_gzip_input_is_one_line_and_leaves_nothing(tmp_path, capsys):
    src = _corrupt_gz(tmp_path / "a.jsonl.gz")
    out = tmp_path / "ds"
    assert scinum(["build", "jsonl", str(out), "--train", str(src), "--shard-size", "8"]) == 1
    _one_line_error(capsys, str(src))
    assert not out.exists()


def test_corrupt_gzip_shard_is_a_located_error_when_read(tmp_path):
    out = tmp_path / "ds"
    good = tmp_path / "a.jsonl"
    good.write_text("".join(json.dumps({"x": [i / 7, 1.0], "y": i / 3}) + "\n" for i in range(400)))
    build(out, train=[good], shard_size=1000, compress=True, progress=False)
    shard = out / "train" / "part-00000.jsonl.gz"
    _corrupt_gz(shard)
    with pytest.raises(MalformedJSON, match="part-00000.jsonl.gz"):
        list(Dataset(out).records("train"))


def test_finish_of_a_missing_build_creates_nothing(tmp_path, capsys):
    out = tmp_path / "nothing"
    assert scinum(["build", "planets", str(out), "--train", "8", "--val", "0", "--test", "0", "--ood", "0", "--part", "finish"]) == 1
    _one_line_error(capsys, str(out), "finish")
    assert not out.exists()


# configs: one line naming key, value and what it must be ----------------------------------
@pytest.mark.parametrize(
    "override,parts",
    [
        ({"data": {"batch_size": "16"}}, ["data.batch_size", "'16'", "int"]),
        ({"optim": {"lr": "fast"}}, ["optim.lr", "'fast'", "float"]),
        ({"model": {"d_model": 32.5}}, ["model.d_model", "32.5", "int"]),
        ({"trainer": {"devices": 0}}, ["trainer.devices", "0", "> 0"]),
        ({"trainer": {"max_steps": True}}, ["trainer.max_steps", "True"]),
        ({"data": {"mask_prob": 1.5}}, ["data.mask_prob", "[0, 1]"]),
        ({"encoding": {"name": "xval", "foo": 1}}, ["encoding", "foo"]),
        ({"model": {"n_layers": "x" * 10_000}}, ["model.n_layers", "(10002 chars)"]),
    ],
)
def test_config_values_of_the_wrong_kind_are_one_line_errors(tmp_path, override, parts):
    overrides = {"data": {"path": "d"}}
    for section, values in override.items():
        overrides.setdefault(section, {}).update(values)
    with pytest.raises(ConfigError) as e:
        load_config(None, overrides)
    msg = str(e.value)
    assert "\n" not in msg and len(msg) < 400
    for p in parts:
        assert p in msg, msg


def test_fit_reports_bad_yaml_and_a_missing_gpu_in_one_line(tmp_path, capsys, monkeypatch):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("data: {path: d\nmodel: [1,\n")
    with pytest.raises(SystemExit) as e:
        scinum(["fit", "--config", str(cfg)])
    assert str(cfg) in str(e.value) and "YAML" in str(e.value) and "\n" not in str(e.value)
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    cfg.write_text(yaml.safe_dump({"data": {"path": "d"}, "trainer": {"accelerator": "gpu"}}))
    with pytest.raises(SystemExit) as e:
        scinum(["fit", "--config", str(cfg)])
    assert "trainer.accelerator" in str(e.value) and "'gpu'" in str(e.value)


def test_the_presets_and_defaults_still_validate(monkeypatch):
    from pathlib import Path
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # the paper presets ask for a GPU
    for name in ("planets", "era5", "co2"):
        text = (Path(__file__).parents[1] / "recipes" / f"{name}.yaml").read_text()
        for preset in yaml.safe_load(text).values():
            if isinstance(preset, dict) and isinstance(preset.get("train"), dict):
                load_config(None, {**preset["train"], "data": {**preset["train"].get("data", {}), "path": "d"}})


# publish: all or nothing ---------------------------------------------------------------------
def _results(root):
    (root / "plots").mkdir(parents=True)
    (root / "table.md").write_text("| a |\n|---|\n| 2 |\n")
    (root / "table.csv").write_text("a\n2\n")
    (root / "plots" / "ood_x.png").write_bytes(b"new")
    meta = {
        "recipe": "planets",
        "commit": "0123456789abcdef",
        "dirty": False,
        "machine": "m",
        "elapsed_s": 60.0,
        "preset_name": "quick",
        "finished": "2026-11-22T12:00:00+00:00",
    }
    (root / "meta.json").write_text(json.dumps(meta))
    return meta


@pytest.mark.parametrize("damage", ["no table.csv", "no meta.json", "no elapsed_s", "bad --plots", "plot path"])
def test_publish_is_all_or_nothing_with_a_one_line_error(tmp_path, capsys, damage):
    from recipes.publish import main

    res, docs = tmp_path / "res", tmp_path / "docs"
    _results(tmp_path / "res0")  # docs holds an earlier publish (publish replaces only its own files)
    for name in ("table.md", "table.csv", "plots/ood_x.png"):
        (tmp_path / "res0" / name).write_text("old")
    assert main([str(tmp_path / "res0"), str(docs)]) == 0
    capsys.readouterr()
    old = {p.name: p.read_text() for p in docs.iterdir()}
    meta = _results(res)
    plots = []
    if damage == "no table.csv":
        (res / "table.csv").unlink()
    elif damage == "no meta.json":
        (res / "meta.json").unlink()
    elif damage == "no elapsed_s":
        del meta["elapsed_s"]
        (res / "meta.json").write_text(json.dumps(meta))
    elif damage == "bad --plots":
        plots = ["--plots", "ood_x.png", "missing.png"]
    else:
        plots = ["--plots", "../table.csv"]
    assert main([str(res), str(docs), *plots]) == 1
    _one_line_error(capsys, "recipes.publish: error")
    assert {p.name: p.read_text() for p in docs.iterdir()} == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "res", "res0"]  # no temporary left
    _results(tmp_path / "res2")
    assert main([str(tmp_path / "res2"), str(docs)]) == 0
    assert (docs / "table.csv").read_text() == "a\n2\n" and (docs / "ood_x.png").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "res", "res0", "res2"]


def test_publish_writes_only_its_own_files(tmp_path, capsys):
    """Issue 37 case 1: publish replaced DOCS whole (other pages, results/ lost), and a DOCS
    that is the results directory lost its models; an existing file became a directory."""
    from recipes.publish import main

    res, docs = tmp_path / "res", tmp_path / "docs"
    _results(res)
    docs.mkdir()
    (docs / "notes.md").write_text("keep")
    (docs / "results").mkdir()
    (docs / "results" / "page.md").write_text("keep too")
    assert main([str(res), str(docs)]) == 0
    assert (docs / "notes.md").read_text() == "keep" and (docs / "results" / "page.md").read_text() == "keep too"
    assert (docs / "table.csv").read_text() == "a\n2\n"
    assert not [p for p in docs.iterdir() if p.name.startswith(".")]  # no staging left
    (res / "models").mkdir()
    (res / "models" / "m.ckpt").write_text("model")
    assert main([str(res), str(res)]) == 1
    _one_line_error(capsys, "recipes.publish: error", "is the results directory")
    assert (res / "models" / "m.ckpt").read_text() == "model" and (res / "table.md").read_text().startswith("| a")
    (tmp_path / "afile").write_text("mine")
    assert main([str(res), str(tmp_path / "afile")]) == 1
    _one_line_error(capsys, "recipes.publish: error")
    assert (tmp_path / "afile").read_text() == "mine"


def test_publish_refuses_a_nan_run_time(tmp_path, capsys):
    """Issue 37 case 10: ``elapsed_s: NaN`` was a ValueError traceback."""
    from recipes.publish import main

    meta = _results(tmp_path / "res")
    (tmp_path / "res" / "meta.json").write_text(json.dumps({**meta, "elapsed_s": float("nan")}))
    assert main([str(tmp_path / "res"), str(tmp_path / "docs")]) == 1
    assert "elapsed_s" in _one_line_error(capsys, "recipes.publish: error")
    assert not (tmp_path / "docs").exists()


def test_bad_seeds_and_overrides_are_one_line(tmp_path, capsys):
    """Issue 37 cases 8, 10: ``build jsonl --seed -1`` left OUT/.build/; ``recipes/planets.py
    --set nonsense`` and an override with a ``!!python/...`` tag were tracebacks."""
    from recipes.runner import main as recipe
    from scinum.cli.main import main

    src = tmp_path / "in.jsonl"
    src.write_text('{"x": 1.5}\n')
    assert main(["build", "jsonl", str(tmp_path / "ds"), "--train", str(src), "--seed", "-1"]) == 1
    _one_line_error(capsys, "seed must be an integer")
    assert not (tmp_path / "ds").exists()
    for bad, says in (
        (["nonsense"], "override 'nonsense'"),
        (["encoding.name=!!python/object/apply:os.system [echo hi]"], "not a plain YAML value"),
    ):
        assert recipe("planets", ["--preset", "tiny", "--work", str(tmp_path / "w"), "--out", str(tmp_path / "r"), "--set", *bad]) == 1
        _one_line_error(capsys, says)
    assert not (tmp_path / "w").exists()
