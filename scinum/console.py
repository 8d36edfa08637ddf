"""A quiet console for training runs: Lightning's advertising tips and deprecation notices raised
inside Lightning and torch (which a user of scinum cannot act on) are dropped; every other
message and warning is kept."""
from __future__ import annotations

import logging
import warnings

__all__ = ["quiet_lightning"]


class _NoTips(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).lstrip().startswith("💡 Tip")


_FILTER = _NoTips()


def quiet_lightning() -> None:
    """Install the filters (idempotent)."""
    for name in ("lightning.pytorch.utilities.rank_zero", "lightning.fabric.utilities.rank_zero"):
        log = logging.getLogger(name)
        if _FILTER not in log.filters:
            log.addFilter(_FILTER)
    # torch deprecates LeafSpec checks that Lightning's own pytree helper still makes
    warnings.filterwarnings("ignore", message=r".*isinstance\(treespec, LeafSpec\)")
    # validation metrics are reduced over ranks by scinum itself (scinum.distributed.MetricSums)
    warnings.filterwarnings("ignore", message=r"It is recommended to use `self.log\('val/")
