"""A prediction next to a value its field piles up on in training goes exactly onto it.

Some fields are continuous except for one value that many records share, far from every other
training value: many of the planets' semi-major axes are exactly 1.0. A regression network
predicts such a value only approximately, while a tree can put it exactly; on the planets test
split that was the whole of a₁'s gap to the boosted trees (experiments/planets-a1-atom).

The checkpoint records such a value as its field's ``atom`` (``run.train_ranges[field]["atom"]``:
the value, its count, and ``gap``, the distance to the nearest other training value;
:mod:`scinum.util.provenance`: at least :data:`~scinum.util.provenance.ATOM_SHARE` of the
field's numbers, in a field of more than 16 distinct values, standing apart from them).

A prediction is moved onto the atom when all three hold:

* it lies closer to the atom than half the gap: closer to it than to any other value seen in
  training;
* the atom lies within the prediction's own 95 % reach (``Z95 · std``, as in
  :mod:`scinum.fill.between_values`): the model does not rule the atom out. Values in the gap
  next to the atom, which training never showed, are predicted with that doubt (planets'
  ``ood_a1``), and a head without a spread moves nothing;
* that reach is narrower than the gap: the model is sure enough to tell the atom from the values
  beyond the gap. A model still too unsure for that (the planets quick preset's) moves nothing it
  could be wrong about.

Its distribution moves with it (every location shifts by the same amount) and widens by the move,
as a prediction moved past a table's range does (:func:`scinum.fill.line_support.widen`: the
spread grows by ``WIDEN · |move|`` in quadrature, each quantile outwards by ``Φ⁻¹(p) · WIDEN ·
|move|``), so the interval still reaches back towards where the network put it. Nothing else
moves, and checkpoints that recorded no atom predict as before (experiments/planets-atoms).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .between_values import Z95

__all__ = ["TrainingAtoms"]


class TrainingAtoms:
    """Field id of ``vocab`` -> (atom value, snapping radius: half its gap), for the fields whose
    ``run["train_ranges"]`` entry records an atom."""

    def __init__(self, vocab: Any, run: dict[str, Any]):
        ranges = run.get("train_ranges") or {}
        self.atoms = {
            vocab.field_index[f]: (float(r["atom"]["value"]), float(r["atom"]["gap"]) / 2)
            for f, r in ranges.items()
            if f in vocab.field_index and r.get("atom")
        }

    def shift(self, fids: np.ndarray, values: np.ndarray, std: np.ndarray | None) -> np.ndarray:
        """float64[N]: what moves each prediction (``values`` [N] of fields ``fids`` int[N],
        record units, spreads ``std`` [N]; None: no spread) onto its field's atom when it lies
        strictly within both the radius and its own 95 % reach of it, that reach being narrower
        than the gap (twice the radius); 0 elsewhere."""
        out = np.zeros(len(fids), np.float64)
        if std is None or not self.atoms:
            return out
        values = np.asarray(values, np.float64)
        reach = Z95 * np.asarray(std, np.float64)
        for fid, (atom, radius) in self.atoms.items():
            dist = np.abs(values - atom)
            near = (fids == fid) & (dist < radius) & (dist < reach) & (reach < 2 * radius)
            out[near] = atom - values[near]
        return out
