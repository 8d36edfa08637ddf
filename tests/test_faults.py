"""Bad input and faults: every one is a clear, located error; nothing is lost or half-written.

The fault corpus of the fresh-machine trial found seven causes; each has a test here that fails
if it comes back (the issue's numbering in brackets)."""

import errno
import json
import math
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

import scinum
from scinum.analysis.evaluate import evaluate
from scinum.cli.main import main
from scinum.train.config import load_config
from scinum.errors import CheckpointError, DatasetError, MalformedJSON, RecordError, ValueOutOfRange
from scinum.records.strict import MAX_DEPTH, loads
from scinum.train.fit import fit

from conftest import tiny_config, write_dataset  # tests/conftest.py


class Orbit:
    def __call__(self, i):
        rng = random.Random(i)
        a = rng.uniform(0.5, 2.0)
        xs = [rng.uniform(-1, 1) for _ in range(4)]
        return {"params": {"a": a, "n": 4}, "points": [[x, a * x] for x in xs]}, {}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("faults")
    return write_dataset(root / "data", Orbit(), {"train": 64, "test": 12}, builder="orbit", shard_size=64)


@pytest.fixture(scope="module")
def ckpt(data, tmp_path_factory):
    trainer = {"max_steps": 10, "devices": 1, "limit_val_batches": 0, "checkpoint_every_n_steps": 1000}
    cfg = load_config(overrides=tiny_config(data, tmp_path_factory.mktemp("run"), data={"batch_size": 16}, trainer=trainer))
    return fit(cfg)


RECORD = Orbit()(5)[0]


def _jsonl(path, records):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


# [1] huge finite inputs: never a silent null -------------------------------------------------
@pytest.mark.parametrize("value", [1e30, 3e38, -1e30])
def test_huge_input_is_an_error_naming_record_and_path(ckpt, value):
    rec = json.loads(json.dumps(RECORD))
    rec["points"][0][0] = value
    model = scinum.load(ckpt)
    with pytest.raises(RecordError, match=r"record 0.*points\[0\]\[0\]") as e:
        model.fill(rec, ["params.a"])
    assert "prediction" in str(e.value) or isinstance(e.value, ValueOutOfRange)


def test_cli_reports_a_huge_input_and_writes_every_good_record(ckpt, tmp_path, capsys):
    bad = json.loads(json.dumps(RECORD))
    bad["points"][1][1] = 1e30
    src = _jsonl(tmp_path / "in.jsonl", [RECORD, bad, RECORD])
    code = main(
        [
            "fill",
            "--ckpt",
            str(ckpt),
            "--mask",
            "params.a",
            "--input",
            str(src),
            "--on-error",
            "skip",
            "--output",
            str(tmp_path / "out.jsonl"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 1 and "in.jsonl:2" in err and "points[1][1]" in err
    out = [json.loads(l) for l in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert len(out) == 2 and all(isinstance(r["params"]["a"], float) for r in out)


def test_cli_names_the_checkpoint_whose_vocabulary_lacks_a_key(ckpt, tmp_path, capsys):
    odd = json.loads(json.dumps(RECORD))
    odd["params"]["unseen_key"] = 1.0
    src = _jsonl(tmp_path / "in.jsonl", [RECORD, odd])
    code = main(
        [
            "fill",
            "--ckpt",
            str(ckpt),
            "--mask",
            "params.a",
            "--input",
            str(src),
            "--on-error",
            "skip",
            "--output",
            str(tmp_path / "out.jsonl"),
        ]
    )
    err = capsys.readouterr().err
    line = next(l for l in err.splitlines() if "unseen_key" in l)
    assert code == 1 and "in.jsonl:2" in line and "not in the vocabulary" in line
    assert f"of checkpoint {ckpt}" in line


def test_non_finite_predictions_are_errors_in_fill_and_counted_in_evaluate(ckpt, data):
    """A diverged model (here: its head made to output inf) never fills null silently; the
    evaluation scores it (MSE inf, non_finite 1) instead of calling it unparseable."""
    model = scinum.load(ckpt)
    with torch.no_grad():
        model.model.head.out.bias.fill_(float("inf"))
    with pytest.raises(RecordError, match="not a finite number"):
        model.fill(RECORD, ["params.a"])
    table, preds = evaluate(model, data, ["params.a"], ["test"])
    row = table.iloc[0]
    assert row["non_finite"] == 1.0 and row["mse"] == math.inf and row["unparseable"] == 0.0
    assert np.isinf(preds["pred"]).all()


# [2] deep nesting: a per-record error, every good record still written --------------------
def test_deep_nesting_is_a_located_error():
    with pytest.raises(MalformedJSON, match="nesting deeper than"):
        loads("[" * 10000 + "]" * 10000, file="f.jsonl", line=3)
    with pytest.raises(MalformedJSON, match=r"f.jsonl:4.*nesting deeper than"):
        loads('{"a":' * (MAX_DEPTH + 5) + "1" + "}" * (MAX_DEPTH + 5), file="f.jsonl", line=4)


def test_deep_api_record_is_a_record_error(ckpt):
    deep = {"x": 1.0}
    for _ in range(900):
        deep = {"x": deep}
    with pytest.raises(RecordError, match="nesting deeper than"):
        scinum.load(ckpt).fill(deep, ["params.a"])


def test_cli_skip_keeps_every_good_record_around_a_deep_one(ckpt, tmp_path, capsys):
    lines = [RECORD] * 3 + ['{"a":' * 10000 + "1" + "}" * 10000] + [RECORD] * 3
    src = _jsonl(tmp_path / "in.jsonl", lines)
    code = main(["fill", "--ckpt", str(ckpt), "--mask", "params.a", "--input", str(src), "--on-error", "skip"])
    out, err = capsys.readouterr()
    assert code == 1 and "in.jsonl:4" in err and "nesting deeper than" in err
    assert len(out.splitlines()) == 6


# extras --------------------------------------------------------------------------------------
def test_bom_is_named():
    with pytest.raises(MalformedJSON, match="byte-order mark"):
        loads("\ufeff" + json.dumps(RECORD), file="f.jsonl", line=1)


def test_numpy_scalars_in_api_records(ckpt):
    rec = json.loads(json.dumps(RECORD))
    rec["points"][0][0] = np.float64(rec["points"][0][0])
    rec["params"]["n"] = np.int64(4)
    model = scinum.load(ckpt)
    assert model.fill(rec, ["params.a"]) == model.fill(RECORD, ["params.a"])
    rec["points"][0][1] = object()
    with pytest.raises(RecordError, match=r"points\[0\]\[1\].*object is not a JSON value"):
        model.fill(rec, ["params.a"])


# [3] an interrupted --output run publishes nothing ---------------------------------------
def _as_from_a_terminal() -> None:
    """Give the child Ctrl-C's default disposition. A shell starts background jobs with SIGINT
    ignored, and a child inherits that, so a test run from such a job would see no interrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_output_run_leaves_no_file(ckpt, tmp_path, sig):
    src = _jsonl(tmp_path / "in.jsonl", [RECORD] * 20000)
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "scinum.cli",
            "fill",
            "--ckpt",
            str(ckpt),
            "--mask",
            "params.a",
            "--input",
            str(src),
            "--output",
            str(out),
            "--chunk",
            "32",
        ],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        preexec_fn=_as_from_a_terminal,
    )
    deadline = time.time() + 60
    tmp = tmp_path / f".out.jsonl.tmp{proc.pid}"
    while not (tmp.exists() and tmp.stat().st_size > 0):  # mid-run: records are being written
        assert proc.poll() is None and time.time() < deadline, proc.stderr.read().decode()
        time.sleep(0.05)
    proc.send_signal(sig)
    err = proc.communicate(timeout=60)[1].decode()
    assert proc.returncode == 128 + sig, err
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]  # no output, no temp


# [4] I/O errors: one line naming the path, nothing half-written --------------------------
def test_output_into_a_missing_directory(ckpt, tmp_path, capsys):
    src = _jsonl(tmp_path / "in.jsonl", [RECORD])
    code = main(["fill", "--ckpt", str(ckpt), "--mask", "params.a", "--input", str(src), "--output", str(tmp_path / "nope" / "o.jsonl")])
    err = capsys.readouterr().err
    assert code == 1 and "nope" in err and "does not exist" in err and ".tmp" not in err


def test_full_disk_keeps_no_temp_file(ckpt, tmp_path, capsys, monkeypatch):
    import scinum.cli.fill as fill_cli

    src = _jsonl(tmp_path / "in.jsonl", [RECORD] * 5)

    def full(*a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(fill_cli, "dumps", full)
    code = main(["fill", "--ckpt", str(ckpt), "--mask", "params.a", "--input", str(src), "--output", str(tmp_path / "o.jsonl")])
    err = capsys.readouterr().err
    assert code == 1 and "o.jsonl: cannot write (No space left on device)" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


def test_output_through_links_and_to_devices(ckpt, tmp_path):
    """Issue 37 case 11: ``fill -o /dev/stdout`` went to a temporary file renamed over the link
    (nothing reached stdout, the link became a file); ``-o LINK`` replaced any link."""
    src = _jsonl(tmp_path / "in.jsonl", [RECORD] * 3)
    stdout = tmp_path / "stdout"  # as /dev/stdout is (a regression must not replace the real one)
    stdout.symlink_to("/proc/self/fd/1")
    p = _run_cli(["fill", "--ckpt", str(ckpt), "--mask", "params.a", "--input", str(src), "--output", str(stdout)], text=True)
    assert p.returncode == 0 and len(p.stdout.splitlines()) == 3, p.stderr
    assert stdout.is_symlink()
    stdout.unlink()
    target, link = tmp_path / "real.jsonl", tmp_path / "link.jsonl"
    target.write_text("old\n")
    link.symlink_to(target)
    assert main(["fill", "--ckpt", str(ckpt), "--mask", "params.a", "--input", str(src), "--output", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert len(target.read_text().splitlines()) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "link.jsonl", "real.jsonl"]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE, text=True)
    assert main(["fill", "--ckpt", str(ckpt), "--mask", "params.a", "--input", str(src), "--output", str(fifo)]) == 0
    assert len(reader.communicate(timeout=30)[0].splitlines()) == 3


def _run_cli(args, **kw):
    return subprocess.run([sys.executable, "-m", "scinum.cli", *args], capture_output=True, **kw)


def test_stdout_full_and_closed_pipe(ckpt, tmp_path):
    src = _jsonl(tmp_path / "in.jsonl", [RECORD] * 300)
    with open("/dev/full", "w") as full:
        p = subprocess.run(
            [sys.executable, "-m", "scinum.cli", "fill", "--ckpt", str(ckpt), "--mask", "params.a", "--input", str(src)],
            stdout=full,
            stderr=subprocess.PIPE,
        )
    err = p.stderr.decode()
    assert p.returncode == 1 and "No space left on device" in err and "Traceback" not in err
    shell = f"{sys.executable} -m scinum.cli fill --ckpt {ckpt} --mask params.a --input {src} --chunk 8 | head -1"
    p = subprocess.run(["bash", "-c", shell], capture_output=True)
    assert len(p.stdout.splitlines()) == 1 and b"Traceback" not in p.stderr and b"Error" not in p.stderr


def test_build_into_an_existing_file(tmp_path, capsys):
    f = tmp_path / "taken"
    f.write_text("x")
    assert main(["build", "planets", str(f), "--train", "2", "--val", "0", "--test", "0", "--ood", "0"]) == 1
    err = capsys.readouterr().err
    assert "taken" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_record_longer_than_the_limit_is_reported_without_reading_it(ckpt, tmp_path, capsys):
    huge = json.dumps({**RECORD, "pad": "x" * 5000})
    src = _jsonl(tmp_path / "in.jsonl", [RECORD, huge, RECORD])
    code = main(
        ["fill", "--ckpt", str(ckpt), "--mask", "params.a", "--input", str(src), "--on-error", "skip", "--max-record-bytes", "1000"]
    )
    out, err = capsys.readouterr()
    assert code == 1 and "in.jsonl:2" in err and "--max-record-bytes 1000" in err
    assert len(out.splitlines()) == 2


# [5] bad checkpoint metadata: a CheckpointError naming the file and the problem ------------
@pytest.mark.parametrize(
    "edit,match",
    [
        (lambda m: m.__setitem__("version", "2"), "version '2' is not a version number"),
        (lambda m: m.__setitem__("version", 99), "version 99 is newer"),
        (lambda m: m.__setitem__("version", None), "version None"),
        (lambda m: m.pop("vocab"), "'vocab' is missing"),
        (lambda m: m.__setitem__("normalizer", [1]), "'normalizer' is a list"),
        (lambda m: m["vocab"].pop("tokens"), "damaged metadata"),
        (lambda m: m.__setitem__("context_length", -3), "context_length"),
    ],
)
def test_bad_checkpoint_metadata(ckpt, tmp_path, edit, match):
    c = torch.load(ckpt, weights_only=True)
    del c["digest"]  # an edit by something else (a digest that matches is checked below)
    edit(c["scinum"])
    torch.save(c, tmp_path / "bad.ckpt")
    with pytest.raises(CheckpointError, match=rf"bad.ckpt: .*{match}"):
        scinum.load(tmp_path / "bad.ckpt")


def test_unreadable_checkpoint_gives_no_unsafe_advice(tmp_path):
    (tmp_path / "rand.ckpt").write_bytes(bytes(random.Random(0).randrange(256) for _ in range(4096)))

    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))

    torch.save({"scinum": Evil()}, tmp_path / "evil.ckpt")
    for name in ("rand.ckpt", "evil.ckpt"):
        with pytest.raises(CheckpointError, match=name) as e:
            scinum.load(tmp_path / name)
        assert "weights_only" not in str(e.value)


# [6] empty datasets ---------------------------------------------------------------------
def test_zero_training_samples_is_refused(tmp_path, capsys):
    assert main(["build", "planets", str(tmp_path / "p"), "--train", "0", "--val", "0", "--test", "0", "--ood", "0"]) == 1
    assert "--train 0" in capsys.readouterr().err and not (tmp_path / "p").exists()


def test_evaluate_with_nothing_to_score_is_a_clear_error(ckpt, tmp_path, capsys):
    write_dataset(tmp_path / "d", Orbit(), {"train": 4, "test": 0}, builder="orbit")
    assert main(["evaluate", "--ckpt", str(ckpt), "--data", str(tmp_path / "d"), "--out", str(tmp_path / "r"), "--fields", "params.a"]) == 1
    err = capsys.readouterr().err
    assert "nothing to score" in err and "Traceback" not in err
    with pytest.raises(DatasetError, match=r"\['test'\] hold no records"):
        evaluate(ckpt, tmp_path / "d", ["params.a"], ["test"])


# [7] builder workers die with a killed builder ---------------------------------------------
def _children(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (from /proc)."""
    parent_of = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    parent_of[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent_of.items() if pp == p]
        out.update(kids)
        todo.extend(kids)
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_killed_builder_takes_its_workers_with_it(tmp_path):
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "scinum.cli",
            "build",
            "planets",
            str(tmp_path / "p"),
            "--train",
            "4000",
            "--val",
            "0",
            "--test",
            "0",
            "--ood",
            "0",
            "--workers",
            "3",
            "--shard-size",
            "50",
        ],  # 2 helpers
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 90
    workers: set[int] = set()
    while len(workers) < 2 or not list((tmp_path / "p" / "train").glob("part-*")):
        assert proc.poll() is None and time.time() < deadline, "build ended before the kill"
        workers = {
            c for c in _children(proc.pid) if "resource_tracker" not in open(f"/proc/{c}/cmdline", "rb").read().decode(errors="replace")
        }
        time.sleep(0.1)
    proc.kill()
    proc.wait()
    deadline = time.time() + 10
    while any(_alive(w) for w in workers) and time.time() < deadline:
        time.sleep(0.1)
    assert not any(_alive(w) for w in workers)


def test_dataset_without_an_evaluation_declaration_asks_for_fields(ckpt, data):
    """A dataset whose builder declares no evaluation fields (user data, older builds)."""
    with pytest.raises(DatasetError, match="declares no evaluation fields: pass --fields"):
        evaluate(ckpt, data)


def test_inference_does_not_import_lightning(ckpt):
    """Loading a model and filling a record needs torch, not the training stack."""
    code = (
        "import sys, json, scinum; m = scinum.load(sys.argv[1]); "
        f"m.fill(json.loads({json.dumps(json.dumps(RECORD))}), ['params.a']); "
        "bad = sorted(k for k in sys.modules if k.split('.')[0] in ('lightning', 'pytorch_lightning'));"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    p = subprocess.run([sys.executable, "-c", code, str(ckpt)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr[-2000:]
