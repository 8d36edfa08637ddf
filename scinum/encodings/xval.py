"""xVal (seed 002): one [NUM] embedding scaled by the (normalized) value.

The feature is the value itself as float32, so ``decode(encode(x))`` is ``x`` rounded to float32.
The paper normalizes values into [-5, 5] (``default_normalizer = "minmax"``); values beyond
``max_abs`` (default: the float32 range) are rejected rather than silently clipped.
"""

from __future__ import annotations

from typing import Any

import torch

from .base import NumberEncoding, register

_F32_MAX = float(torch.finfo(torch.float32).max)


@register
class XVal(NumberEncoding):
    name = "xval"
    combine = "multiply"
    default_normalizer = "minmax"

    def __init__(self, max_abs: float | None = None):
        if max_abs is not None and not max_abs > 0:
            raise ValueError(f"xval: max_abs must be > 0, got {max_abs}")
        self.max_abs = max_abs

    @property
    def dim(self) -> int:
        return 1

    def encode(self, values: torch.Tensor) -> torch.Tensor:
        return torch.as_tensor(values, dtype=torch.float64).to(torch.float32).unsqueeze(-1)

    def decode(self, features: torch.Tensor) -> torch.Tensor:
        return features[..., 0].to(torch.float64)

    def representable(self, values: torch.Tensor) -> torch.Tensor:
        limit = _F32_MAX if self.max_abs is None else self.max_abs
        return torch.as_tensor(values, dtype=torch.float64).abs() <= limit

    def range_text(self) -> str:
        return f"|x| <= {self.max_abs if self.max_abs is not None else _F32_MAX:g} after normalization"

    def make_head(self, d_model: int, vocab: Any = None):
        from ..heads import ScalarHead

        return ScalarHead(d_model)

    def options(self) -> dict[str, Any]:
        return {} if self.max_abs is None else {"max_abs": self.max_abs}

    def limits_text(self) -> str:
        return "xVal multiplies an embedding by the normalized value: values far outside the training range leave the range it saw."
