"""MLM masking: which tokens of a batch are hidden, drawn from seeds only.

:class:`MLMCollator` draws the masks (seeded per batch) and builds batches with
:func:`scinum.tokens.batch.make_batch` (shared with inference, which never imports Lightning).
Encodings that spell a number in ``k`` tokens (the text baselines P10/P1000/B1999/FP15): a masked
number masks *all* its tokens — :func:`make_batch` widens any hidden token of a number to its
whole span, and :class:`MLMCollator` draws one mask decision per number (at its first token), so
a number is hidden with probability ``mask_prob`` whatever ``k`` is.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..tokens.batch import MASK_PROB, Batch, hidden_layout, make_batch
from ..tokens.codec import Codec, Vocabulary
from .config import RunConfig
from ..errors import ConfigError
from ..tokens.normalize import Normalizer
from ..tokens.record_line import RecordLine

__all__ = ["MLMCollator", "check_mask_probs"]


class MLMCollator:
    """Collate ``(Encoded, batch_seed)`` or ``(Encoded, batch_seed, targeted)`` items into a
    :func:`make_batch` dict with random masking.

    Each real token is hidden with probability ``mask_prob`` (xVal: 0.2; 0 is allowed with
    ``mask_fields_prob > 0``), and each number of ``targeted`` (bool[L], or uint8[L] for several
    probabilities: the numbers of the fields named by ``data.mask_fields``, at their first token)
    is hidden with probability ``mask_fields_prob`` in addition (a sequence: value ``g`` of
    ``targeted`` is hidden with its ``g``-th probability, 0 never); with ``mask_fields_alone`` a record where one of them is
    hidden (by either draw) has nothing else hidden: the question is asked with every other
    number visible, as :mod:`scinum.fill` asks it. Draws come from a generator seeded by
    ``(seed, batch_seed)``, so a batch's masks depend only on the seeds — not on worker
    processes or on the order batches are produced.

    A number spelled in several tokens is hidden iff the draw at its first token says so, and
    then all its tokens are (the draws at its other tokens are ignored): each number is hidden
    with probability ``mask_prob``, whatever its token count, rather than ``1-(1-p)^k``.

    ``line``: the hidden numbers of its fields are trained under it (:func:`make_batch`).

    Each batch also carries its :class:`~scinum.tokens.batch.HiddenLayout` (``hidden_layout``),
    the last block's rows rounded to ``row_multiple`` (:func:`~scinum.tokens.batch.row_multiple`
    of the device that trains): made here, in the loader's workers, so that a GPU step never
    waits for the device to count the hidden tokens (experiments/gpu-rows-h200).
    """

    def __init__(
        self,
        vocab: Vocabulary,
        normalizer: Normalizer,
        encoding: Any,
        mask_prob: float = MASK_PROB,
        seed: int = RunConfig.seed,
        pad_to: int = 1,
        mask_fields_prob: float | Sequence[float] = 0.0,
        structure: bool = False,
        mask_fields_alone: bool = False,
        structure_tokens: bool = True,
        line: RecordLine | None = None,
        row_multiple: int = 1,
    ):
        check_mask_probs(mask_prob, mask_fields_prob)
        self.row_multiple = row_multiple
        self.vocab, self.normalizer, self.encoding = vocab, normalizer, encoding
        self.mask_prob, self.seed, self.pad_to = mask_prob, seed, pad_to
        self.structure = structure
        #: probability of hiding a number by the value ``targeted`` holds for it (0: not named)
        self.asked = np.array([0.0, *np.atleast_1d(mask_fields_prob)], float)
        self.mask_fields_alone, self.structure_tokens = mask_fields_alone, structure_tokens
        self.line = line
        self.codec = Codec(vocab, encoding)

    def __call__(self, items: Sequence[tuple]) -> Batch:
        seqs = [it[0] for it in items]
        rng = np.random.default_rng([self.seed, int(items[0][1])])
        hide = [rng.random(len(s)) < self.mask_prob for s in seqs]
        if self.codec.tokens_per_number > 1:
            for s, h in zip(seqs, hide):  # one decision per number: the draw at its start
                starts = self.codec.number_starts(s.ids)
                drawn = h[starts]
                h[s.fields >= 0] = False
                h[starts] = drawn
        for it, h in zip(items, hide):
            if len(it) > 2 and it[2] is not None:
                named = (it[2] > 0) & (h | (rng.random(len(h)) < self.asked[it[2].astype(np.intp)]))  # either draw
                if self.mask_fields_alone and named.any():
                    h[:] = named  # asked alone: every other number visible
                else:
                    h |= named
        batch = make_batch(
            seqs,
            hide,
            codec=self.codec,
            normalizer=self.normalizer,
            encoding=self.encoding,
            pad_to=self.pad_to,
            structure=self.structure,
            structure_tokens=self.structure_tokens,
            line=self.line,
        )
        batch["hidden_layout"] = hidden_layout(batch, self.row_multiple)
        return batch


def check_mask_probs(mask_prob: float, mask_fields_prob: float | Sequence[float]) -> None:
    """Raise :class:`~scinum.errors.ConfigError` unless ``0 <= mask_prob < 1``, every
    ``mask_fields_prob`` is in [0, 1] and something is hidden (``mask_prob`` 0 needs mask_fields)."""
    if not 0 <= mask_prob < 1:
        raise ConfigError(f"data.mask_prob must be in [0, 1), got {mask_prob}")
    probs = np.atleast_1d(np.asarray(mask_fields_prob, float))
    if not ((probs >= 0) & (probs <= 1)).all():
        raise ConfigError(f"data.mask_fields_prob must be in [0, 1], got {mask_fields_prob}")
    if mask_prob == 0 and not (probs > 0).any():
        raise ConfigError(
            "data.mask_prob is 0 and no data.mask_fields are hidden: nothing to "
            "learn from (name the fields to fill in data.mask_fields, or raise mask_prob)"
        )
