"""Mixup of records: the model asked at a point between two records of one layout, for the
number between their numbers.

A transformer fed a field that takes a few values in training (the planets' four step sizes) learns
to tell them apart and predicts the nearest one for a record between them, where a regression
carries its line across (experiments/parity.md, *Mixup of records*). Mixup (Zhang et al. 2018, for
regression: Yao et al. 2022, C-Mixup) trains the model between records as well: in a share of each
batch, each record ``i`` is paired with a record ``j`` of the same tokens (the same keys and list
lengths: only the numbers differ), a weight ``λ ~ U(0, 1)`` is drawn per pair, and the model reads

    v = λ · v_i + (1 − λ) · v_j      (every number of the record, normalized units)

with every number hidden in ``i`` or in ``j`` hidden, and pays the head's loss at those toward
their mixed values. A function linear in the record's numbers fits mixed records exactly, so a
trend between records is asked for and a step between them is paid for. With a ``reach`` r > 0,
``λ ~ U(−r, 1 + r)``: a mixed record may also lie past either record on the line through both,
where a trend is asked to go on (a pair whose mixed values the encoding cannot hold is left out).

Cost: one more forward and backward pass over the share of the batch it reads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from ..tokens.batch import hidden_rows, shown_numbers
from ..tokens.codec import MASK, SPECIALS

__all__ = ["Mixup", "check_mixup", "mixup_loss", "partners"]

_MASK_ID = SPECIALS.index(MASK)


@dataclass(frozen=True)
class Mixup:
    """What :func:`mixup_loss` computes: ``weight`` (0: none; times the mean head loss at the
    mixed records' hidden numbers), ``share`` (of each batch's records, the first
    ``ceil(share·B)``, each mixed with a partner from the whole batch), and the ``encoding`` that
    turns mixed values into the trunk's features; ``reach`` (>= 0): how far past either record
    of a pair ``λ`` may go (0: between them)."""

    weight: float
    share: float
    encoding: Any
    reach: float = 0.0


def check_mixup(encoding: Any) -> None:
    """Raise ``ValueError`` for an encoding that gives the trunk no features (its values are
    tokens, which cannot be mixed)."""
    if not encoding.dim:
        raise ValueError(f"needs an encoding that gives the trunk its values as features; {encoding.name} spells them in tokens")


def partners(tokens: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """int64[B] -> for each record of ``tokens`` (int64[B, T]), a random other record with the
    same row (its index), or itself where no other record has that row."""
    B = len(tokens)
    _, group = torch.unique(tokens, dim=0, return_inverse=True)
    shuffled = torch.randperm(B, generator=generator, device=tokens.device)
    order = shuffled[torch.argsort(group[shuffled], stable=True)]  # each group together, shuffled within
    g = group[order]
    first = torch.searchsorted(g, g)  # where each record's group starts in ``order``
    k = torch.arange(B, device=tokens.device)
    nxt = torch.where((k + 1 < B) & (g == torch.roll(g, -1)), k + 1, first)  # the next in the group, cyclic
    out = torch.empty_like(order)
    out[order] = order[nxt]
    return out


def _values(batch: dict, encoding: Any, numbers: torch.Tensor) -> torch.Tensor:
    """float64[B, T]: every number's normalized value (visible: decoded; hidden: its target)."""
    values = torch.zeros(numbers.shape, dtype=torch.float64, device=numbers.device)
    visible = numbers & ~batch["num_hidden"]
    values[visible] = encoding.decode(batch["feats"][visible]).to(torch.float64)
    values[batch["num_hidden"]] = batch["num_target"].to(torch.float64)
    return values


def mixup_loss(model: Any, batch: dict, spec: Mixup) -> torch.Tensor:
    """The mixup loss (module docstring) of ``batch`` for ``model`` (a
    :class:`~scinum.model.mlm.NumberMLM`): a float32 scalar, 0 where no record read has a
    partner or the pairs hide no number."""
    ids, feats, attend = batch["ids"], batch["feats"], batch["attend"]
    hidden = batch["targets"] != -100
    tokens = torch.where(hidden, batch["targets"], ids)  # the records' own tokens, nothing hidden
    numbers = batch["num_hidden"] | shown_numbers(ids)
    take = min(len(ids), max(1, math.ceil(spec.share * len(ids))))
    i = torch.arange(take, device=ids.device)
    j = partners(tokens)[:take]
    i, j = i[j != i], j[j != i]
    if not len(i):
        return feats.new_zeros(())
    values = _values(batch, spec.encoding, numbers)
    lam = torch.rand(len(i), 1, dtype=torch.float64, device=ids.device)
    if spec.reach:
        lam = (1 + 2 * spec.reach) * lam - spec.reach
    mixed = lam * values[i] + (1 - lam) * values[j]
    held = (spec.encoding.representable(mixed) | ~numbers[i]).all(1)
    i, j, lam, mixed = i[held], j[held], lam[held], mixed[held]
    hide = hidden[i] | hidden[j]
    ask = hide & numbers[i]
    if not bool(ask.any()):
        return feats.new_zeros(())
    show = numbers[i] & ~hide
    f = feats[i].clone()
    only_j = hidden[j] & ~hidden[i]
    f[only_j] = feats[j][only_j]  # the neutral features of what j hides
    f[show] = spec.encoding.encode(mixed[show]).to(f.dtype)
    rows, valid = hidden_rows(ask)
    structure = batch.get("structure")
    h = model(torch.where(hide, _MASK_ID, tokens[i]), f, attend[i], rows, None if structure is None else structure[i])[valid]
    out = model.head(h, model.trunk.token_logits(h))
    return spec.weight * model.head.loss(out, mixed[ask]).float().mean()
