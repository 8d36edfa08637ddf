"""The trunk's shape (:class:`ModelConfig`): the ``model:`` section of a run config, with the
position encodings and the ways number features enter that :mod:`scinum.model.trunk` implements
(its module docstring says what each one does).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from ..util.schema import fraction, one_of, positive

__all__ = ["ModelConfig", "POSITIONS", "COMBINES", "VALUE_PATHS", "value_path_text", "MAX_TRUNK_PARAMETERS", "MAX_POSITIONS"]

#: position encodings of the trunk (see the module docstring)
POSITIONS = ("learned", "rope", "both", "structure")
#: how number features enter the trunk (see the module docstring)
COMBINES = ("multiply", "add", "replace", "none")
#: what the attention values and the number head read (see :mod:`scinum.model.trunk`)
VALUE_PATHS = ("layernorm", "linear", "linear_mlp")
#: the largest trunk (weights of its blocks) a config may ask for: 1e11 float32 weights are
#: 400 GB, past any single machine; a typo such as d_model 1000000000 is refused in one line
MAX_TRUNK_PARAMETERS = 1e11
#: the longest position table a config may ask for (tokens): far past any record a run trains on
#: (``data.max_record_tokens``, 16384 by default); a typo such as 1000000000 is refused in one line
MAX_POSITIONS = 1 << 20


@dataclass
class ModelConfig:
    """Size and shape of the trunk; its fields but :attr:`DERIVED` are the ``model:`` section
    of a run config (:mod:`scinum.train.config`), with these defaults. ``vocab_size`` and
    ``n_fields`` (its numeric fields) come from the :class:`~scinum.tokens.codec.Vocabulary`;
    ``num_dim`` and ``combine`` from the number encoding.
    ``max_positions``: the length of the learned position table (tokens); a run leaves it None
    and :func:`scinum.train.fit.make_meta` sets it to the longest training record, so a built
    trunk with a learned table always names its length."""

    #: fields set from the data and the encoding, not by a run config
    DERIVED: ClassVar[tuple[str, ...]] = ("vocab_size", "num_dim", "combine", "n_fields")

    vocab_size: int
    num_dim: int = 1
    combine: str = "multiply"
    d_model: int = positive(64)
    n_layers: int = positive(2)
    n_heads: int = positive(4)
    mlp_ratio: int = positive(4)
    dropout: float = fraction(0.0)
    rope_base: float = positive(10000.0)
    positions: str = one_of("structure", POSITIONS, "position encoding")
    max_positions: int | None = positive(None)
    value_path: str = one_of("linear", VALUE_PATHS, "value path")
    #: whether the trunk reads bracket runs and the keys of numbers as tokens (True), or leaves
    #: them out and reads what they say from the structure positions alone (False; needs
    #: ``positions: structure``): shorter sequences (:func:`scinum.tokens.structure.read_tokens`)
    structure_tokens: bool = True
    n_fields: int = 0

    def flops_per_token(self, seq_len: float, training: bool = True) -> float:
        """Model FLOPs per real token at a context of ``seq_len`` tokens (the usual count:
        2 per multiply-add of the trunk's linear maps, ``4·seq_len·d`` per layer for the attention
        scores and their weighted sum; embeddings, norms and the heads at masked positions left
        out). ``training``: forward + backward = 3× the forward."""
        d, layers = self.d_model, self.n_layers
        per_layer = 2 * (4 * d * d + 2 * self.mlp_ratio * d * d) + 4 * seq_len * d
        forward = layers * per_layer + (2 * self.num_dim * d if self.combine in ("add", "replace") else 0)
        return float(3 * forward if training else forward)

    def __post_init__(self) -> None:
        if self.d_model % self.n_heads or (self.d_model // self.n_heads) % 2:
            raise ValueError(f"d_model {self.d_model} must split into {self.n_heads} heads of even size")
        if self.combine not in COMBINES:
            raise ValueError(f"combine must be one of {COMBINES}, got {self.combine!r}")
        if (self.combine == "none") != (self.num_dim == 0):
            raise ValueError(
                f"combine {self.combine!r} with num_dim {self.num_dim}: features enter "
                "the trunk exactly when there are some (combine 'none' iff num_dim 0)"
            )
        if self.combine == "replace" and self.num_dim > self.d_model:
            raise ValueError(
                f"combine 'replace' puts {self.num_dim} features in place of the token "
                f"embedding: model.d_model {self.d_model} must be >= {self.num_dim}"
            )
        trunk = self.n_layers * (4 + 2 * self.mlp_ratio) * self.d_model**2  # weights, without tables
        if trunk > MAX_TRUNK_PARAMETERS:
            raise ValueError(
                f"d_model {self.d_model} x n_layers {self.n_layers} (mlp_ratio "
                f"{self.mlp_ratio}) is a trunk of {trunk:.3g} weights, over the "
                f"{MAX_TRUNK_PARAMETERS:.0e} this scinum builds"
            )
        if self.value_path not in VALUE_PATHS:
            raise ValueError(f"value_path must be one of {VALUE_PATHS}, got {self.value_path!r}")
        if self.positions not in POSITIONS:
            raise ValueError(f"positions must be one of {POSITIONS}, got {self.positions!r}")
        if self.positions != "rope" and not (isinstance(self.max_positions, int) and self.max_positions > 0):
            raise ValueError(
                f"positions={self.positions!r} needs max_positions (the length of the "
                f"learned table) > 0, got {self.max_positions!r} (a run config's null "
                f"is set to the longest training record)"
            )
        if not isinstance(self.structure_tokens, bool):
            raise ValueError(f"structure_tokens must be true or false, got {self.structure_tokens!r}")
        if not self.structure_tokens and self.positions != "structure":
            raise ValueError(
                f"structure_tokens false leaves brackets and keys to the structure positions: it needs "
                f"positions 'structure', got {self.positions!r}"
            )
        if self.max_positions is not None and not (type(self.max_positions) is int and self.max_positions <= MAX_POSITIONS):
            raise ValueError(f"max_positions must be an integer of at most {MAX_POSITIONS} tokens, got {self.max_positions!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ModelConfig":
        """Inverse of :meth:`to_dict`. A dict without ``positions`` (checkpoints written before
        the option existed) describes a RoPE trunk, the only kind there was; one without
        ``value_path`` the ``"layernorm"`` trunk, the only one there was before the key."""
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown model config keys {sorted(unknown)}")
        if "positions" not in d:
            d = {**d, "positions": "rope", "max_positions": None}
        if "value_path" not in d:
            d = {**d, "value_path": "layernorm"}
        return cls(**d)


def value_path_text(model: dict[str, Any]) -> str:
    """``", linear value path"`` (``", linear value and MLP path"``) for a ``model:`` section (or
    :meth:`ModelConfig.to_dict`) of a trunk on the ``linear`` (``linear_mlp``) value path, for the
    texts that describe a trunk; else nothing (the paper's, and older configs without the key)."""
    return {"linear": ", linear value path", "linear_mlp": ", linear value and MLP path"}.get(model.get("value_path", ""), "")
