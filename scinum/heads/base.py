"""The head interface (:class:`NumberHead`), its declaration of outputs (:class:`HeadOutputs`)
and :class:`MLPHead`, the base of the heads that read the hidden state through an MLP."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class HeadOutputs:
    """What a head produces, declared once on its class (``outputs``).

    ``point``: what :meth:`NumberHead.predict` returns, in words (``"value"``, ``"mean"``...);
    ``uncertainty``: ``None`` (none besides what fill reports as ``uncertainty_kind``) or
    ``"quantiles"`` (a predictive distribution: ``cdf``/``quantile``, 68 %/95 % intervals that
    evaluation scores and ``scinum fit`` recalibrates);
    ``columns``: the columns it adds to ``predictions.csv`` (:meth:`NumberHead.evaluation_columns`);
    ``label``: its short name in model labels, ``"<encoding>+<label>"`` (None: its kind);
    ``normalizer``: the normalizer it needs where the encoding's default is ``"none"`` (a head
    modelling values of order 1); ``density``: the column holding a per-number predictive
    density that ``scinum plot`` draws (None: none)."""

    point: str = "value"
    uncertainty: str | None = None
    columns: tuple[str, ...] = ()
    label: str | None = None
    normalizer: str | None = None
    density: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (what ``meta.json`` of a results directory records)."""
        return {
            "point": self.point,
            "uncertainty": self.uncertainty,
            "columns": list(self.columns),
            "label": self.label,
            "normalizer": self.normalizer,
            "density": self.density,
        }


class NumberHead(nn.Module):
    """The interface (module docstring). ``uncertainty_kind`` names what :meth:`uncertainty`
    returns (``none``, ``digits``, ``bits``, ``mixture``, ``tokens``): what fill reports as the
    prediction's uncertainty. ``outputs`` declares what the head produces (:class:`HeadOutputs`).

    A head kind in the registry is a subclass; :meth:`build` makes one for an encoding (by
    default ``cls(d_model, **options)``)."""

    uncertainty_kind = "none"
    #: whether the head predicts a distribution with ``cdf(out, x)`` and quantiles (its intervals
    #: can then be recalibrated, :mod:`scinum.fill.calibration`)
    has_distribution = False
    #: whether :meth:`smooth_point` gives a point prediction with a gradient (what the curvature
    #: penalty, :mod:`scinum.model.curvature`, differentiates)
    has_smooth_point = False
    outputs: ClassVar[HeadOutputs] = HeadOutputs()

    @classmethod
    def build(cls, encoding: Any, d_model: int, vocab: Any = None, **options: Any) -> "NumberHead":
        """The head of this kind for ``encoding`` and hidden size ``d_model`` (``vocab``: the
        model's vocabulary). Raises ``ValueError`` where the kind does not fit the encoding."""
        cls.check_encoding(encoding)
        return cls(d_model, **options)

    @classmethod
    def check_encoding(cls, encoding: Any) -> None:
        """Raise ``ValueError`` where this kind does not fit ``encoding`` (checked before a
        run builds anything); every encoding fits by default."""

    @classmethod
    def evaluation_columns(cls, uncertainty: dict[str, Any]) -> dict[str, Any]:
        """The :attr:`HeadOutputs.columns` of one filled number, from its JSON-able uncertainty
        (what :meth:`scinum.fill.model.Model.fill` reports)."""
        return {}

    @classmethod
    def summary_inputs(cls, frame: Any) -> dict[str, Any]:
        """Keyword arguments for :func:`scinum.analysis.metrics.summarize` read from this head's
        columns of a ``predictions.csv`` frame (intervals, the distribution's parameters)."""
        return {}

    def loss(self, out: Any, target: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def predict(self, out: Any) -> torch.Tensor:
        raise NotImplementedError

    def smooth_point(self, out: Any) -> torch.Tensor:
        """float[N]: a point prediction through which gradients flow (heads with
        :attr:`has_smooth_point`), in normalized units."""
        raise NotImplementedError(f"{type(self).__name__} has no point prediction with a gradient")

    def uncertainty(self, out: Any, quantiles: Sequence[float] = ()) -> dict[str, Any]:
        return {}


class MLPHead(NumberHead):
    """A head reading the hidden state through an MLP with one hidden layer (as in the xVal
    paper) that feeds ``n_out`` outputs."""

    def __init__(self, d_model: int, n_out: int):
        super().__init__()
        self.hidden = nn.Linear(d_model, d_model)
        self.out = nn.Linear(d_model, n_out)

    def features(self, h: torch.Tensor) -> torch.Tensor:
        return self.out(F.gelu(self.hidden(h)))
