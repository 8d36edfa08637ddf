"""Number heads: from the trunk's hidden state at a masked number to a prediction and a loss.
Imports :mod:`scinum.tokens`, :mod:`scinum.plugins` and below.

Every head works in the encoding's (normalized) value space; :mod:`scinum.tokens.normalize` maps
predictions back to a record's units. Interface (:class:`NumberHead`), over the N hidden number
*tokens* of a batch in row-major order (an encoding with ``k`` tokens per number gives its k
rows one after another):

* ``forward(h: float[N, d], token_logits: float[N, V] | None = None) -> out`` (a tensor or a
  tuple of tensors, head-specific; ``token_logits`` are the trunk's token-head logits at the
  same rows, which :class:`TokenHead` reads and the others ignore);
* ``loss(out, target: float64[N]) -> float32[N]``: per-row loss;
* ``predict(out) -> float64[N]``: point prediction (every row of a number holds the number's);
* ``uncertainty(out, quantiles=()) -> dict[str, Tensor | ndarray]``: what the head knows about
  its own error, one entry per row (empty for the scalar head, which has none); heads with a
  distribution add ``quantiles`` [N, Q] at the levels asked for. An ``unparseable`` entry (bool)
  marks predictions that are not numbers at all (their value is NaN).

Every head **declares what it produces** (:class:`HeadOutputs`, its ``outputs``): its point
value, its kind of uncertainty (``None``, or ``"quantiles"`` for a predictive distribution whose
intervals can be recalibrated) and the columns it adds to an evaluation's ``predictions.csv``;
:mod:`scinum.train.config`, :mod:`scinum.analysis.evaluate`, :mod:`scinum.analysis.density` and
:mod:`scinum.share.card` read the declaration, never a head's name. A config names a head by its
*kind* in the registry (:data:`REGISTRY`): ``"native"`` (the encoding's own head),
``"mixture"``, or one that another package installs through the ``scinum.heads`` entry-point
group (:mod:`scinum.plugins`).

:class:`MixtureHead` (a Gaussian mixture) can replace any encoding's native head. It models the
*normalized* value, so pair it with a normalizer that brings values to O(1) (``minmax`` or
``standard``; :func:`scinum.train.config` picks ``standard`` when the encoding's default is ``none``).
"""

from .base import HeadOutputs, MLPHead, NumberHead
from .mixture import LEGACY_SIGMA_MIN, SIGMA_MIN, MixtureHead
from .native import BitHead, DigitHead, ScalarHead, TokenHead
from .registry import REGISTRY, NativeHead, check_options, declared, lookup, make_head, model_label

__all__ = [
    "NumberHead",
    "HeadOutputs",
    "MLPHead",
    "ScalarHead",
    "DigitHead",
    "BitHead",
    "MixtureHead",
    "TokenHead",
    "NativeHead",
    "make_head",
    "check_options",
    "lookup",
    "declared",
    "model_label",
    "REGISTRY",
    "SIGMA_MIN",
    "LEGACY_SIGMA_MIN",
]
