"""The transformer trunk: a bidirectional encoder in the xVal paper's GPT-2 style (seed 002, App. A).

* pre-LN blocks, MLP width ``mlp_ratio·d`` with GELU, no biases anywhere in the trunk
  (linear layers and LayerNorms), init std ``(2·fan_in·n_layers)^-1/2`` for every linear map,
  token head tied to the token embedding;
* attention through :func:`torch.nn.functional.scaled_dot_product_attention`, bidirectional,
  with padding masked out as keys (a pad is never attended to; its own output is never used);
* positions (``ModelConfig.positions``):

  - ``"learned"`` — the paper's trunk (seed 002, §2.1 and App. A): a learned table of
    ``max_positions`` vectors *added* to the token embeddings before the first block. For xVal
    this sum is the mechanism itself: the first LayerNorm sees ``x·u + p``, so a number's
    magnitude survives normalization. Without an additive vector, ``LN(x·u) = sign(x)·LN(u)``
    and the first attention layer sees only the sign of every number.
  - ``"rope"`` — rotary embeddings on queries and keys, no additive vector: no maximum length,
    relative offsets (good for long, repetitive records such as ERA5 station series), but for
    xVal the first layer is blind to magnitudes (see above).
  - ``"both"`` — the learned table *and* RoPE.
  - ``"structure"`` — positions from the record's JSON structure instead of its token order
    (:mod:`scinum.tokens.structure`): the sum of a learned vector per list depth for the token's index
    in that list from the start, one for its index from the end, and one for the field of a
    number token (``n_fields`` + 1 rows, row 0 for tokens that are not numbers). ``data[3][1][0]``
    then gets the same vector in records of any layout (2 or 4 planets), where a flat position
    would mean another time step, planet and coordinate in each; a text spelling's tokens also
    get their place in the number. Additive, as xVal needs; index tables of ``max_positions``
    rows (an index past the table takes its last row).

  ``structure`` is the default, chosen by the experiments in ``experiments/planets-parity``
  (``experiments/README.md``). A learned table has no vector past ``max_positions``: longer
  inputs raise ``ValueError``.

* value path (``ModelConfig.value_path``): what a number's value passes through on its way to
  another number's prediction.

  - ``"layernorm"`` — the paper's pre-LN trunk: attention values are read from ``LN(x)`` and the
    number head from the final ``LN(x)``. Every value another token receives is normalized, so
    a prediction is a bounded, saturating function of the inputs: it flattens out past the
    values seen in training.
  - ``"linear"`` — attention values (``W_v x``) and the number head read the residual stream
    ``x`` as it is; queries, keys, the MLPs and the token head still read LayerNorms. A visible
    number then reaches a hidden one's prediction through linear maps (weighted by the
    attention), besides the MLPs' saturating path, so a prediction can follow a trend past the
    training range. The default (chosen in ``experiments/planets-parity``).
    The trunk's output (:meth:`Transformer.forward`) is then the residual stream, and
    :meth:`Transformer.token_logits` normalizes it for the token head.
  - ``"linear_mlp"`` — ``"linear"``, and the MLPs read the residual stream un-normalized too
    (``fc(x)``, not ``fc(LN(x))``; the blocks then have no second LayerNorm): only queries, keys
    and the token head are normalized. An MLP's GELU is linear for large inputs, so a number's
    value also passes the MLPs without being squashed to the scale of one LayerNorm
    (``scinum.Regressor``'s, chosen in ``experiments/tables-by-range-mlp-path``).

Numbers enter at their tokens as the encoding prescribes (``combine``): ``"multiply"`` (xVal)
scales the token embedding by the single feature, ``"add"`` adds a linear map (no bias) of the
features, ``"replace"`` puts the features themselves (zero-padded to ``d_model``, times
``sqrt(d_model/num_dim)``) in place of the token embedding wherever they are not all zero (the
BitTokens reference's ``zero_pad``), ``"none"`` (``num_dim == 0``: the text baselines, whose tokens spell the number) takes
no features. The caller (:mod:`scinum.tokens.batch`) hands in features that are already *neutral*
where no visible number sits (1 for multiply, 0 for add), so a masked number's value cannot
reach the trunk: its token is ``[MASK]`` and its features are neutral.

The whole trainable model, this trunk with a number head, its loss and its prediction, is
:class:`scinum.model.mlm.NumberMLM`.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from ..tokens.structure import COLUMNS
from .config import ModelConfig

__all__ = ["Transformer", "Block"]


def _table_length(cfg: ModelConfig) -> int:
    """``cfg.max_positions``, which a trunk with a learned table (positions other than "rope") has
    (:class:`ModelConfig` checks)."""
    assert cfg.max_positions is not None
    return cfg.max_positions


class _SummedRows(torch.autograd.Function):
    """``weight[idx].sum(-2)`` for idx int64[N, C] -> [N, d] without the [N, C, d] gather: the
    rows summed by ``embedding_bag``, their gradient added back column by column (``index_add_``,
    C calls over N rows) instead of an embedding backward over N·C gathered rows (3-5x less
    time on the CPU at the structure positions' shapes). Float32 on the CPU (the trunk's
    training path there)."""

    @staticmethod
    def forward(ctx: Any, idx: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(idx)
        ctx.rows = weight.shape[0]
        return F.embedding_bag(idx, weight, mode="sum")

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[None, torch.Tensor]:
        (idx,) = ctx.saved_tensors
        out = grad.new_zeros(ctx.rows, grad.shape[1])
        for c in range(idx.shape[1]):
            out.index_add_(0, idx[:, c], grad)
        return None, out


def _rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate pairs (first half, second half) of the head dim.

    x: [B, H, L, hd] (queries or keys); cos/sin: [L, hd/2], or [B, 1, M, hd/2] for queries at M rows.
    """
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


class Block(nn.Module):
    """Pre-LN transformer block without biases."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        d = cfg.d_model
        self.n_heads, self.dropout = cfg.n_heads, cfg.dropout
        self.linear_values = cfg.value_path in ("linear", "linear_mlp")
        self.ln1 = nn.LayerNorm(d, bias=False)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.proj = nn.Linear(d, d, bias=False)
        # the MLP's input norm; none on the linear_mlp path (an unused weight would stall DDP)
        self.ln2 = nn.Identity() if cfg.value_path == "linear_mlp" else nn.LayerNorm(d, bias=False)
        self.fc = nn.Linear(d, cfg.mlp_ratio * d, bias=False)
        self.fc_out = nn.Linear(cfg.mlp_ratio * d, d, bias=False)
        self.drop = nn.Dropout(cfg.dropout)

    def _qkv(
        self, x: torch.Tensor, rope: tuple[torch.Tensor, torch.Tensor] | None, rows: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, ...]:
        """Queries, keys (rotated where ``rope``) and values, each [B, H, L, hd]; with ``rows``
        int64[B, M] the queries only at those positions, [B, H, M, hd]."""
        B, L, d = x.shape
        if rows is not None:
            return self._qkv_at(x, rope, rows)
        if self.linear_values:  # queries and keys from LN(x), values from x itself
            w_qk, w_v = self.qkv.weight.split([2 * d, d])
            q, k = F.linear(self.ln1(x), w_qk).view(B, L, 2, self.n_heads, d // self.n_heads).permute(2, 0, 3, 1, 4)
            v = F.linear(x, w_v).view(B, L, self.n_heads, d // self.n_heads).transpose(1, 2)
        else:
            # [3, B, H, L, hd] split by unbind, whose gradient is one stack (slicing's would be a
            # zero-filled copy of the whole projection for each slice)
            q, k, v = self.qkv(self.ln1(x)).view(B, L, 3, self.n_heads, d // self.n_heads).permute(2, 0, 3, 1, 4)
        if rope is not None:
            q, k = _rope(q, *rope), _rope(k, *rope)
        return q, k, v

    def _qkv_at(self, x: torch.Tensor, rope: tuple[torch.Tensor, torch.Tensor] | None, rows: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """:meth:`_qkv` with the queries projected only at ``rows`` int64[B, M] (keys and values
        at every position): the last block of a pass that reads a few rows."""
        B, L, d = x.shape
        heads = (self.n_heads, d // self.n_heads)
        w_q, w_kv = self.qkv.weight.split([d, 2 * d])
        n = self.ln1(x)
        q = F.linear(n.gather(1, rows[:, :, None].expand(-1, -1, d)), w_q).view(B, -1, *heads).transpose(1, 2)
        if self.linear_values:  # keys from LN(x), values from x itself
            w_k, w_v = w_kv.split([d, d])
            k = F.linear(n, w_k).view(B, L, *heads).transpose(1, 2)
            v = F.linear(x, w_v).view(B, L, *heads).transpose(1, 2)
        else:
            k, v = F.linear(n, w_kv).view(B, L, 2, *heads).permute(2, 0, 3, 1, 4)
        if rope is not None:
            cos, sin = rope
            q, k = _rope(q, cos[rows][:, None], sin[rows][:, None]), _rope(k, cos, sin)
        return q, k, v

    def attention(self, x: torch.Tensor, rope: tuple[torch.Tensor, torch.Tensor] | None, attn_mask: torch.Tensor | None) -> torch.Tensor:
        """The attention weights this block applies to ``x`` [B, L, d]: float[B, H, L (query),
        L (key)], each row summing to 1 over the keys it may attend (what
        :func:`~torch.nn.functional.scaled_dot_product_attention` computes inside, without dropout)."""
        q, k, _ = self._qkv(x, rope)
        logits = q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5
        if attn_mask is not None:
            logits = logits.masked_fill(~attn_mask, float("-inf"))
        return logits.softmax(-1)

    def forward(
        self,
        x: torch.Tensor,
        rope: tuple[torch.Tensor, torch.Tensor] | None,
        attn_mask: torch.Tensor | None,
        rows: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """``rope``: (cos, sin) [L, hd/2] to rotate queries and keys, or None (no RoPE).

        ``rows`` int64[B, M]: compute the output only at these positions of each sequence (keys
        and values still come from all of them) -> [B, M, d]; None: every position -> [B, L, d].
        """
        B, d = x.shape[0], x.shape[-1]
        q, k, v = self._qkv(x, rope, rows)
        if rows is not None:  # the residual stream of the wanted positions only
            x = x.gather(1, rows[:, :, None].expand(-1, -1, d))
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, dropout_p=self.dropout if self.training else 0.0)
        x = x + self.drop(self.proj(a.transpose(1, 2).reshape(B, x.shape[1], d)))
        return x + self.drop(self.fc_out(F.gelu(self.fc(self.ln2(x)))))


class Transformer(nn.Module):
    """Token + number embedding (+ learned positions) -> ``n_layers`` blocks -> final LayerNorm
    (``value_path`` ``"layernorm"``; ``"linear"``, ``"linear_mlp"``: in the token head only); tied
    token head."""

    inv_freq: torch.Tensor  # buffer: RoPE's frequencies
    depth_offsets: torch.Tensor  # buffer (positions "structure"): each depth's first row in list_pos

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.num_proj = nn.Linear(cfg.num_dim, cfg.d_model, bias=False) if cfg.combine == "add" else None
        self.pos = nn.Embedding(_table_length(cfg), cfg.d_model) if cfg.positions in ("learned", "both") else None
        self.list_pos: nn.Embedding | None
        self.field_pos: nn.Embedding | None
        if cfg.positions == "structure":  # index rows per depth (row 0: not in that list) + fields
            self.list_pos = nn.Embedding(COLUMNS * (_table_length(cfg) + 1), cfg.d_model)
            self.field_pos = nn.Embedding(cfg.n_fields + 1, cfg.d_model)
            self.register_buffer("depth_offsets", torch.arange(COLUMNS) * (_table_length(cfg) + 1), persistent=False)
        else:
            self.list_pos = self.field_pos = None
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(cfg.d_model, bias=False)
        hd = cfg.d_model // cfg.n_heads
        self.register_buffer("inv_freq", cfg.rope_base ** (-torch.arange(0, hd, 2, dtype=torch.float32) / hd), persistent=False)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """xVal/GPT-2 init: linear maps N(0, (2·fan_in·n_layers)^-1/2); token and position
        embeddings N(0, d^-1/2) (unit-RMS rows, so the tied head starts with O(1) logits and a
        position vector is as large as a token's); LayerNorm weight 1."""
        n = self.cfg.n_layers
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, std=(2 * m.in_features * n) ** -0.5)
        for emb in (self.tok, self.pos):
            if emb is not None:
                nn.init.normal_(emb.weight, std=self.cfg.d_model**-0.5)
        for emb in (self.list_pos, self.field_pos):  # their sum of COLUMNS + 1 rows: unit RMS
            if emb is not None:
                nn.init.normal_(emb.weight, std=(self.cfg.d_model * (COLUMNS + 1)) ** -0.5)

    def embed(self, ids: torch.Tensor, feats: torch.Tensor, structure: torch.Tensor | None = None) -> torch.Tensor:
        """The first block's input: ids int64[B, L], feats float32[B, L, num_dim] (neutral off
        visible numbers) -> [B, L, d]; number features combined with the token embedding, plus
        the learned position vector where the trunk has one. ``structure`` int64[B, L,
        1 + COLUMNS] (the batch's: field id, then :func:`scinum.tokens.structure.list_indices`; -1 for
        none) is required by ``positions: structure`` and ignored otherwise."""
        x = self.tok(ids)
        if self.cfg.combine == "multiply":
            x = x * feats[..., :1].to(x.dtype)
        elif self.cfg.combine == "add":
            assert self.num_proj is not None  # made for combine "add"
            x = x + self.num_proj(feats.to(x.dtype))
        elif self.cfg.combine == "replace":  # neutral features (0) off visible numbers
            at = feats.ne(0).any(-1, keepdim=True)
            f = feats.to(x.dtype) * (self.cfg.d_model / self.cfg.num_dim) ** 0.5
            x = torch.where(at, F.pad(f, (0, self.cfg.d_model - self.cfg.num_dim)), x)
        if self.pos is not None:
            L = ids.shape[1]
            if L > _table_length(self.cfg):
                raise ValueError(f"sequence of {L} tokens is longer than the learned position table ({self.cfg.max_positions})")
            x = x + self.pos.weight[:L]
        if self.list_pos is not None:
            assert self.field_pos is not None  # made with list_pos
            if structure is None:
                raise ValueError("positions 'structure' needs the batch's structure (scinum.tokens.batch.make_batch(..., structure=True))")
            if int(structure[..., 0].max()) >= self.cfg.n_fields:
                raise ValueError(
                    f"a number of field id {int(structure[..., 0].max())} in a trunk of "
                    f"n_fields {self.cfg.n_fields} (the vocabulary's numeric fields)"
                )
            idx = (structure[..., 1:] + 1).clamp(max=_table_length(self.cfg)) + self.depth_offsets
            weight = self.list_pos.weight
            if weight.dtype != torch.float32 or torch.is_grad_enabled() and weight.device.type != "cpu":
                x = x + self.list_pos(idx).sum(-2) + self.field_pos(structure[..., 0] + 1)
            else:  # the same float32 sums without the [B, L, COLUMNS, d] gather (fill's ~1/5; training on the CPU)
                flat = idx.reshape(-1, idx.shape[-1])
                rows = _SummedRows.apply(flat, weight) if torch.is_grad_enabled() else F.embedding_bag(flat, weight, mode="sum")
                x = x + rows.view(*idx.shape[:-1], -1) + self.field_pos(structure[..., 0] + 1)
        return x

    def forward(
        self,
        ids: torch.Tensor,
        feats: torch.Tensor,
        attend: torch.Tensor | None = None,
        rows: torch.Tensor | None = None,
        structure: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Hidden states float[B, L, d]: what the number head reads (the final LayerNorm's
        output, or with ``value_path`` ``linear`` / ``linear_mlp`` the residual stream itself).

        ``attend`` bool[B, L]: True at real tokens, False at padding (None: no padding). Rows of
        padding positions are computed but meaningless. ``rows`` int64[B, M]: only the hidden
        states at these positions are wanted -> float[B, M, d]; the last block then computes
        nothing else (inference reads a few masked numbers: about 40 % fewer FLOPs at 2 layers).
        ``structure``: see :meth:`embed`.
        """
        x, rope, mask = self._to_last_block(ids, feats, attend, structure)
        return self._out(self.blocks[-1](x, rope, mask, rows))

    def forward_two_row_sets(
        self,
        ids: torch.Tensor,
        feats: torch.Tensor,
        attend: torch.Tensor | None,
        structure: torch.Tensor | None,
        first: int,
        rows: tuple[torch.Tensor, torch.Tensor],
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """:meth:`forward` of B sequences in one pass, the first ``first`` only at ``rows[0]``
        int64[first, M0] -> float[first, M0, d], the others only at ``rows[1]`` int64[B - first,
        M1] -> float[B - first, M1, d] (the last block computes nothing else): a batch and the
        curvature penalty's moved copies of its records (:meth:`NumberMLM.losses`)."""
        x, rope, mask = self._to_last_block(ids, feats, attend, structure)
        last = self.blocks[-1]
        split = (None, None) if mask is None else (mask[:first], mask[first:])
        return self._out(last(x[:first], rope, split[0], rows[0])), self._out(last(x[first:], rope, split[1], rows[1]))

    def _to_last_block(
        self, ids: torch.Tensor, feats: torch.Tensor, attend: torch.Tensor | None, structure: torch.Tensor | None
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor] | None, torch.Tensor | None]:
        """The last block's input [B, L, d] (the embedding through every block before it), and
        what every block reads besides (:meth:`_rope_and_mask`)."""
        x = self.embed(ids, feats, structure)
        rope, mask = self._rope_and_mask(x, attend)
        for block in self.blocks[:-1]:
            x = block(x, rope, mask)
        return x, rope, mask

    def _out(self, x: torch.Tensor) -> torch.Tensor:
        """The last block's output as :meth:`forward` returns it (the final LayerNorm's on the
        ``layernorm`` value path, else the residual stream itself)."""
        return self.ln_f(x) if self.cfg.value_path == "layernorm" else x

    def _rope_and_mask(
        self, x: torch.Tensor, attend: torch.Tensor | None
    ) -> tuple[tuple[torch.Tensor, torch.Tensor] | None, torch.Tensor | None]:
        """What every block reads besides ``x`` [B, L, d]: RoPE's (cos, sin) [L, hd/2] or None,
        and the padding mask bool[B, 1, 1, L] or None. On the CPU a batch without padding gets no
        mask; on an accelerator the mask is always passed, since asking whether it is all True would
        wait for the device every step (and break a compiled graph)."""
        rope = None
        if self.cfg.positions in ("rope", "both"):
            ang = torch.outer(torch.arange(x.shape[1], device=x.device, dtype=torch.float32), self.inv_freq)
            rope = (ang.cos().to(x.dtype), ang.sin().to(x.dtype))
        mask = None if attend is None or (attend.device.type == "cpu" and bool(attend.all())) else attend[:, None, None, :]
        return rope, mask

    @torch.no_grad()
    def attention_maps(
        self, ids: torch.Tensor, feats: torch.Tensor, attend: torch.Tensor | None = None, structure: torch.Tensor | None = None
    ) -> list[torch.Tensor]:
        """Each block's attention weights on this input (:meth:`Block.attention`): a list of
        ``n_layers`` float[B, H, L, L] (query, key); arguments as :meth:`forward`'s."""
        x = self.embed(ids, feats, structure)
        rope, mask = self._rope_and_mask(x, attend)
        maps = []
        for block in self.blocks:
            assert isinstance(block, Block)
            maps.append(block.attention(x, rope, mask))
            x = block(x, rope, mask)
        return maps

    def token_logits(self, h: torch.Tensor) -> torch.Tensor:
        """Tied token head on :meth:`forward`'s hidden states: h[..., d] -> logits[..., vocab_size]
        (normalized by the final LayerNorm first where ``forward`` left that out)."""
        if self.cfg.value_path != "layernorm":
            h = self.ln_f(h)
        return h @ self.tok.weight.T
