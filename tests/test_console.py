"""The training console: Lightning's noise dropped, everything else kept."""

import logging

from scinum.util.console import quiet_lightning

from conftest import tiny_config  # tests/conftest.py


def test_absent_accelerators_and_tips_are_dropped_the_rest_kept(caplog):
    quiet_lightning()
    log = logging.getLogger("lightning.pytorch.utilities.rank_zero")
    kept = [
        "GPU available: True (cuda), used: False",
        "GPU available: True (cuda), used: True",
        "Trainer already configured with model summary callbacks",
        "`Trainer.fit` stopped",
    ]
    dropped = [
        "GPU available: False, used: False",
        "TPU available: False, using: 0 TPU cores",
        "HPU available: False, using: 0 HPUs",
        "💡 Tip: For seamless cloud uploads and versioning, try installing litmodels",
    ]
    with caplog.at_level(logging.INFO, logger=log.name):
        for msg in kept + dropped:
            log.info(msg)
    assert [r.getMessage() for r in caplog.records] == kept


def test_training_progress_bar_draws_on_stderr_and_stdout_stays_empty(tmp_path, capfd, one_thread):
    import json

    from scinum.train.config import load_config
    from scinum.train.fit import fit
    from scinum.datasets.jsonl import build

    (tmp_path / "a.jsonl").write_text("".join(json.dumps({"x": i / 10, "y": i / 5}) + "\n" for i in range(40)))
    build(tmp_path / "ds", train=[tmp_path / "a.jsonl"], progress=False)
    capfd.readouterr()
    fit(load_config(None, tiny_config(tmp_path / "ds", tmp_path / "run", trainer={"max_steps": 5, "devices": 1, "progress_bar": True})))
    out, err = capfd.readouterr()
    assert out == "" and "5/" in err
