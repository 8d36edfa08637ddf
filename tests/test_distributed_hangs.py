"""Distributed runs where they break: every run here is a real multi-process ``scinum fit`` on
CPU (gloo) in its own process group, under a timeout that kills every rank — a hang fails the
test instead of the suite.

* the matrix: 2 and 3 processes, record counts that do not divide by the batch or the ranks,
  validation every few steps with a batch limit or a fraction, ``max_steps`` crossing passes
  over the data, gradient accumulation, evaluation fields declared (so a rank's validation
  batches may hide a field the other's do not) or not;
* SIGTERM to the launching process: every rank gone within 30 s, a resumable ``last.ckpt``;
* a rank that never reaches a step boundary: the watchdog ends every rank after the grace time;
* ranks out of step: a collective times out and the run fails naming the cause.
"""

import csv
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
import torch
import yaml

from conftest import fit_cli, run_group, tiny_config  # a hang kills every rank and fails the test


@pytest.fixture(scope="module")
def datasets(tmp_path_factory, toy_dataset):
    root = tmp_path_factory.mktemp("hangs")
    return {"fields": toy_dataset(root / "fields", 61, 13, ["m", "data[-1][*]"]), "plain": toy_dataset(root / "plain", 61, 13, None)}


def _config(data, out, **trainer):
    return tiny_config(data, out, seed=0, data={"batch_size": 4}, trainer={"strategy": "ddp", "log_every_n_steps": 1, **trainer})


def _group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False


MATRIX = {  # name: (dataset, trainer settings, batch size); "...values-alone": model.structure_tokens false
    "2ranks-fields-uneven": (
        "fields",
        dict(devices=2, max_steps=23, val_check_interval=5, limit_val_batches=1, checkpoint_every_n_steps=10),
        4,
    ),
    "3ranks-fields-fraction": (
        "fields",
        dict(devices=3, max_steps=11, val_check_interval=4, limit_val_batches=1.0, checkpoint_every_n_steps=5),
        5,
    ),
    "2ranks-plain-accumulate": (
        "plain",
        dict(devices=2, max_steps=9, val_check_interval=3, limit_val_batches=2, accumulate_grad_batches=2, checkpoint_every_n_steps=4),
        3,
    ),
    # the trunk reading the values alone (model.structure_tokens false), 13 batches of 61 records
    # a pass: a batch count that 2 ranks do not divide
    "2ranks-fields-uneven-values-alone": (
        "fields",
        dict(devices=2, max_steps=23, val_check_interval=5, limit_val_batches=1, checkpoint_every_n_steps=10),
        5,
    ),
}


@pytest.mark.parametrize("case", sorted(MATRIX))
def test_every_shape_of_run_ends(case, datasets, tmp_path):
    data, trainer, bs = MATRIX[case]
    cfg = _config(datasets[data], tmp_path / "run", **trainer)
    cfg["data"]["batch_size"] = bs
    if case.endswith("values-alone"):
        cfg["model"]["structure_tokens"] = False
    rc, out, err = fit_cli(cfg, tmp_path, case)
    assert rc == 0, err[-3000:]
    assert (tmp_path / "run" / "model.ckpt").exists()
    if case.endswith("values-alone"):
        import scinum

        assert scinum.load(tmp_path / "run" / "model.ckpt").model.trunk.cfg.structure_tokens is False
    with open(tmp_path / "run" / "logs" / "metrics.csv") as f:
        rows = list(csv.DictReader(f))
    assert max(int(r["step"]) for r in rows) == trainer["max_steps"] - 1  # every step taken
    validated = [r for r in rows if r.get("val/loss")]
    batches = trainer["max_steps"] * trainer.get("accumulate_grad_batches", 1)  # Lightning counts
    assert len(validated) == batches // trainer["val_check_interval"]  # validation in batches
    assert "Tip" not in err + out and "LeafSpec" not in err  # a quiet console


def test_early_stopping_with_a_floor_ends_on_every_rank(datasets, tmp_path):
    """Two ranks, 13 batches a pass (not divisible by the ranks), early stopping after one
    validation without a lower val/loss but not before step 12 (trainer.early_stopping_min_steps):
    every rank decides alike (the loss is reduced over them, the step is shared), so the run ends,
    at step 12."""
    trainer = dict(devices=2, max_steps=23, val_check_interval=2, limit_val_batches=1, checkpoint_every_n_steps=10)
    cfg = _config(datasets["fields"], tmp_path / "run", early_stopping_patience=1, early_stopping_min_steps=12, **trainer)
    cfg["optim"]["lr"] = 1e-12  # the weights stand still: every validation after the first stalls
    rc, _, err = fit_cli(cfg, tmp_path, "floor")
    assert rc == 0, err[-3000:]
    import scinum

    best = scinum.load(tmp_path / "run" / "model.ckpt").meta.run["best"]
    assert best["stopped_early"] and best["last_step"] == 12  # patience ran out at step 4, the floor held to 12


def test_the_reported_planets_configuration_ends(tmp_path):
    """The configuration that deadlocked every time (issue: 2 ranks, planets tiny data, batch 4,
    validation every 10 steps on 1 batch): the per-field validation errors of fields that one
    rank's batch did not hide made the ranks enter different collectives."""
    data = tmp_path / "data"
    rc, _, err = run_group(
        [
            sys.executable,
            "-m",
            "scinum.cli",
            "build",
            "planets",
            str(data),
            "--train",
            "120",
            "--val",
            "16",
            "--test",
            "16",
            "--ood",
            "16",
            "--steps",
            "4",
            "--seed",
            "0",
            "--shard-size",
            "64",
        ],
        120,
    )
    assert rc == 0, err[-2000:]
    cfg = _config(data, tmp_path / "run", devices=2, max_steps=20, val_check_interval=10, limit_val_batches=1, checkpoint_every_n_steps=10)
    cfg["model"] = {"d_model": 32, "n_layers": 1, "n_heads": 2}
    rc, out, err = fit_cli(cfg, tmp_path, "planets")
    assert rc == 0, err[-3000:]
    assert (tmp_path / "run" / "model.ckpt").exists()


def _script(tmp_path, body, cfg):
    """A script that runs :func:`scinum.train.fit` with a callback ``Misbehave`` defined by
    ``body`` (Lightning re-runs the script for every rank)."""
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    script = tmp_path / "run.py"
    script.write_text(
        textwrap.dedent("""
        import sys, time
        import lightning as L, torch
        from scinum.train.config import load_config
        from scinum.train.fit import fit
        from scinum.train.distributed import StoppedBySignal
        from scinum.errors import ScinumError
        class Misbehave(L.Callback):
        {body}
        if __name__ == "__main__":
            try:
                fit(load_config(overrides=__import__("yaml").safe_load(open({cfg!r}))), [Misbehave()])
            except StoppedBySignal as e:
                print(e.message, file=sys.stderr); sys.exit(e.code)
            except ScinumError as e:
                print("error:", e, file=sys.stderr); sys.exit(1)
    """).format(body=textwrap.indent(textwrap.dedent(body), "    "), cfg=str(tmp_path / "cfg.yaml"))
    )
    return script


def _start(script, log):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.Popen([sys.executable, str(script)], stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)


def _wait_for(path, p, seconds):
    t0 = time.time()
    while not path.exists():
        assert p.poll() is None, "the run ended before it was signalled"
        assert time.time() - t0 < seconds, f"{path} never appeared"
        time.sleep(0.2)


def _stop_and_time(p, signum, limit=30.0):
    t0 = time.time()
    p.send_signal(signum)
    while _group_alive(p.pid) and time.time() - t0 < limit + 30:
        p.poll()
        time.sleep(0.2)
    gone_after = time.time() - t0
    if _group_alive(p.pid):
        os.killpg(p.pid, signal.SIGKILL)
    return gone_after


def test_sigterm_to_the_launcher_stops_every_rank_with_a_resumable_checkpoint(datasets, tmp_path):
    cfg = _config(
        datasets["fields"],
        tmp_path / "run",
        devices=2,
        max_steps=100000,
        val_check_interval=7,
        limit_val_batches=1,
        checkpoint_every_n_steps=5,
        signal_grace_s=20,
    )
    script = _script(
        tmp_path,
        """
        def on_train_batch_end(self, trainer, *args):
            if trainer.global_step == 12 and trainer.is_global_zero:
                open(trainer.default_root_dir + "/started", "w").close()
    """,
        cfg,
    )
    with open(tmp_path / "log.txt", "w") as log:
        p = _start(script, log)
        _wait_for(tmp_path / "run" / "started", p, 180)
        gone_after = _stop_and_time(p, signal.SIGTERM)
    text = (tmp_path / "log.txt").read_text()
    assert gone_after < 30, text[-3000:]
    assert p.returncode == 128 + signal.SIGTERM, text[-3000:]
    assert "stopped by SIGTERM at step" in text
    last = torch.load(tmp_path / "run" / "checkpoints" / "last.ckpt", weights_only=True)
    assert last["global_step"] >= 12  # saved at the step where the ranks agreed to stop
    assert not (tmp_path / "run" / "model.ckpt").exists()  # not mistaken for a finished run
    cfg["trainer"]["max_steps"] = last["global_step"] + 2  # resumes and finishes
    rc, _, err = fit_cli(cfg, tmp_path, "resume")
    assert rc == 0, err[-3000:]
    assert (tmp_path / "run" / "model.ckpt").exists()
    with open(tmp_path / "run" / "logs" / "metrics.csv") as f:
        assert max(int(r["step"]) for r in csv.DictReader(f)) == last["global_step"] + 1


def test_a_rank_that_never_reaches_a_step_boundary_is_ended_after_the_grace_time(datasets, tmp_path):
    cfg = _config(
        datasets["plain"],
        tmp_path / "run",
        devices=2,
        max_steps=1000,
        val_check_interval=1000,
        limit_val_batches=0,
        checkpoint_every_n_steps=1000,
        signal_grace_s=3,
        collective_timeout_s=600,
    )
    script = _script(
        tmp_path,
        """
        def on_train_batch_end(self, trainer, *args):
            if trainer.global_step == 3:
                if trainer.is_global_zero:
                    open(trainer.default_root_dir + "/started", "w").close()
                else:
                    time.sleep(10000)  # stuck: rank 0 waits in its next collective
    """,
        cfg,
    )
    with open(tmp_path / "log.txt", "w") as log:
        p = _start(script, log)
        _wait_for(tmp_path / "run" / "started", p, 180)
        time.sleep(1)
        gone_after = _stop_and_time(p, signal.SIGTERM)
    text = (tmp_path / "log.txt").read_text()
    assert gone_after < 30, text[-3000:]
    assert "no step boundary reached 3 s after SIGTERM" in text
    assert p.returncode == 128 + signal.SIGTERM


def test_ranks_out_of_step_fail_naming_the_collective_timeout(datasets, tmp_path):
    cfg = _config(
        datasets["plain"],
        tmp_path / "run",
        devices=2,
        max_steps=1000,
        val_check_interval=1000,
        limit_val_batches=0,
        checkpoint_every_n_steps=1000,
        collective_timeout_s=5,
    )
    script = _script(
        tmp_path,
        """
        def on_train_batch_end(self, trainer, *args):
            if trainer.global_step == 3 and not trainer.is_global_zero:
                time.sleep(60)  # rank 0 waits for it in its next collective
    """,
        cfg,
    )
    t0 = time.time()
    rc, out, err = run_group([sys.executable, str(script)], 120)
    assert rc == 1, err[-3000:]
    assert "did not complete within 5 s" in err, err[-3000:]
    assert time.time() - t0 < 60
