"""The training console: Lightning's noise dropped, everything else kept."""
import logging

from scinum.util.console import quiet_lightning


def test_absent_accelerators_and_tips_are_dropped_the_rest_kept(caplog):
    quiet_lightning()
    log = logging.getLogger("lightning.pytorch.utilities.rank_zero")
    kept = ["GPU available: True (cuda), used: False", "GPU available: True (cuda), used: True",
            "Trainer already configured with model summary callbacks", "`Trainer.fit` stopped"]
    dropped = ["GPU available: False, used: False", "TPU available: False, using: 0 TPU cores",
               "HPU available: False, using: 0 HPUs",
               "💡 Tip: For seamless cloud uploads and versioning, try installing litmodels"]
    with caplog.at_level(logging.INFO, logger=log.name):
        for msg in kept + dropped:
            log.info(msg)
    assert [r.getMessage() for r in caplog.records] == kept
