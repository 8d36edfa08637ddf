"""Fault corpus, fourth round (issue 63): tables read as written, refused builds that leave
nothing, runs that are not retrained by accident, caches that follow their shards, results that
never overwrite a user's files, and one-line errors naming the key or file."""

import gzip
import json

import pytest

from scinum.cli.main import main as scinum
from scinum.datasets.directory import Dataset


def _one_line_error(capsys, *parts):
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for p in parts:
        assert str(p) in err, err
    return err


def _build(tmp_path, src, *flags, out="ds"):
    return scinum(["build", "jsonl", str(tmp_path / out), "--train", str(src), *flags])


# 4. tables keep their shape ------------------------------------------------------------------
def test_csv_column_mixing_numbers_and_a_word_is_refused_naming_the_cell(tmp_path, capsys):
    src = tmp_path / "t.csv"
    src.write_text("a,b\n1,x\n2,y\noops,z\n4,w\n")
    assert _build(tmp_path, src) != 0
    _one_line_error(capsys, "t.csv", "column 'a'", "line 4 (row 3)", "'oops'")
    assert not (tmp_path / "ds").exists()


def test_csv_text_and_boolean_columns_still_read(tmp_path):
    src = tmp_path / "t.csv"
    src.write_text("name,ok,v,n\nalpha,True,1.5,3\nbeta,False,,4\n,True,2e3,\n")
    assert _build(tmp_path, src) == 0
    assert list(Dataset(tmp_path / "ds").records("train")) == [
        {"name": "alpha", "ok": True, "v": 1.5, "n": 3},
        {"name": "beta", "ok": False, "n": 4},
        {"ok": True, "v": 2000.0},
    ]


def test_csv_without_a_header_is_refused_unless_no_header(tmp_path, capsys):
    src = tmp_path / "t.csv"
    src.write_text("0,0.0,0.0\n1,2.5,3.5\n")
    assert _build(tmp_path, src) != 0
    _one_line_error(capsys, "t.csv:1", "--no-header")
    assert not (tmp_path / "ds").exists()
    assert _build(tmp_path, src, "--no-header") == 0
    assert list(Dataset(tmp_path / "ds").records("train")) == [{"col1": 0, "col2": 0.0, "col3": 0.0}, {"col1": 1, "col2": 2.5, "col3": 3.5}]


@pytest.mark.parametrize("header", ["a,b,a", "a,,b"])
def test_csv_duplicate_or_empty_column_names_are_refused(tmp_path, capsys, header):
    src = tmp_path / "t.csv"
    src.write_text(f"{header}\n1,2,3\n")
    assert _build(tmp_path, src) != 0
    _one_line_error(capsys, "t.csv:1", "more than once" if header == "a,b,a" else "column 2 of the header has no name")
    assert not (tmp_path / "ds").exists()


def test_csv_with_another_delimiter_is_refused_suggesting_it(tmp_path, capsys):
    src = tmp_path / "t.csv"
    src.write_text("a;b\n1;2\n3;4\n")
    assert _build(tmp_path, src) != 0
    _one_line_error(capsys, "t.csv:1", "--delimiter ';'")
    assert not (tmp_path / "ds").exists()
    assert _build(tmp_path, src, "--delimiter", ";") == 0
    assert list(Dataset(tmp_path / "ds").records("train")) == [{"a": 1, "b": 2}, {"a": 3, "b": 4}]


def test_csv_row_with_a_missing_cell_is_refused_not_padded(tmp_path, capsys):
    src = tmp_path / "t.csv"
    src.write_text("a,b\n1,2\n3\n")
    assert _build(tmp_path, src) != 0
    _one_line_error(capsys, "t.csv:3, row 2", "1 cells where the table has 2 columns")


# 10. locations: 1-based data rows and the real file line ---------------------------------------
def test_csv_errors_name_the_one_based_row_and_the_file_line_after_a_multiline_cell(tmp_path, capsys):
    src = tmp_path / "t.csv"
    src.write_text('note,y\n"two\nlines",1\nok,2\nthird,inf\n')
    assert _build(tmp_path, src) != 0
    _one_line_error(capsys, "t.csv:5, row 3, column 'y'", "not finite")
    src.write_text('note,y\n"two\nlines",1\nok,2\nthird,9007199254740993\n')
    assert _build(tmp_path, src) != 0
    _one_line_error(capsys, "t.csv:5, record 3", "y")


# 6. a refused build leaves nothing: the fixed rerun works ------------------------------------
@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_a_value_out_of_range_leaves_nothing_and_the_fixed_rerun_builds(tmp_path, capsys, suffix):
    src = tmp_path / f"t{suffix}"
    rows = [{"x": 1.0, "y": 2}, {"x": 2.0, "y": 2**53 + 1}]

    def write(rows):
        if suffix == ".csv":
            src.write_text("x,y\n" + "".join(f"{r['x']},{r['y']}\n" for r in rows))
        else:
            src.write_text("".join(json.dumps(r) + "\n" for r in rows))

    write(rows)
    assert _build(tmp_path, src) != 0
    _one_line_error(capsys, "t.csv:3, record 2" if suffix == ".csv" else "t.jsonl:2", "2^53")
    assert not (tmp_path / "ds").exists()
    rows[1]["y"] = 3
    write(rows)
    assert _build(tmp_path, src) == 0
    assert [r["y"] for r in Dataset(tmp_path / "ds").records("train")] == [2, 3]


def test_a_refused_build_into_an_existing_empty_directory_keeps_the_directory_empty(tmp_path, capsys):
    (tmp_path / "ds").mkdir()
    src = tmp_path / "t.jsonl"
    src.write_text('{"y": 9007199254740993}\n')
    assert _build(tmp_path, src) != 0
    _one_line_error(capsys, "t.jsonl:1")
    assert (tmp_path / "ds").is_dir() and list((tmp_path / "ds").iterdir()) == []


# 7. table readers: one line naming the file, no output dir -----------------------------------
def test_truncated_csv_gz_is_one_line_naming_the_file(tmp_path, capsys):
    src = tmp_path / "t.csv.gz"
    data = gzip.compress(("a,b\n" + "".join(f"{i},{i / 7}\n" for i in range(3000))).encode())
    src.write_bytes(data[: len(data) // 2])
    assert _build(tmp_path, src) != 0
    _one_line_error(capsys, "t.csv.gz", "truncated")
    assert not (tmp_path / "ds").exists()


def test_csv_gz_that_is_not_gzip_is_one_line_naming_the_file(tmp_path, capsys):
    src = tmp_path / "t.csv.gz"
    src.write_text("a,b\n1,2\n")
    assert _build(tmp_path, src) != 0
    _one_line_error(capsys, "t.csv.gz", "gzip")
    assert not (tmp_path / "ds").exists()


@pytest.mark.parametrize("damage", ["not parquet", "truncated"])
def test_bad_parquet_is_one_line_naming_the_file(tmp_path, capsys, damage):
    pytest.importorskip("pyarrow")
    import pandas as pd

    src = tmp_path / "t.parquet"
    if damage == "not parquet":
        src.write_text("a,b\n1,2\n")
    else:
        pd.DataFrame({"a": [1.5] * 100}).to_parquet(src)
        src.write_bytes(src.read_bytes()[:-20])
    assert _build(tmp_path, src) != 0
    _one_line_error(capsys, "t.parquet")
    assert not (tmp_path / "ds").exists()


# leftovers of round 3: one-line config errors naming the key -----------------------------------
@pytest.mark.parametrize(
    "override, key",
    [
        ("trainer.accelerator=tpu", "trainer.accelerator"),
        ("model.max_positions=1000000000", "model.max_positions"),
        ("model.max_positions=1e9", "model.max_positions"),
        ("model.max_positions=20000", "model.max_positions"),  # past data.max_record_tokens (16384)
    ],
)
def test_unavailable_accelerator_and_huge_max_positions_are_config_errors(tmp_path, override, key):
    from scinum.errors import ConfigError
    from scinum.train.config import load_config

    with pytest.raises(ConfigError, match=key.replace(".", r"\.")) as e:
        load_config(None, [f"data.path={tmp_path}", override])
    assert "\n" not in str(e.value)


def test_fit_with_tpu_or_huge_max_positions_in_yaml_is_one_line(tmp_path, capsys):
    for key, value in [("accelerator", "tpu"), ("max_positions", "1e9")]:
        section = "trainer" if key == "accelerator" else "model"
        cfg = tmp_path / f"{key}.yaml"
        cfg.write_text(f"data: {{path: {tmp_path}}}\nout_dir: {tmp_path / 'run'}\n{section}: {{{key}: {value}}}\n")
        with pytest.raises(SystemExit) as e:
            scinum(["fit", "--config", str(cfg)])
        assert f"{section}.{key}" in str(e.value) and "\n" not in str(e.value)
        assert not (tmp_path / "run").exists()


# 9. early stopping that cannot work is said ---------------------------------------------------
def _tiny_data(tmp_path, split):
    import random

    from scinum.datasets.jsonl import build

    r = random.Random(0)
    recs = [{"x": [round(r.uniform(0, 1), 4), round(r.uniform(0, 1), 4)]} for _ in range(80)]
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(x) + "\n" for x in recs))
    build(tmp_path / "ds", train=[tmp_path / "a.jsonl"], split=split, progress=False)  # split None: no val
    return tmp_path / "ds"


@pytest.mark.parametrize("why", ["no val split", "limit_val_batches 0"])
def test_early_stopping_without_validation_says_so(tmp_path, capsys, one_thread, why):
    from conftest import tiny_config
    from scinum.train.config import load_config
    from scinum.train.fit import fit

    data = _tiny_data(tmp_path, None if why == "no val split" else [0.7, 0.3, 0.0])
    trainer = {"early_stopping_patience": 2, "val_check_interval": 2, "max_steps": 4}
    if why != "no val split":
        trainer["limit_val_batches"] = 0
    fit(load_config(None, tiny_config(data, tmp_path / "run", trainer=trainer)))
    err = capsys.readouterr().err
    assert "trainer.early_stopping_patience = 2 has no effect" in err, err
    assert ("no 'val' split" if why == "no val split" else "trainer.limit_val_batches is 0") in err


# 3. a finished run is not retrained by its own command ----------------------------------------
def _es_data(tmp_path):
    import random

    from scinum.datasets.jsonl import build

    r = random.Random(0)
    recs = [{"x": [round(r.uniform(0, 1), 4), round(r.uniform(0, 1), 4)]} for _ in range(300)]
    for x in recs:
        x["y"] = round(x["x"][0] + x["x"][1], 4)
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(x) + "\n" for x in recs))
    build(tmp_path / "ds", train=[tmp_path / "a.jsonl"], split=[0.8, 0.2, 0.0], progress=False)
    return tmp_path / "ds"


def _es_yaml(tmp_path, data, **trainer):
    import yaml

    from conftest import tiny_config

    # a high learning rate and patience 1: the validation loss stalls early (step 6 of 14)
    cfg = tiny_config(
        data,
        tmp_path / "run",
        seed=0,
        data={"batch_size": 32},
        model={"positions": "learned"},
        optim={"lr": 3e-1, "warmup_steps": 1},
        trainer={"max_steps": 14, "val_check_interval": 2, "early_stopping_patience": 1, **trainer},
    )
    f = tmp_path / "run.yaml"
    f.write_text(yaml.safe_dump(cfg))
    return ["fit", "--config", str(f)]


def _steps(tmp_path):
    return json.loads((tmp_path / "run" / "training.json").read_text())["steps"]


def test_rerunning_an_early_stopped_run_trains_nothing_and_keeps_its_model(tmp_path, capsys, one_thread):
    cmd = _es_yaml(tmp_path, _es_data(tmp_path))
    assert scinum(cmd) == 0
    steps, model = _steps(tmp_path), (tmp_path / "run" / "model.ckpt").read_bytes()
    assert steps < 14  # stopped early
    capsys.readouterr()
    assert scinum(cmd) == 0
    err = capsys.readouterr().err
    assert "stopped early" in err and "nothing to train" in err and "Restor" not in err, err
    assert _steps(tmp_path) == steps and (tmp_path / "run" / "model.ckpt").read_bytes() == model
    # fewer steps than the run reached: one line, exit 1
    with pytest.raises(SystemExit) as e:
        scinum(_es_yaml(tmp_path, tmp_path / "ds", max_steps=steps - 2))
    assert "trainer.max_steps" in str(e.value) and f"below step {steps}" in str(e.value) and "\n" not in str(e.value)
    assert (tmp_path / "run" / "model.ckpt").read_bytes() == model


def test_rerunning_a_finished_run_trains_nothing_and_more_steps_train_longer(tmp_path, capsys, one_thread):
    data = _es_data(tmp_path)
    cmd = _es_yaml(tmp_path, data, early_stopping_patience=None, max_steps=4)
    assert scinum(cmd) == 0 and _steps(tmp_path) == 4
    model = (tmp_path / "run" / "model.ckpt").read_bytes()
    capsys.readouterr()
    assert scinum(cmd) == 0
    assert "finished at step 4: it trained trainer.max_steps; nothing to train" in capsys.readouterr().err
    assert (tmp_path / "run" / "model.ckpt").read_bytes() == model
    assert scinum(_es_yaml(tmp_path, data, early_stopping_patience=None, max_steps=6)) == 0  # the resume convention: train longer
    assert _steps(tmp_path) == 6


def test_max_steps_below_a_killed_runs_checkpoint_is_refused(tmp_path, one_thread):
    from scinum.errors import ConfigError
    from scinum.train.config import load_config
    from scinum.train.fit import fit

    import yaml

    cmd = _es_yaml(tmp_path, _es_data(tmp_path), early_stopping_patience=None, max_steps=6)
    assert scinum(cmd) == 0
    (tmp_path / "run" / "training.json").unlink()  # as if killed after its last checkpoint
    cfg = yaml.safe_load((tmp_path / "run.yaml").read_text())
    cfg["trainer"]["max_steps"] = 3
    with pytest.raises(ConfigError, match=r"trainer\.max_steps = 3 is below step 6"):
        fit(load_config(None, cfg))


# 2. the token cache follows the shards' content ----------------------------------------------
def _edit_first_record(ds, key, value):
    shard = sorted((ds / "train").glob("part-*.jsonl"))[0]
    lines = shard.read_text().splitlines(keepends=True)
    rec = json.loads(lines[0])
    rec[key] = value
    lines[0] = json.dumps(rec) + "\n"
    shard.write_text("".join(lines))


def test_a_shard_edited_in_place_is_tokenized_again(tmp_path):
    from scinum.datasets.token_shards import tokenize_dataset

    ds = _es_data(tmp_path)
    _, shards = tokenize_dataset(ds, ["train"])
    first = shards["train"][0]
    _edit_first_record(ds, "y", 12345.5)
    _, again = tokenize_dataset(ds, ["train"])
    assert 12345.5 in again["train"][0].values.tolist()  # not the cached tokens of before
    assert 12345.5 not in first.values.tolist()
    # unchanged shards are not hashed again: their sha256 is kept with size and mtime
    assert list((ds / ".tokens").glob("shards-*.json"))


def test_resuming_after_a_shard_was_edited_is_refused(tmp_path, one_thread):
    from scinum.errors import ConfigError
    from scinum.train.config import load_config
    from scinum.train.fit import fit

    import yaml

    ds = _es_data(tmp_path)
    assert scinum(_es_yaml(tmp_path, ds, early_stopping_patience=None, max_steps=4)) == 0
    (tmp_path / "run" / "training.json").unlink()  # as if killed after its last checkpoint
    _edit_first_record(ds, "y", 12345.5)
    cfg = yaml.safe_load((tmp_path / "run.yaml").read_text())
    cfg["trainer"]["max_steps"] = 6
    with pytest.raises(ConfigError, match="a shard of .* was changed since this run trained on it"):
        fit(load_config(None, cfg))


# 1. publish never replaces a user's files -----------------------------------------------------
def _recipe_results(root):
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


@pytest.mark.parametrize("mine", ["table.md", "meta.json", "ood_x.png"])
def test_publish_refuses_to_replace_a_users_own_file(tmp_path, capsys, mine):
    from recipes.publish import main

    res, docs = tmp_path / "res", tmp_path / "docs"
    _recipe_results(res)
    docs.mkdir()
    (docs / mine).write_text("my own")
    assert main([str(res), str(docs)]) == 1
    _one_line_error(capsys, "recipes.publish: error", docs / mine, "not written by recipes.publish")
    assert [p.name for p in docs.iterdir()] == [mine] and (docs / mine).read_text() == "my own"


def test_publish_replaces_its_own_files_and_no_others(tmp_path, capsys):
    from recipes.publish import main

    res, docs = tmp_path / "res", tmp_path / "docs"
    _recipe_results(res)
    assert main([str(res), str(docs)]) == 0
    published = json.loads((docs / "meta.json").read_text())["published_files"]
    assert published == ["meta.json", "ood_x.png", "table.csv", "table.md"]
    (res / "table.csv").write_text("a\n3\n")
    assert main([str(res), str(docs)]) == 0  # publishing again replaces what publish wrote
    assert (docs / "table.csv").read_text() == "a\n3\n"
    (res / "plots" / "ood_y.png").write_bytes(b"y")
    (docs / "ood_y.png").write_text("my own plot")  # a plot of the user's, named like a new one
    assert main([str(res), str(docs)]) == 1
    _one_line_error(capsys, docs / "ood_y.png")
    assert (docs / "ood_y.png").read_text() == "my own plot"


def test_publish_into_a_directory_published_before_the_list_existed(tmp_path):
    from recipes.publish import main

    res, docs = tmp_path / "res", tmp_path / "docs"
    _recipe_results(res)
    docs.mkdir()
    (docs / "meta.json").write_text((res / "meta.json").read_text())  # a publish's meta, no list
    (docs / "table.md").write_text("old")
    assert main([str(res), str(docs)]) == 0
    assert (docs / "table.md").read_text().startswith("Results of")


# 1. results directories: a user's own files are never replaced -------------------------------
@pytest.mark.parametrize("mine", ["table.md", "meta.json", "plots/ood_x.png"])
def test_writing_results_refuses_a_directory_holding_a_users_files(tmp_path, mine):
    import pandas as pd

    from scinum.analysis.evaluate import write_results
    from scinum.errors import ResultsError

    out = tmp_path / "out"
    (out / mine).parent.mkdir(parents=True, exist_ok=True)
    (out / mine).write_text("my own")
    table = pd.DataFrame({"model": ["m"], "field": ["y"], "split": ["test"], "mse": [1.0]})
    preds = pd.DataFrame({"model": ["m"], "field": ["y"], "split": ["test"], "true": [1.0], "pred": [1.0]})
    with pytest.raises(ResultsError, match="not a results directory scinum wrote") as e:
        write_results(out, table, preds, {}, {"dataset": "d"})
    assert str(out / mine) in str(e.value) and "\n" not in str(e.value)
    assert (out / mine).read_text() == "my own" and not (out / "table.csv").exists()
    fresh = tmp_path / "fresh"
    write_results(fresh, table, preds, {}, {"dataset": "d"})
    write_results(fresh, table, preds, {}, {"dataset": "d"})  # its own results: written again


def test_a_recipe_refuses_a_users_directory_before_any_work(tmp_path):
    from recipes.runner import run_recipe
    from scinum.errors import ResultsError

    out = tmp_path / "mine"
    out.mkdir()
    (out / "table.md").write_text("my own")
    with pytest.raises(ResultsError, match="table.md"):
        run_recipe("planets", {"build": {"train": 4}, "models": {}}, work=tmp_path / "work", out=out, log=lambda s: None)
    assert not (tmp_path / "work").exists() and (out / "table.md").read_text() == "my own"
