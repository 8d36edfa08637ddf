"""Copies of planets-line-dt-a1's checkpoints whose lines carry their span and support (README): for each
``RUNS/models/<label>/seed<N>/model.ckpt``, the line is fitted again on the run's training records
as ``scinum fit`` fits it (``MLMDataModule.setup``), checked equal to the saved one in every
number (up to float rounding), and the saved line is written with the refit's ``span`` and
``support`` to ``OUT/<label>/seed<N>/model.ckpt``; nothing else changes.

    python experiments/planets-line-support/with_support.py RUNS OUT

RUNS: a work directory of ``recipes/planets.py`` whose models have a ``line`` (their
``config.json``'s ``data.path`` is read from the directory it names, relative to the current one).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from scinum.model.checkpoint import load_checkpoint, save_checkpoint
from scinum.tokens.record_line import RecordLine
from scinum.train.config import validate_config
from scinum.train.fit import data_module


def refitted(config: dict):
    """The run's line fitted again on its training records, as ``scinum fit`` fitted it."""
    dm = data_module(dict(config, data=dict(config["data"], num_workers=0)), validate_config(config))
    dm.prepare()
    return dm.line


def main(runs: Path, out: Path) -> None:
    line_of: dict[str, object] = {}  # one fit per dataset and fields: every seed shares it
    for ckpt in sorted(runs.glob("models/*/seed*/model.ckpt")):
        config = json.loads((ckpt.parent / "config.json").read_text())
        key = json.dumps([config["data"]["path"], config["line"]])
        if key not in line_of:
            line_of[key] = refitted(config)
        line = line_of[key]
        meta, net = load_checkpoint(ckpt)
        saved, new = meta.line.to_dict(), line.to_dict()
        if saved["fields"] != new["fields"] or saved["slots"] != new["slots"]:
            raise SystemExit(f"{ckpt}: the line fitted again reads other fields or slots")
        for a, b in zip(saved["lines"], new["lines"]):
            for k in list(a):  # the same up to the rounding of another SVD call (1e-14 in w, 1e-9 in m)
                x, y = np.asarray(a[k], np.float64), np.asarray(b[k], np.float64)
                if x.shape != y.shape or not np.allclose(x, y, rtol=1e-6, atol=1e-8 * max(1.0, float(np.abs(x).max()))):
                    raise SystemExit(f"{ckpt}: the line fitted again differs from the saved one in {k!r}")
            a.update(span=b["span"], support=b["support"])  # the saved line's numbers, the refit's bound
        meta.line = RecordLine.from_dict(saved)
        target = out / ckpt.parent.parent.name / ckpt.parent.name / "model.ckpt"
        target.parent.mkdir(parents=True, exist_ok=True)
        save_checkpoint(target, net, meta)
        bound = ", ".join(
            f"{f}: span [{fl.span[0]:.3g}, {fl.span[1]:.3g}], support {fl.support:.3g}" for f, fl in zip(meta.line.fields, meta.line.lines)
        )
        print(f"{target}: {bound}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
