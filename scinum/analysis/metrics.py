"""Metrics of numeric predictions: pure functions on float64 arrays.

Conventions shared by every function here:

* ``y`` are the true values, ``yhat`` the predictions, both shape ``[N]`` (anything that
  ``np.asarray(..., float64).ravel()`` accepts), in the record's units.
* A NaN prediction marks a prediction that did not parse (text encodings emit a digit string
  that is not a number). :func:`unparseable_fraction` counts them; **every other metric is
  computed over the parseable predictions only** — NaN is dropped, never replaced by 0.
  :func:`summarize` takes the rows that did not parse from the caller where it knows them
  (``unparseable=``): a NaN that a number head predicted is then a wrong prediction (MSE NaN),
  not left out.
* True values must not be NaN (JSON numbers are finite); a NaN in ``y`` raises ``ValueError``.
* A metric with nothing to average over (all predictions unparseable, ``N == 0``) is NaN.

Formulas (``P`` = indices of parseable predictions, ``n = |P|``):

* MSE = mean_P (ŷ − y)²
* R² = 1 − SSE/SST with SSE = Σ_P (ŷ − y)², SST = Σ_P (y − ȳ)²; NaN when all y_P are equal
  (SST = 0: R² is undefined, not 1 and not −inf).
* adjusted R² (the xVal paper's arithmetic metric, seed 002 Tables 2-3) = 1 − (1 − R²)(n − 1) /
  (n − p − 1) with ``p`` predictors, which the caller names (the paper does not say its p); NaN
  when n ≤ p + 1.
* log-sMAPE (the BitTokens paper's metric, seed 004): s = |ŷ − y| / (|y| + |ŷ| + ε),
  score = min(1, log10(s + ε) / (−M)), ε = 1e-100, M = 15 significant digits. 1 = every one of
  the 15 digits right, 0 = not even the sign/magnitude (s = 1, e.g. ŷ = −y).
* median relative error = median_P |ŷ − y| / |y| over rows with y ≠ 0 (robust to the few wild
  predictions that dominate R² and MSE)
* exact match = mean_P [|ŷ − y| ≤ atol + rtol·|y|]; for integer results, integer exact match =
  mean_P [round(ŷ) = y] (the nearest integer to the prediction is the answer).
* GMM NLL = mean_P −log Σ_k w_k N(y; μ_k, σ_k) (natural log, nats per number)
* interval coverage = mean [lo ≤ y ≤ hi] over the rows with a finite interval.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

__all__ = [
    "LOG_SMAPE_EPS",
    "LOG_SMAPE_DIGITS",
    "SUMMARY_KEYS",
    "mse",
    "r2",
    "adjusted_r2",
    "log_smape",
    "log_smape_per_sample",
    "exact_match",
    "integer_exact_match",
    "median_relative_error",
    "unparseable_fraction",
    "gmm_nll",
    "gmm_nll_per_sample",
    "interval_coverage",
    "summarize",
]

#: ε of log-sMAPE (seed 004).
LOG_SMAPE_EPS = 1e-100
#: M of log-sMAPE: the number of significant decimal digits a score of 1 stands for (seed 004).
LOG_SMAPE_DIGITS = 15
#: Keys of :func:`summarize`'s dict, in table-column order.
SUMMARY_KEYS = ("n", "mse", "r2", "log_smape", "exact", "unparseable", "nll", "coverage68", "coverage95")


def _vec(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).ravel()


def _checked(y, yhat) -> tuple[np.ndarray, np.ndarray]:
    """``(y, yhat)`` as float64 ``[N]`` after checking equal lengths and that y has no NaN."""
    y, yhat = _vec(y), _vec(yhat)
    if y.shape != yhat.shape:
        raise ValueError(f"y and yhat differ in length: {y.size} vs {yhat.size}")
    if np.isnan(y).any():
        first = int(np.flatnonzero(np.isnan(y))[0])
        raise ValueError(f"true values contain NaN (first at index {first})")
    return y, yhat


def _pair(y, yhat) -> tuple[np.ndarray, np.ndarray]:
    """``(y[P], yhat[P])``: the checked pairs whose prediction parsed."""
    y, yhat = _checked(y, yhat)
    ok = ~np.isnan(yhat)
    return y[ok], yhat[ok]


def _mean(a: np.ndarray) -> float:
    return float(a.mean()) if a.size else math.nan


def mse(y, yhat) -> float:
    """Mean squared error over parseable predictions, in (record units)². NaN if none parse."""
    y, yhat = _pair(y, yhat)
    return _mean((yhat - y) ** 2)


def r2(y, yhat) -> float:
    """Coefficient of determination 1 − SSE/SST over parseable predictions (dimensionless).

    NaN when no prediction parses or when the parseable true values are all equal (SST = 0 in
    exact arithmetic): R² is undefined then, and 1 or −inf would mislead. Both sums are taken
    after dividing by max |y|, so a field of tiny values (e.g. 1e-220, whose squares underflow to
    0) or huge ones gets its true R²; a prediction so far off that its scaled error overflows
    gives −inf.
    """
    y, yhat = _pair(y, yhat)
    if not y.size or y.min() == y.max():  # not SST == 0: the mean's round-off makes SST > 0
        return math.nan
    c = float(np.abs(y).max())
    y, yhat = y / c, yhat / c
    with np.errstate(over="ignore", invalid="ignore"):
        sse = float(((yhat - y) ** 2).sum())
    return 1.0 - sse / float(((y - y.mean()) ** 2).sum())


def adjusted_r2(y, yhat, n_predictors: int) -> float:
    """Adjusted R² = 1 − (1 − R²)(n − 1)/(n − p − 1) over parseable predictions (dimensionless).

    ``n`` is the number of parseable predictions, ``p = n_predictors`` the number of inputs the
    prediction is a function of (the caller says which: e.g. 2 for ``a × b``). It penalises R²
    for the predictors a fit could exploit; for n ≫ p it is R² to within (1 − R²)·p/n. NaN where
    :func:`r2` is NaN or when n ≤ p + 1 (no degrees of freedom left).
    """
    if not isinstance(n_predictors, (int, np.integer)) or n_predictors < 0:
        raise ValueError(f"n_predictors must be a non-negative integer, got {n_predictors!r}")
    y, yhat = _pair(y, yhat)
    n = y.size
    if n <= n_predictors + 1:
        return math.nan
    return 1.0 - (1.0 - r2(y, yhat)) * (n - 1) / (n - n_predictors - 1)


def log_smape_per_sample(y, yhat) -> np.ndarray:
    """Per-sample log-sMAPE scores in [0, 1], shape ``[N]``; NaN where the prediction is NaN.

    s = |ŷ − y| / (|y| + |ŷ| + ε), score = min(1, log10(s + ε) / (−15)), ε = 1e-100 (seed 004).
    Infinite values: score 1 if ŷ == y (same infinity), else 0 (the limit s → 1).
    """
    y, yhat = _checked(y, yhat)
    with np.errstate(invalid="ignore", over="ignore"):
        s = np.abs(yhat - y) / (np.abs(y) + np.abs(yhat) + LOG_SMAPE_EPS)
        score = np.minimum(1.0, np.log10(s + LOG_SMAPE_EPS) / -LOG_SMAPE_DIGITS)
    inf = np.isinf(y) | np.isinf(yhat)
    score[inf] = np.where(y[inf] == yhat[inf], 1.0, 0.0)
    score[np.isnan(yhat)] = math.nan
    return score


def log_smape(y, yhat) -> float:
    """Mean log-sMAPE over parseable predictions (see :func:`log_smape_per_sample`); higher is
    better, 1 = all 15 significant digits right. NaN if none parse."""
    score = log_smape_per_sample(y, yhat)
    return _mean(score[~np.isnan(score)])


def exact_match(y, yhat, rtol: float = 1e-6, atol: float = 1e-12) -> float:
    """Fraction of parseable predictions with |ŷ − y| ≤ atol + rtol·|y| (``np.isclose``).

    The default rtol of 1e-6 accepts float32 round-off of the normalized value (xVal) but no
    wrong digit within the first six significant ones; pass rtol=atol=0 for bit equality.
    """
    y, yhat = _pair(y, yhat)
    return _mean(np.isclose(yhat, y, rtol=rtol, atol=atol).astype(np.float64))


def integer_exact_match(y, yhat) -> float:
    """Fraction of parseable predictions whose nearest integer equals ``y`` (integer-valued
    targets, e.g. the result of an arithmetic problem). ``round`` is numpy's (halves to even);
    ±inf never matches. NaN if none parse; ``y`` must hold integers (else ``ValueError``).
    """
    y, yhat = _pair(y, yhat)
    if not np.all(np.isfinite(y) & (y == np.round(y))):
        raise ValueError("integer_exact_match: true values must be finite integers")
    with np.errstate(invalid="ignore"):
        return _mean((np.round(yhat) == y).astype(np.float64))


def median_relative_error(y, yhat) -> float:
    """Median of |ŷ − y| / |y| over parseable predictions with y ≠ 0 (dimensionless; 0.01 = 1 %).
    An infinite prediction counts as an infinite error. NaN if no row remains."""
    y, yhat = _pair(y, yhat)
    keep = y != 0
    if not keep.any():
        return math.nan
    with np.errstate(invalid="ignore", over="ignore"):
        rel = np.abs(yhat[keep] - y[keep]) / np.abs(y[keep])
    return float(np.median(np.where(np.isnan(rel), np.inf, rel)))


def unparseable_fraction(yhat) -> float:
    """Fraction of predictions that are NaN (did not parse), over all ``N``. NaN if N == 0."""
    yhat = _vec(yhat)
    return _mean(np.isnan(yhat).astype(np.float64))


def _mixture(y: np.ndarray, weights, means, stds) -> tuple[np.ndarray, ...]:
    w, mu, sd = (np.asarray(a, dtype=np.float64) for a in (weights, means, stds))
    if w.ndim != 2 or w.shape != mu.shape or w.shape != sd.shape or w.shape[0] != y.size:
        raise ValueError(f"weights/means/stds must all be [N={y.size}, K]; got {w.shape}, {mu.shape}, {sd.shape}")
    return w, mu, sd


def gmm_nll_per_sample(y, weights, means, stds) -> np.ndarray:
    """Negative log-likelihood of ``y[N]`` under per-row Gaussian mixtures, in nats, ``[N]``.

    ``weights``, ``means``, ``stds``: ``[N, K]`` in the units of ``y``; weights are non-negative
    and are normalized per row (so they need not sum exactly to 1); stds > 0.
    NLL_i = −logsumexp_k(log w_ik − log σ_ik − ½ log 2π − ½ ((y_i − μ_ik)/σ_ik)²) + log Σ_k w_ik.
    Rows whose mixture contains NaN give NaN.
    """
    y = _vec(y)
    w, mu, sd = _mixture(y, weights, means, stds)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (y[:, None] - mu) / sd
        logp = np.log(w) - np.log(sd) - 0.5 * math.log(2 * math.pi) - 0.5 * z * z
        return -(logsumexp(logp, axis=1) - np.log(w.sum(axis=1)))


def gmm_nll(y, weights, means, stds) -> float:
    """Mean GMM NLL (nats per number, see :func:`gmm_nll_per_sample`); rows whose NLL is NaN
    (a NaN mixture, e.g. no mixture for that row) are dropped. NaN if none remain."""
    nll = gmm_nll_per_sample(y, weights, means, stds)
    return _mean(nll[~np.isnan(nll)])


def interval_coverage(y, lo, hi) -> float:
    """Fraction of ``y[N]`` inside the closed intervals ``[lo, hi]`` (both ``[N]``).

    Rows whose ``lo`` or ``hi`` is NaN (no interval: unparseable, or not a probabilistic head)
    are dropped; NaN if none remain. A well calibrated 68% interval covers ≈ 0.68.
    """
    y, lo, hi = _vec(y), _vec(lo), _vec(hi)
    if not y.shape == lo.shape == hi.shape:
        raise ValueError(f"y, lo, hi differ in length: {y.size}, {lo.size}, {hi.size}")
    ok = ~(np.isnan(lo) | np.isnan(hi) | np.isnan(y))
    return _mean(((lo[ok] <= y[ok]) & (y[ok] <= hi[ok])).astype(np.float64))


def summarize(
    y,
    yhat,
    *,
    lo68=None,
    hi68=None,
    lo95=None,
    hi95=None,
    weights=None,
    means=None,
    stds=None,
    rtol: float = 1e-6,
    atol: float = 1e-12,
    unparseable=None,
) -> dict[str, float | int]:
    """All metrics of one (model, field, split): a dict with the keys :data:`SUMMARY_KEYS`.

    ``n`` is the number of predictions including unparseable ones; ``unparseable`` is their
    fraction; every other metric is over the parseable rows only (a row's interval and mixture
    are ignored when its point prediction is NaN). ``nll`` needs ``weights``, ``means``,
    ``stds`` (``[N, K]``), ``coverage68``/``coverage95`` need both bounds (``[N]``); a metric
    whose inputs are not given is NaN.

    ``unparseable`` (bool ``[N]``): which predictions did not parse, where the caller knows. A
    NaN prediction *not* marked there (an xVal model whose number head gave NaN) is a wrong
    prediction, never left out: MSE, R² and log-sMAPE become NaN and it is no exact match.
    """
    y, yhat = _checked(y, yhat)
    if unparseable is not None:
        unp = np.asarray(unparseable, dtype=bool).ravel()
        nan_number = np.isnan(yhat) & ~unp
        if nan_number.any():
            kept = summarize(y[~unp], np.where(nan_number, math.inf, yhat)[~unp], rtol=rtol, atol=atol)
            return {
                **kept,
                "n": int(y.size),
                "mse": math.nan,
                "r2": math.nan,
                "log_smape": math.nan,
                "unparseable": _mean(unp.astype(np.float64)),
                "nll": math.nan,
                "coverage68": math.nan,
                "coverage95": math.nan,
            }
    ok = ~np.isnan(yhat)
    out: dict[str, float | int] = {
        "n": int(y.size),
        "mse": mse(y, yhat),
        "r2": r2(y, yhat),
        "log_smape": log_smape(y, yhat),
        "exact": exact_match(y, yhat, rtol=rtol, atol=atol),
        "unparseable": unparseable_fraction(yhat),
        "nll": math.nan,
    }
    if weights is not None and means is not None and stds is not None:
        w, mu, sd = _mixture(y, weights, means, stds)
        out["nll"] = gmm_nll(y[ok], w[ok], mu[ok], sd[ok])
    for name, lo, hi in (("coverage68", lo68, hi68), ("coverage95", lo95, hi95)):
        out[name] = interval_coverage(y, np.where(ok, _vec(lo), math.nan), _vec(hi)) if lo is not None and hi is not None else math.nan
    return out
