"""A quiet console for training runs: Lightning's advertising tips, its reports of accelerators
the machine does not have ("TPU available: False, using: 0 TPU cores"; a GPU that is there is
still reported) and deprecation notices raised inside Lightning and torch (which a user of scinum
cannot act on) are dropped; every other message and warning is kept. Lightning's progress bar
draws on stderr (:class:`StderrProgressBar`): stdout carries data."""

from __future__ import annotations

import contextlib
import logging
import re
import sys
import warnings

from lightning.pytorch.callbacks import TQDMProgressBar

__all__ = ["quiet_lightning", "StderrProgressBar"]


#: "GPU available: False, used: False", "TPU available: False, using: 0 TPU cores", ...
_ABSENT = re.compile(r"[A-Z]PU available: False(?:, used: False|, using: 0 \w+(?: cores)?)?$")


class _Quiet(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        msg = str(record.msg).strip()
        return not (msg.startswith("💡 Tip") or _ABSENT.match(msg))


_FILTER = _Quiet()


def quiet_lightning() -> None:
    """Install the filters (idempotent)."""
    for name in ("lightning.pytorch.utilities.rank_zero", "lightning.fabric.utilities.rank_zero"):
        log = logging.getLogger(name)
        if _FILTER not in log.filters:
            log.addFilter(_FILTER)
    # torch deprecates LeafSpec checks that Lightning's own pytree helper still makes
    warnings.filterwarnings("ignore", message=r".*isinstance\(treespec, LeafSpec\)")
    # validation metrics are reduced over ranks by scinum itself (scinum.train.distributed.MetricSums)
    warnings.filterwarnings("ignore", message=r"It is recommended to use `self.log\('val/")


class StderrProgressBar(TQDMProgressBar):
    """Lightning's tqdm progress bar, drawn on stderr instead of stdout."""

    def init_sanity_tqdm(self):
        return _on_stderr(super().init_sanity_tqdm)

    def init_train_tqdm(self):
        return _on_stderr(super().init_train_tqdm)

    def init_validation_tqdm(self):
        return _on_stderr(super().init_validation_tqdm)

    def init_predict_tqdm(self):
        return _on_stderr(super().init_predict_tqdm)

    def init_test_tqdm(self):
        return _on_stderr(super().init_test_tqdm)


def _on_stderr(make):
    """``make()`` (a Lightning bar, which names ``sys.stdout`` as its file) drawing on stderr."""
    with contextlib.redirect_stdout(sys.stderr):
        return make()
