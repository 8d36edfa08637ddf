"""Recalibrating a distribution head on validation data, so its intervals cover what they say.

A mixture head trained by NLL (plus the squared error that makes it learn fast) can come out
over- or under-confident per field: on the planets quick preset its 68 % interval covered 55 %
of the step sizes and 88 % of the semi-major axes. The remedy is quantile recalibration
(Kuleshov, Fenner & Ermon 2018): for a field, take the model's CDF at the truth of every
validation record, ``u_i = F_i(y_i)`` (the probability integral transform; a calibrated model
gives uniform ``u``). The level-``q`` quantile of the recalibrated model is then the model's
quantile at level ``R(q)``, the empirical ``q``-quantile of the ``u_i``: on the validation
split every interval covers its nominal share (up to ties), and on new data from the same
distribution it does so up to sampling noise. The table ``R`` at :data:`GRID` is what a
checkpoint stores (``CheckpointMeta.calibration``, field -> 101 levels); the test split is never
looked at, and point predictions and the mixture's own parameters do not change — only the
quantiles and intervals fill reports do.

``scinum fit`` fits it after training when ``calibrate: true`` (the default) and the head has
a distribution (:attr:`scinum.heads.NumberHead.has_distribution`).
"""

from __future__ import annotations

import os
import sys
from typing import Any, Sequence

import numpy as np
import torch

from ..datasets.directory import Dataset
from ..model.checkpoint import CheckpointMeta
from ..model.recalibration import GRID
from ..model.mlm import NumberMLM
from ..records.paths import field_of, get

__all__ = ["MIN_VALUES", "fit_recalibration", "recalibrate"]

#: a field with fewer validation numbers than this is not recalibrated (a 101-level table from a
#: handful of values would move its intervals by sampling noise: 10 values leave no value at all
#: beyond the 95 % interval's 2.5 % tails)
MIN_VALUES = 30


def fit_recalibration(
    model, data: str | os.PathLike, fields: Sequence[str], split: str = "val", batch_size: int = 256
) -> dict[str, dict[str, Any]]:
    """Per field of ``fields`` (masks, e.g. ``data[-1][*]``), the recalibration table fitted on
    ``split`` of ``data`` for ``model`` (a :class:`scinum.fill.model.Model` whose head has a
    distribution), from the model's own levels (any table it holds is ignored) ->
    ``{field: {"table": [101 levels], "coverage68_before", "coverage95_before", "n"}}``
    (coverages on ``split`` before recalibration; after it they are 68 % and 95 % up to ties)."""
    records = list(Dataset(data).records(split))
    head = model.model.head
    out: dict[str, dict[str, Any]] = {}
    for mask in fields:
        jobs = [model.prepare(r, [mask], index=i) for i, r in enumerate(records)]
        filled = model.run_jobs(jobs, batch_size=batch_size, intervals=(), keep_nonfinite=True)
        truth, mix = [], []
        for record, f in zip(records, filled):
            for p in f.predictions:
                u = p.uncertainty
                if np.isfinite(u["means"]).all() and np.isfinite(u["stds"]).all():
                    truth.append(float(get(record, p.path)))
                    mix.append((np.log(np.maximum(u["weights"], 1e-300)), u["means"], u["stds"]))
        if not truth:
            continue
        params = tuple(torch.tensor(np.array(c), dtype=torch.float64) for c in zip(*mix))
        pit = head.cdf(params, torch.tensor(truth, dtype=torch.float64)).numpy()
        before = [float(np.mean((pit >= (1 - c) / 2) & (pit <= (1 + c) / 2))) for c in (0.68, 0.95)]
        out[field_of(mask)] = {
            "table": np.quantile(pit, GRID).tolist(),
            "coverage68_before": before[0],
            "coverage95_before": before[1],
            "n": len(truth),
        }
    return out


def recalibrate(meta: CheckpointMeta, net: NumberMLM, data: str | os.PathLike, split: str = "val") -> bool:
    """Fit the recalibration of a model's quantile levels per evaluation field of the dataset
    ``data`` (its manifest's ``evaluation.fields``) on ``split``, set it on ``meta`` (in memory:
    ``scinum fit`` then writes its checkpoint once) and say on stderr what it corrects. A field
    with fewer than :data:`MIN_VALUES` numbers in ``split`` keeps its model's levels, and the
    user is told; the count per field is stored as ``run["calibration"]``. False when the
    dataset declares no evaluation fields (nothing changed)."""
    from .model import Model

    fields = Dataset(data).manifest.get("evaluation", {}).get("fields", [])
    if not fields:
        print("scinum fit: intervals not recalibrated (the dataset declares no evaluation fields)", file=sys.stderr)
        return False
    found = fit_recalibration(Model(meta, net, device=next(net.parameters()).device), data, fields, split)
    meta.calibration = {field: r["table"] for field, r in found.items() if r["n"] >= MIN_VALUES}
    meta.run["calibration"] = {
        "split": split,
        "min_values": MIN_VALUES,
        "fields": {
            field: {"n": found.get(field, {}).get("n", 0), "fitted": field in meta.calibration}
            for field in dict.fromkeys(field_of(f) for f in fields)
        },
    }
    for field, r in meta.run["calibration"]["fields"].items():
        if r["fitted"]:
            c = found[field]
            print(
                f"scinum fit: recalibrated the intervals of {field} on {r['n']} {split} "
                f"numbers (68/95 % intervals covered {c['coverage68_before']:.0%}/"
                f"{c['coverage95_before']:.0%})",
                file=sys.stderr,
            )
        else:
            print(
                f"scinum fit: intervals of {field} not recalibrated: {r['n']} {split} numbers, "
                f"fewer than the {MIN_VALUES} a calibration table needs (its intervals are the "
                "model's own)",
                file=sys.stderr,
            )
    return True
