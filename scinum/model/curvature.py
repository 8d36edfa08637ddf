"""A curvature penalty: predictions kept straight along the record's values unless the data bend them.

A model that reads numbers through attention, MLPs and a mixture head bends its fit near the edge
of the training range, so past the range its slope shrinks and it predicts worse than a straight
line (experiments/parity.md, *Why the slope shrinks past the range*). The penalty is a smoothing-spline
prior in finite differences: in a share of each training batch, every visible number of a record
is moved by ``step`` normalized units along one random direction (a unit vector over the record's
visible numbers, drawn per record), and the model is run at ``x + step·u`` and ``x − step·u``;
with ``f`` the head's point prediction at the hidden numbers,

    penalty = weight · mean( ((f(x + step·u) + f(x − step·u) − 2 f(x)) / step²)² )

— the mean square of the second derivative of ``f`` along ``u``, estimated across ``step``.
A linear function pays nothing, so a trend the data show is kept and carried past the range;
a bend is paid for unless the number loss gains more from it.

With a ``reach`` r > 0 one arm of the stencil is longer: the points are ``x − step·u``, ``x`` and
``x + (step + c)·u`` with ``c`` drawn from U(0, r) per record, and ``f''`` is the second derivative
of the parabola through the three (exact for parabolas, zero for lines). As ``u``'s sign is
random, the penalty then also reads the model up to ``step + r`` from the data on either side —
where a prediction past the training range is made.

Cost: two more forward and backward passes over the share of the batch it reads
(``share`` 1: about three times a step's work).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from ..tokens.batch import Batch, hidden_rows, shown_numbers

__all__ = ["Curvature", "curvature_penalty", "check_curvature"]


@dataclass(frozen=True)
class Curvature:
    """What :func:`curvature_penalty` computes: ``weight`` (0: none), ``step`` (normalized
    units: how far the values move), ``share`` (of each batch's records, the first
    ``ceil(share·B)``; the batches are shuffled), the ``encoding`` that turns the moved
    values into the trunk's features, and ``reach`` (normalized units, >= 0: how much longer the
    stencil's outer arm may be; 0: the symmetric stencil)."""

    weight: float
    step: float
    share: float
    encoding: Any
    reach: float = 0.0


def check_curvature(encoding: Any, head_config: dict) -> None:
    """Raise ``ValueError`` where the penalty cannot act: an encoding that gives the trunk no
    features (its values are tokens) or a head (the ``head:`` section of a run config; a small
    one is built to ask) whose point prediction has no gradient."""
    if not encoding.dim:
        raise ValueError(f"needs an encoding that gives the trunk its values as features; {encoding.name} spells them in tokens")
    from ..heads import make_head

    head = make_head(encoding, 8, head_config)
    if not head.has_smooth_point:
        raise ValueError(
            f"needs a head whose point prediction has a gradient (xVal's head, the mixture head); the {type(head).__name__} has none"
        )


def curvature_penalty(model: Any, batch: Batch, point: torch.Tensor, spec: Curvature) -> torch.Tensor:
    """The penalty (module docstring) of ``batch`` for ``model`` (a
    :class:`~scinum.model.trunk.NumberMLM`): a float32 scalar (0 where the records read
    hide no number or show none). ``point`` float[N]: the head's differentiable point prediction
    at the batch's hidden numbers (row-major over ``num_hidden``), from the step's own forward."""
    ids, feats, num = batch["ids"], batch["feats"], batch["num_hidden"]
    take = min(len(ids), max(1, math.ceil(spec.share * len(ids))))
    ids, feats, num = ids[:take], feats[:take], num[:take]
    visible = shown_numbers(ids)
    n_hidden = int(num.sum())
    if not n_hidden or not bool(visible.any()):
        return point.new_zeros((), dtype=torch.float32)
    values = spec.encoding.decode(feats[visible]).to(torch.float64)
    direction = torch.zeros(visible.shape, dtype=torch.float64, device=ids.device)
    direction[visible] = torch.randn(len(values), dtype=torch.float64, device=ids.device)
    direction = direction / direction.norm(dim=1, keepdim=True).clamp(min=1e-12)
    u = direction[visible]
    # the stencil's offsets along u, per record: -step, 0 and step + c (c = 0 without a reach)
    near = torch.full((take,), -spec.step, dtype=torch.float64, device=ids.device)
    far = -near
    if spec.reach:
        far = far + spec.reach * torch.rand(take, dtype=torch.float64, device=ids.device)
    of_visible = visible.nonzero()[:, 0]
    ok = spec.encoding.representable(values + far[of_visible] * u) & spec.encoding.representable(values + near[of_visible] * u)
    if not bool(ok.all()):  # a record with a value the encoding cannot hold once moved stays where it is
        bad = torch.zeros(visible.shape, dtype=torch.bool, device=ids.device)
        bad[visible] = ~ok
        u = torch.where(bad.any(1, keepdim=True).expand_as(visible)[visible], 0.0, u)
    rows, valid = hidden_rows(num)
    structure = batch.get("structure")
    structure = None if structure is None else structure[:take]

    def moved(offset: torch.Tensor) -> torch.Tensor:
        f = feats.clone()
        f[visible] = spec.encoding.encode(values + offset[of_visible] * u).to(f.dtype)
        h = model(ids, f, attend, rows, structure)[valid]
        return model.head.smooth_point(model.head(h, model.trunk.token_logits(h)))

    attend = batch["attend"][:take]
    if not spec.reach:
        bend = (moved(far) + moved(near) - 2 * point[:n_hidden]) / spec.step**2
    else:  # the second derivative of the parabola through (a, f(a)), (0, f(0)) and (b, f(b))
        of_hidden = num.nonzero()[:, 0]
        a, b = near[of_hidden].to(point.dtype), far[of_hidden].to(point.dtype)
        bend = 2 * (moved(far) / (b * (b - a)) + moved(near) / (a * (a - b)) + point[:n_hidden] / (a * b))
    return spec.weight * bend.float().pow(2).mean()
