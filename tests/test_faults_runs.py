"""Fault corpus, second round (issue 30): checkpoints that detect damage, one writer per run,
logs that survive a resume, NaN predictions that count, one-line fill errors."""

import csv
import json
import math
import os
import re
import subprocess
import sys
import time
from collections import OrderedDict

import numpy as np
import pytest
import torch

import scinum
from scinum.analysis.evaluate import evaluate
from scinum.analysis.metrics import summarize
from scinum.model.checkpoint import load_checkpoint
from scinum.cli.main import main as scinum_main
from scinum.train.config import load_config
from scinum.errors import CheckpointError, ConfigError, VocabularyError
from scinum.datasets.jsonl import build
from scinum.train.run_dir import RunDirBusy, out_dir_lock
from scinum.train.fit import fit

from conftest import tiny_config


def _records(n, start=0):
    return [{"x": [0.5 + i / 1000, 1.0], "y": 0.25 + i / 1000} for i in range(start, start + n)]


def _jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _config(data, out, **trainer):
    return load_config(
        None,
        tiny_config(
            data, out, trainer={"devices": 1, "limit_val_batches": 0, "checkpoint_every_n_steps": 3, "log_every_n_steps": 1, **trainer}
        ),
    )


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    build(
        root / "data",
        train=[_jsonl(root / "train.jsonl", _records(48))],
        test=[_jsonl(root / "test.jsonl", _records(8, 500))],
        fields=["y"],
        progress=False,
    )
    return root / "data"


@pytest.fixture(scope="module")
def run(data, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "out"
    return fit(_config(data, out)), out


def _flip(path, offset, target):
    raw = bytearray(path.read_bytes())
    raw[offset] ^= 0x01
    target.write_bytes(bytes(raw))
    return target


# checkpoints that detect damage ------------------------------------------------------------
def _weight_offsets(path):
    """Byte offsets in the file of every tensor's data (found by their bytes)."""
    raw = path.read_bytes()
    state = torch.load(path, weights_only=True)["state_dict"]
    out = []
    for name, t in state.items():
        b = t.contiguous().view(-1).view(torch.uint8).numpy().tobytes()
        if len(b) >= 16 and raw.count(b) == 1:
            out.append((name, raw.index(b), len(b)))
    return out


def test_one_flipped_byte_in_weights_is_refused(run, tmp_path):
    ckpt, out = run
    for path in (ckpt, out / "checkpoints" / "last.ckpt"):
        offsets = _weight_offsets(path)
        assert len(offsets) >= 3
        for name, start, size in offsets[:: max(1, len(offsets) // 4)]:
            for at in (start, start + size // 2, start + size - 1):
                bad = _flip(path, at, tmp_path / "bad.ckpt")
                with pytest.raises(CheckpointError, match=r"bad.ckpt: damaged") as e:
                    load_checkpoint(bad)
                assert "\n" not in str(e.value)


def test_one_flipped_byte_in_metadata_is_refused(run, data, tmp_path):
    ckpt, _ = run
    raw = ckpt.read_bytes()
    for text in (str(data).encode(), b"n_heads", b"positions"):  # a value, keys
        at = raw.find(text)
        assert at > 0, text
        bad = _flip(ckpt, at + len(text) - 1, tmp_path / "bad.ckpt")
        with pytest.raises(CheckpointError, match=r"bad.ckpt: damaged"):
            load_checkpoint(bad)
    # the digest itself
    at = raw.find(b"sha256:")
    assert at > 0
    with pytest.raises(CheckpointError, match="damaged"):
        load_checkpoint(_flip(ckpt, at + 20, tmp_path / "bad.ckpt"))


def test_checkpoints_without_a_digest_still_load(run, tmp_path):
    ckpt, _ = run
    c = torch.load(ckpt, weights_only=True)
    del c["digest"]
    torch.save(c, tmp_path / "old.ckpt")
    meta, model = load_checkpoint(tmp_path / "old.ckpt")
    assert meta.context_length and sum(p.numel() for p in model.parameters())


def test_damaged_last_ckpt_is_refused_before_resuming(run, data, tmp_path):
    _, out = run
    resumed = tmp_path / "out"
    (resumed / "checkpoints").mkdir(parents=True)
    last = out / "checkpoints" / "last.ckpt"
    _, start, size = _weight_offsets(last)[0]
    _flip(last, start + size // 3, resumed / "checkpoints" / "last.ckpt")
    with pytest.raises(CheckpointError, match="last.ckpt: damaged"):
        fit(_config(data, resumed, max_steps=9))


def _second_dataset(root):
    build(
        root / "data2", train=[_jsonl(root / "t2.jsonl", [{"z": r["y"], "x": r["x"]} for r in _records(48)])], fields=["z"], progress=False
    )
    return root / "data2"


@pytest.mark.parametrize(
    "change, says",
    [
        ({"seed": 1}, "seed was 0"),
        ({"optim": {"warmup_steps": 2, "lr": 1e-2}}, "optim.lr was"),
        ({"model": {"d_model": 32, "n_layers": 1, "n_heads": 2}}, "model.d_model was 16"),
        ({"encoding": {"name": "fone"}}, "encoding.name was xval"),
        ({"data": "other"}, "data.path was"),
    ],
)
def test_resume_refuses_another_config_before_writing(data, tmp_path, change, says):
    """Issue 37 case 2: a last.ckpt was resumed whatever the config said (another dataset's
    vocabulary in another order, another lr or seed), or ended in a size-mismatch traceback
    after config.json was overwritten."""
    out = tmp_path / "out"
    fit(_config(data, out))
    written = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    cfg = _config(data, out, max_steps=9)
    if change.get("data") == "other":
        cfg["data"]["path"] = str(_second_dataset(tmp_path))
    else:
        for key, value in change.items():
            cfg[key] = {**cfg[key], **value} if isinstance(value, dict) else value
    with pytest.raises(ConfigError, match=f"last.ckpt: cannot resume: {re.escape(says)}") as e:
        fit(cfg)
    assert "\n" not in str(e.value)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == written
    # training longer, with other reporting: resumed
    fit(_config(data, out, max_steps=9, log_every_n_steps=2, checkpoint_every_n_steps=4))
    assert json.loads((out / "training.json").read_text())["steps"] == 9


def test_resume_refuses_a_model_file_as_last_ckpt(run, data, tmp_path, capsys):
    """Issue 37 case 2: a model.ckpt at checkpoints/last.ckpt was KeyError
    'pytorch-lightning_version'."""
    out = tmp_path / "out"
    (out / "checkpoints").mkdir(parents=True)
    (out / "checkpoints" / "last.ckpt").write_bytes(run[0].read_bytes())
    with pytest.raises(CheckpointError, match="last.ckpt: not a training checkpoint"):
        fit(_config(data, out, max_steps=9))
    assert sorted(p.name for p in out.iterdir()) == [".lock", "checkpoints"]


# one writer per run ----------------------------------------------------------------------
_HOLD = (
    "import sys, time; from scinum.train.run_dir import out_dir_lock\n"
    "with out_dir_lock(sys.argv[1]):\n    print('held', flush=True); time.sleep(60)\n"
)


def _holder(out, env=None):
    p = subprocess.Popen([sys.executable, "-c", _HOLD, str(out)], stdout=subprocess.PIPE, env={**os.environ, **(env or {})}, text=True)
    assert p.stdout.readline().strip() == "held"
    return p


def test_a_second_fit_into_a_busy_out_dir_refuses_in_one_line(data, tmp_path, capsys):
    out = tmp_path / "out"
    holder = _holder(out)
    try:
        cfg = tmp_path / "c.yaml"
        cfg.write_text(json.dumps(_config(data, out)))
        assert scinum_main(["fit", "--config", str(cfg)]) == 1
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and f"pid {holder.pid}" in err and str(out) in err
        assert not (out / "checkpoints").exists() and not (out / "logs").exists()
    finally:
        holder.kill()
        holder.wait()
    # a lock whose process died (kill -9 above) blocks nothing
    with out_dir_lock(out):
        with pytest.raises(RunDirBusy):  # ... and one run in this process owns it
            with out_dir_lock(out):
                pass


def test_only_the_launching_process_takes_the_lock(tmp_path, monkeypatch):
    out = tmp_path / "out"
    with out_dir_lock(out):
        monkeypatch.setenv("LOCAL_RANK", "1")  # a rank process Lightning's launcher started
        with out_dir_lock(out):
            pass


# a resumed run keeps its log ---------------------------------------------------------------
def _logged_steps(out):
    with open(out / "logs" / "metrics.csv", newline="") as f:
        return [int(r["step"]) for r in csv.DictReader(f) if r.get("train/loss")]


def test_resumed_run_keeps_the_metrics_of_the_steps_before_the_kill(data, tmp_path):
    out = tmp_path / "out"
    fit(_config(data, out))
    before = _logged_steps(out)
    assert before == list(range(6))
    # as if killed by kill -9 after logging a step after its last checkpoint: that step is
    # trained and logged again, once
    with open(out / "logs" / "metrics.csv", newline="") as f:
        header = next(csv.reader(f))
    with open(out / "logs" / "metrics.csv", "a", newline="") as f:
        csv.DictWriter(f, header).writerow({"step": 6, "train/loss": 999.0})
    fit(_config(data, out, max_steps=9))
    assert _logged_steps(out) == list(range(9))
    with open(out / "logs" / "metrics.csv", newline="") as f:
        assert "999.0" not in f.read()


# NaN predictions count --------------------------------------------------------------------
def test_a_nan_prediction_of_a_number_model_is_scored_not_unparseable(run, data):
    model = scinum.load(run[0])
    with torch.no_grad():
        model.model.head.out.bias.fill_(float("nan"))
    table, preds = evaluate(model, data, ["y"], ["test"])
    row = table.iloc[0]
    assert row["unparseable"] == 0.0 and row["non_finite"] == 1.0 and row["n"] == 8
    assert math.isnan(row["mse"]) and math.isnan(row["r2"])
    y = np.array([1.0, 2.0, 3.0])
    assert math.isnan(summarize(y, [math.nan, 2.0, 3.0], unparseable=[False, False, False])["mse"])
    assert summarize(y, [math.nan, 2.0, 3.0], unparseable=[True, False, False])["mse"] == 0.0


# fill: one-line errors, per-record errors, records as before ---------------------------------
def test_bad_utf8_in_input_file_is_a_per_record_error(run, tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    good = json.dumps(_records(1)[0]).encode()
    src.write_bytes(good + b"\n" + b'{"x": [0.5, 1.0], "y": 0.2, "s": "\xff"}\n' + good + b"\n")
    code = scinum_main(["fill", "--ckpt", str(run[0]), "--mask", "y", "--input", str(src), "--on-error", "skip"])
    out, err = capsys.readouterr()
    assert code == 1 and len(out.splitlines()) == 2
    assert "in.jsonl:2" in err and "UTF-8" in err and "0xff" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "flags,parts",
    [
        (["--batch-size", "0"], ["--batch-size", "0"]),
        (["--batch-size", "-1"], ["--batch-size"]),
        (["--chunk", "0"], ["--chunk"]),
        (["--device", "bogus"], ["'bogus'"]),
        (["--device", "cuda"], ["'cuda'"]),
    ],
)
def test_bad_fill_flags_are_one_line_errors(run, tmp_path, capsys, flags, parts):
    if flags[-1] == "cuda" and torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    src = _jsonl(tmp_path / "in.jsonl", _records(2))
    assert scinum_main(["fill", "--ckpt", str(run[0]), "--mask", "y", "--input", str(src), *flags]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    for p in parts:
        assert p in err, err


def test_api_records_with_tuples_and_ordered_dicts_fill(run):
    model = scinum.load(run[0])
    rec = {"x": [0.51, 1.0], "y": 0.26}
    want = model.fill(rec, ["y"])["y"]
    assert model.fill(OrderedDict(rec), ["y"])["y"] == want
    assert model.fill({"x": (0.51, 1.0), "y": 0.26}, ["y"])["y"] == want
    assert model.fill(OrderedDict([("x", (0.51, 1.0)), ("y", 0.26)]), ["y"])["y"] == want


@pytest.mark.parametrize("where", ["string", "key"])
def test_huge_unknown_strings_and_keys_are_cut_in_messages(run, where):
    model = scinum.load(run[0])
    huge = "q" * 3_000_000
    rec = {"x": [0.5, huge], "y": 0.2} if where == "string" else {"x": [0.5, 1.0], "y": 0.2, huge: 1}
    with pytest.raises(VocabularyError) as e:
        model.fill(rec, ["y"])
    assert len(str(e.value)) < 1500 and re.search(r"…\(300000\d chars\)", str(e.value))


def test_checkpoint_dataset_mismatch_names_checkpoint_and_split(run, tmp_path):
    other = tmp_path / "other"
    build(
        other,
        train=[_jsonl(tmp_path / "t.jsonl", _records(8))],
        ood={"late": [_jsonl(tmp_path / "late.jsonl", [{"x": [0.5, 1.0], "y": 0.2, "z": 1.0}])]},
        progress=False,
    )
    with pytest.raises(VocabularyError) as e:
        evaluate(scinum.load(run[0]), other, ["z"], ["ood_late"])
    msg = str(e.value)
    assert str(run[0]) in msg and "'ood_late'" in msg and "part-00000.jsonl:1" in msg and "\n" not in msg


# a stopped pool starts nothing more --------------------------------------------------------
def test_leaving_a_worker_pool_by_an_exception_stops_its_work():
    """Issue 37 case 4: Ctrl-C during a recipe shut the pool down with its queued models
    pending, and every remaining model trained to the end. Five 30-second tasks on two
    workers: left by KeyboardInterrupt once two run, the pool ends within seconds, the queued
    ones cancelled, none started after."""
    from scinum.util.processes import worker_pool

    started = time.time()
    with pytest.raises(KeyboardInterrupt):
        with worker_pool(2) as pool:
            futures = [pool.submit(time.sleep, 30) for _ in range(5)]
            while sum(f.running() for f in futures) < 2:
                time.sleep(0.05)
            time.sleep(1.0)  # both workers are in their first task
            raise KeyboardInterrupt
    assert time.time() - started < 20
    assert all(f.done() for f in futures) and sum(f.cancelled() for f in futures) >= 2
    assert not any(f.exception() is None for f in futures if not f.cancelled())
    with worker_pool(2) as pool:  # a pool left normally waits for its tasks, as before
        assert pool.submit(sum, [1, 2]).result() == 3


# options never accepted silently -----------------------------------------------------------
def test_a_validation_split_the_dataset_lacks_is_refused(data, tmp_path):
    """Issue 37 case 6: ``data.val_split=nope`` trained with no validation (and a mixture head
    with no calibration) without a word."""
    cfg = _config(data, tmp_path / "out")
    cfg["data"]["val_split"] = "nope"
    with pytest.raises(ConfigError, match=r"data.val_split = 'nope': .* has no such split \(it has train, test\)"):
        fit(cfg)
    assert not (tmp_path / "out" / "config.json").exists()


def test_seeds_on_a_preset_that_is_no_comparison_is_refused(tmp_path, capsys):
    """Issue 37 case 6: ``--seeds 3`` on a preset without a budget trained one seed silently."""
    from recipes.runner import main

    assert main("planets", ["--preset", "quick", "--seeds", "3", "--work", str(tmp_path / "w"), "--out", str(tmp_path / "r")]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--seeds 3: preset 'quick'" in err, err
    assert not (tmp_path / "w").exists() and not (tmp_path / "r").exists()


def test_a_device_list_on_the_cpu_is_one_line(data, tmp_path):
    """Issue 37 case 8: ``trainer.devices: [0, 1]`` on the CPU was a Lightning traceback."""
    with pytest.raises(ConfigError, match=r"trainer.devices = \[0, 1\]: a list of device indices"):
        fit(_config(data, tmp_path / "out", devices=[0, 1]))
    assert not (tmp_path / "out" / "config.json").exists()
