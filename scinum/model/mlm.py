"""The whole trainable model: the transformer trunk (:mod:`scinum.model.trunk`) with a number head
(:mod:`scinum.heads`), which is what a checkpoint's weights hold. :class:`NumberMLM` owns its
training loss (:meth:`NumberMLM.losses`: the masked tokens' cross-entropy, the head's loss at the
hidden numbers, the curvature penalty of :mod:`scinum.model.curvature`) and its prediction
(:meth:`NumberMLM.predict`), both in normalized units.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

import torch
import torch.nn.functional as F
from torch import nn

from ..heads import NumberHead
from ..tokens.batch import hidden_layout, hidden_rows, row_multiple
from .config import ModelConfig
from .curvature import Curvature, stencil
from .trunk import Transformer

if TYPE_CHECKING:
    from ..tokens.batch import Batch

__all__ = ["NumberMLM", "NumberOutputs", "LOSS_NAMES"]

#: the scalars :meth:`NumberMLM.losses` always returns (besides per-field ``err/<field>``)
LOSS_NAMES = ("loss", "token_ce", "number_loss", "number_abs_err")


@dataclass
class NumberOutputs:
    """What :meth:`NumberMLM.predict` says at the N hidden number tokens of a batch (row-major):
    ``values`` float64[N] (normalized units), ``uncertainty`` {name: [N, ...]} (the head's, in
    normalized units), ``token`` int64[N]: the token head's argmax there, ``counts`` int64[B]:
    hidden number tokens per sequence."""

    values: torch.Tensor
    uncertainty: dict[str, Any]
    token: torch.Tensor
    counts: torch.Tensor


class NumberMLM(nn.Module):
    """Trunk plus number head: the whole trainable model (what a checkpoint's weights hold).
    It owns its loss (:meth:`losses`) and its prediction (:meth:`predict`)."""

    def __init__(self, cfg: ModelConfig, head: NumberHead):
        super().__init__()
        self.trunk = Transformer(cfg)
        self.head = head

    def forward(
        self,
        ids: torch.Tensor,
        feats: torch.Tensor,
        attend: torch.Tensor | None = None,
        rows: torch.Tensor | None = None,
        structure: torch.Tensor | None = None,
    ) -> torch.Tensor:
        return self.trunk(ids, feats, attend, rows, structure)

    def configure_optimizers(self, lr: float, weight_decay: float, betas: Sequence[float]) -> torch.optim.AdamW:
        """AdamW with weight decay on the matrices and embeddings (parameters of >= 2 dims) and
        none on gains and biases (as nanoGPT's ``GPT.configure_optimizers``)."""
        params = list(self.parameters())
        beta1, beta2 = betas
        # not fused=True: Lightning refuses gradient clipping with a fused optimizer under mixed
        # precision, and at the quick shapes it saved 2-3 % of a bare CPU step, lost in the noise
        # of a Lightning step (benchmarks/train_step_overhead.py)
        return torch.optim.AdamW(
            [
                {"params": [p for p in params if p.dim() >= 2], "weight_decay": weight_decay},
                {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0},
            ],
            lr=lr,
            betas=(beta1, beta2),
        )

    def losses(
        self,
        batch: Batch,
        number_loss_weight: float = 1.0,
        fields: dict[int, str] | None = None,
        mean_over: str = "numbers",
        curvature: Curvature | None = None,
    ) -> dict[str, Any]:
        """Training losses of a :func:`~scinum.tokens.batch.make_batch` batch.

        ``loss`` = ``token_ce`` (mean over hidden tokens) + ``number_loss_weight`` ·
        ``number_loss`` (mean over hidden number tokens; each 0, not NaN, when a batch hides
        none; ``mean_over="fields"``: the mean over the batch's fields of each field's mean),
        and ``number_abs_err``: mean |prediction − target| (normalized units, over the
        predictions that are numbers), all float32 scalars. ``fields``: field id -> name whose
        error is also returned on its own, as ``err/<name>``: (mean error, count). ``curvature``
        (in training, with a weight): its penalty (:mod:`scinum.model.curvature`) is added to
        ``loss`` and returned as ``curvature``."""
        st = stencil(batch, curvature) if curvature is not None and curvature.weight and self.training else None
        # only the hidden tokens' hidden states enter the losses: the last block computes those
        # rows alone (the same losses and gradients as every row; a step in less time)
        tok = batch["targets"] != -100
        lay = batch.get("hidden_layout") or hidden_layout(batch, row_multiple(tok.device))
        rows = lay.rows
        if st is None:
            h = self(batch["ids"], batch["feats"], batch["attend"], rows, batch.get("structure")).flatten(0, 1)[lay.take]
        else:  # the penalty's moved copies appended to the batch: one pass for all (curvature.py)
            moved = st.rows(batch)
            ids, feats, attend = (torch.cat([batch[k], moved[k]]) for k in ("ids", "feats", "attend"))
            structure = batch.get("structure")
            structure = None if structure is None else torch.cat([structure, moved["structure"]])
            moved_rows, moved_valid = hidden_rows(moved["num_hidden"], row_multiple(tok.device))
            h, h_moved = self.trunk.forward_two_row_sets(ids, feats, attend, structure, len(batch["ids"]), (rows, moved_rows))
            h, h_moved = h.flatten(0, 1)[lay.take], h_moved[moved_valid]
        # h: float[T, d] at the T hidden tokens, row-major; hidden numbers are hidden tokens
        logits = self.trunk.token_logits(h).float()
        token_ce = F.cross_entropy(logits, lay.targets, reduction="sum") / tok.sum().clamp(min=1)
        out = self.head(h[lay.numbers], logits[lay.numbers])
        per_number = self.head.loss(out, batch["num_target"])
        if mean_over == "fields" and len(per_number):
            _, which, count = torch.unique(batch["num_field"], return_inverse=True, return_counts=True)
            number_loss = (per_number / count[which]).sum() / len(count)
        else:
            number_loss = per_number.sum() / batch["num_hidden"].sum().clamp(min=1)
        with torch.no_grad():
            err = (self.head.predict(out) - batch["num_target"]).abs()
            finite = err.isfinite()
            abs_err = torch.where(finite, err, 0).sum() / finite.sum().clamp(min=1)
        res: dict[str, Any] = dict(zip(LOSS_NAMES, (token_ce + number_loss_weight * number_loss, token_ce, number_loss, abs_err.float())))
        if curvature is not None and curvature.weight and self.training:  # 0 where the records read hide or show no number
            res["curvature"] = h.new_zeros((), dtype=torch.float32)
            if st is not None:
                moved_point = self.head.smooth_point(self.head(h_moved, self.trunk.token_logits(h_moved)))
                res["curvature"] = st.penalty(self.head.smooth_point(out), moved_point)
            res["loss"] = res["loss"] + res["curvature"]
        for fid, name in (fields or {}).items():
            on = (batch["num_field"] == fid) & finite
            if bool(on.any()):
                res[f"err/{name}"] = (err[on].mean().float(), int(on.sum()))
        return res

    @torch.no_grad()
    def predict(self, batch: Batch, quantiles: Any = ()) -> NumberOutputs:
        """The head's prediction at the hidden number tokens (``batch["num_hidden"]``); the last
        block computes only those rows. ``quantiles`` (levels [Q], or [N, Q] per row): passed to
        the head's uncertainty."""
        num = batch["num_hidden"]
        rows, valid = hidden_rows(num, row_multiple(num.device))
        h = self(batch["ids"], batch["feats"], batch["attend"], rows, batch.get("structure"))[valid]
        logits = self.trunk.token_logits(h)
        out = self.head(h, logits)
        return NumberOutputs(self.head.predict(out), self.head.uncertainty(out, quantiles), logits.argmax(-1), num.sum(1))
