"""Fit ``scinum.Regressor(seed=seed)`` under each candidate (one thread) on the training rows of
each ``TABLE:SEED`` (``recipes/tables_by_range.py``'s ``splits``) and save it to
``MODELS_DIR/CANDIDATE/TABLE-SEED`` with its fit time (``done.json``); a fit already saved is
skipped. For each pair the candidates run one after another, so that their times are taken
under the same load.

- ``default``: the default when this was declared (fb835b6): three members;
- ``half`` / ``quarter``: at least 312 / 156 steps (``DEFAULTS["min_steps"]``: 625), ``epochs``
  20 / 10, at most 50,000 / 25,000 cells a member (``DEFAULTS["max_cells"]``: 100,000);
- ``one-member``: ``members=1``;
- ``flat-under-line``: ``optim.curvature_weight`` 0 on a fit that keeps the least-squares line.

    python experiments/tables-fit-cheaper/fit_save.py MODELS_DIR CANDIDATE[,CANDIDATE...] engel:0 macrodata:0 ...
"""

import json
import sys
import time
from pathlib import Path

import torch

torch.set_num_threads(1)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "recipes"))
import tables_by_range as tbr  # noqa: E402
import scinum  # noqa: E402
import scinum.estimator as est  # noqa: E402

#: candidate -> (DEFAULTS changed for the fit, constructor arguments)
CANDIDATES: dict[str, tuple[dict, dict]] = {
    "default": ({}, {"members": 3}),  # the default when declared; one member since
    "half": ({"min_steps": 312, "max_cells": 50_000}, {"epochs": 20}),
    "quarter": ({"min_steps": 156, "max_cells": 25_000}, {"epochs": 10}),
    "one-member": ({}, {"members": 1}),
    "flat-under-line": ({}, {}),
}
#: combinations (below): the union of their parts' changes
COMBINED = "+"


class FlatUnderLine(scinum.Regressor):
    """The default, with no curvature penalty where the fit keeps the line (``line_`` is set
    before the members train)."""

    def _fit_members(self, records, paths, train, val, kind):
        if self.line_:
            config = dict(self.config or {})
            config["optim"] = {**config.get("optim", {}), "curvature_weight": 0.0}
            self.config = config
        return super()._fit_members(records, paths, train, val, kind)


def regressor(candidate: str, seed: int) -> scinum.Regressor:
    """The candidate's unfitted Regressor, :data:`est.DEFAULTS` set for it (and reset for others)."""
    parts = candidate.split(COMBINED)
    defaults, kwargs = {}, {}
    for p in parts:
        defaults.update(CANDIDATES[p][0])
        kwargs.update(CANDIDATES[p][1])
    for key in ("min_steps", "max_cells"):
        est.DEFAULTS[key] = defaults.get(key, ORIGINAL[key])
    cls = FlatUnderLine if "flat-under-line" in parts else scinum.Regressor
    return cls(seed=seed, **kwargs)


ORIGINAL = {k: est.DEFAULTS[k] for k in ("min_steps", "max_cells")}


def run(out: Path, candidates: list[str], pairs: list[str], make=None) -> None:
    """Fit each ``TABLE:SEED`` of ``pairs`` under each of ``candidates`` (``make(candidate,
    seed)``: the unfitted Regressor; :func:`regressor` by default) and save it with its fit
    time under ``out/CANDIDATE/TABLE-SEED``; a fit already saved is skipped."""
    make = make or regressor
    for arg in pairs:
        name, seed_text = arg.rsplit(":", 1)
        seed = int(seed_text)
        X, y = tbr.load(name)
        idx = tbr.splits(X, name, seed)
        for candidate in candidates:
            d = out / candidate / f"{name}-{seed}"
            if (d / "done.json").exists():
                continue
            reg = make(candidate, seed)
            t, c = time.time(), time.process_time()
            reg.fit(X.iloc[idx["train"]], y.iloc[idx["train"]])
            wall, cpu = time.time() - t, time.process_time() - c
            reg.save(d)
            info = {
                "wall_s": wall,
                "cpu_s": cpu,
                "rows": len(idx["train"]),
                "cols": X.shape[1] + 1,
                "candidate": candidate,
                "samples": reg.config_["budget"]["samples"],
                "line": bool(reg.line_),
                "curvature_weight": reg.config_["optim"]["curvature_weight"],
                "members": len(reg.models_),
            }
            (d / "done.json").write_text(json.dumps(info))
            print(name, seed, candidate, f"cpu {cpu:.0f}s wall {wall:.0f}s samples {info['samples']}", flush=True)


if __name__ == "__main__":
    run(Path(sys.argv[1]), sys.argv[2].split(","), sys.argv[3:])
