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

Cost: the moved copies of the share of the batch it reads run in the step's own forward pass,
appended to the batch (``share`` 1: a pass over three times the records, one pass's Python and
dispatch overhead instead of three: :meth:`scinum.model.mlm.NumberMLM.losses`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from ..tokens.batch import Batch, shown_numbers

__all__ = ["Curvature", "Stencil", "stencil", "check_curvature"]


@dataclass(frozen=True)
class Curvature:
    """What the penalty computes: ``weight`` (0: none), ``step`` (normalized units: how far the
    values move), ``share`` (of each batch's records, the first ``ceil(share·B)``; the batches
    are shuffled), the ``encoding`` that turns the moved values into the trunk's features, and
    ``reach`` (normalized units, >= 0: how much longer the stencil's outer arm may be; 0: the
    symmetric stencil)."""

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


@dataclass(frozen=True)
class Stencil:
    """The moved copies of a batch's first ``take`` records (:func:`stencil`): ``feats``
    float[2·take, L, dim], the records moved by ``far`` then by ``near`` (float64[take], normalized
    units along each record's direction); ``hidden`` bool[take, L]: the records' hidden numbers,
    ``n_hidden`` of them. The model reads the copies (:meth:`rows`: the records' ids, padding and
    structure), and :meth:`penalty` turns its point predictions there into the penalty."""

    feats: torch.Tensor
    far: torch.Tensor
    near: torch.Tensor
    hidden: torch.Tensor
    n_hidden: int
    spec: Curvature

    def rows(self, batch: Batch) -> dict[str, torch.Tensor]:
        """The copies as batch rows [2·take, ...]: ``ids``, ``attend``, ``num_hidden``,
        ``feats`` (and ``structure`` where the batch has one)."""
        take = len(self.far)
        out = {k: _twice(batch[k][:take]) for k in ("ids", "attend", "num_hidden")}
        out["feats"] = self.feats
        if batch.get("structure") is not None:
            out["structure"] = _twice(batch["structure"][:take])
        return out

    def penalty(self, point: torch.Tensor, moved: torch.Tensor) -> torch.Tensor:
        """The penalty (module docstring), a float32 scalar. ``point`` float[>= n_hidden]: the
        head's differentiable point prediction at the batch's hidden numbers (row-major; the
        first ``n_hidden`` are the moved records'); ``moved`` float[2·n_hidden]: the same at the
        copies' hidden numbers (row-major over :meth:`rows`: the far copies, then the near)."""
        n, spec = self.n_hidden, self.spec
        f_far, f_near, f0 = moved[:n], moved[n:], point[:n]
        if not spec.reach:
            bend = (f_far + f_near - 2 * f0) / spec.step**2
        else:  # the second derivative of the parabola through (a, f(a)), (0, f(0)) and (b, f(b))
            counts = self.hidden.sum(1)
            a, b = (x.repeat_interleave(counts).to(point.dtype) for x in (self.near, self.far))
            bend = 2 * (f_far / (b * (b - a)) + f_near / (a * (a - b)) + f0 / (a * b))
        return spec.weight * bend.float().pow(2).mean()


def _twice(t: torch.Tensor) -> torch.Tensor:
    """``t`` [n, ...] stacked on itself along the first dimension -> [2n, ...]."""
    return torch.cat([t, t])


def stencil(batch: Batch, spec: Curvature) -> Stencil | None:
    """The moved copies of ``batch``'s first ``ceil(share·B)`` records (module docstring): every
    visible number moved along one random unit direction per record (drawn from torch's generator),
    by ``-step`` and by ``step + c``; a record with a value the encoding cannot hold once moved
    stays where it is. None where those records hide no number or show none (no penalty)."""
    ids, feats, num = batch["ids"], batch["feats"], batch["num_hidden"]
    take = min(len(ids), max(1, math.ceil(spec.share * len(ids))))
    ids, feats, num = ids[:take], feats[:take], num[:take]
    visible = shown_numbers(ids)
    n_hidden = int(num.sum())
    if not n_hidden or not bool(visible.any()):
        return None
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
    moved = _twice(feats)
    both = torch.cat([far, near])[torch.cat([of_visible, of_visible + take])]
    moved[_twice(visible)] = spec.encoding.encode(_twice(values) + both * _twice(u)).to(feats.dtype)
    return Stencil(moved, far, near, num, n_hidden, spec)
