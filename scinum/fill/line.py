"""A least-squares line under the network, where a table's own edges say a line extrapolates:
what :class:`scinum.Regressor` trains its network on top of (``line="auto"``).

Past a table's input range a network predicts whatever its layers make of numbers they never
saw; a straight line goes on straight, and boosted trees stay at the edge's value. Which one a
table needs past its range, its training rows can say: :func:`edge_errors` holds out each
input's top tenth, then its bottom tenth, fits ordinary least squares and boosted trees on the
rest, and sums each one's squared errors on the held-out edges. Where the line's sum is the lower
one, :class:`Line` keeps it for that target: the network is trained on what the line leaves,
``y - line(x)``, and a prediction is ``line(x) + network``; past the range the line carries the
trend (the network's part is read at the edge of the range: :mod:`scinum.fill.past_range`).
Elsewhere the target keeps no line (a zero one). Chosen on the development tables:
experiments/tables-linear-baseline.

Past the range the line need not go on in every input. On the same edges, :func:`held_edges`
compares, for each input and side, the line (fitted without that edge) carried on in that input
against the same line with that input held at the edge of the rows it was fitted on. Where
holding it is clearly the better one on the held-out rows, a prediction past that side of that input's
range holds the line there too (:meth:`Line.predict` with the rows clipped into the range): a
target that saturates in one input past its range stays at the edge's value in it, while the
trend goes on in the others. Chosen on the development tables:
experiments/tables-trend-or-edge.

Inside the range the same question decides how straight the network is kept:
:func:`bends_clearly` cross-validates a line against boosted trees over the rows, and where the
trees are clearly better the rows bend, and :class:`scinum.Regressor` trains without its
curvature penalty (a prior towards straight predictions; experiments/tables-bends).

Inputs: the top-level keys (not the targets) whose every value in the rows is a number (not a
boolean, a string, an object or a list); a row missing one (NaN, None, absent) reads its mean
there. The line is ``sklearn.linear_model.LinearRegression``'s: inputs and targets centred on
their means, then the minimum-norm least-squares solution (``numpy.linalg.lstsq``), so a table
with fewer rows than inputs, or with collinear inputs, still gets one.
"""

from __future__ import annotations

from typing import Any, Sequence, cast

import numpy as np

from ..records.paths import get, parse_path, set_value

__all__ = ["BEND_FOLDS", "EDGE", "Line", "bends_clearly", "edge_errors", "held_edges"]

#: an edge: the rows strictly beyond an input's ``EDGE`` (``1 - EDGE``) quantile
EDGE = 0.1
#: an input is tested at its edges when it has this many distinct values, and an edge when it
#: holds out at least ``MIN_HELD`` rows and leaves at least ``MIN_LEFT``
MIN_DISTINCT, MIN_HELD, MIN_LEFT = 10, 2, 8
#: a line is held at an edge (:func:`held_edges`) only on an edge of at least ``HOLD_ROWS`` rows
#: whose mean gain from holding is at least ``HOLD_T`` standard errors (set before any table was
#: scored, not tuned)
HOLD_ROWS, HOLD_T = 5, 2.0


def edge_errors(X: np.ndarray, y: np.ndarray, decide_only: bool = False) -> tuple[float, float, int]:
    """``(line, trees, held)`` for inputs ``X`` float64[N, K] and a target ``y`` float64[N]: the
    squared errors of least squares and of boosted trees (``HistGradientBoostingRegressor``,
    seed 0), each fitted without an edge and scored on it, summed over every input's top and
    bottom edge (module docstring), and the number of rows held out in all (0: no edge).

    ``decide_only``: stop fitting trees once their sum exceeds the line's. The trees' sum is then
    a partial one, a lower bound of the whole, and ``line < trees`` (the choice) is the same as
    with every edge fitted: squared errors only add. The line's sum comes first, over every edge."""
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.linear_model import LinearRegression

    edges = [out for _, _, out in _edges(X)]

    def error(model: Any, out: np.ndarray) -> float:
        model.fit(X[~out], y[~out])
        with np.errstate(over="ignore", invalid="ignore"):  # huge values: an inf sum (no line kept)
            return float(np.sum((model.predict(X[out]) - y[out]) ** 2))

    line = float(sum(error(LinearRegression(), out) for out in edges))
    trees = 0.0
    for out in edges:
        if decide_only and trees > line:
            break
        trees += error(HistGradientBoostingRegressor(random_state=0), out)
    return line, trees, int(sum(int(out.sum()) for out in edges))


def _edges(X: np.ndarray):
    """``(input, side, out)`` for each edge of ``X`` float64[N, K] (module docstring): ``side``
    0 the top tenth, 1 the bottom; ``out`` bool[N], the rows it holds out."""
    for j in range(X.shape[1]):
        col = X[:, j]
        if len(np.unique(col)) < MIN_DISTINCT:
            continue
        for side, out in enumerate((col > np.quantile(col, 1 - EDGE), col < np.quantile(col, EDGE))):
            if out.sum() >= MIN_HELD and (~out).sum() >= MIN_LEFT:
                yield j, side, out


def held_edges(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """bool[K, 2]: for inputs ``X`` float64[N, K] and a target ``y`` float64[N], whether a line
    past input ``j``'s top (``[j, 0]``) or bottom (``[j, 1]``) edge is better held at the edge in
    that input than carried on. Least squares is fitted without the edge; on each of the edge's
    rows, ``d`` is its squared error with input ``j`` as it is minus that with input ``j`` clipped
    to the range of the rows the line was fitted on. Held where the edge has at least
    :data:`HOLD_ROWS` rows and ``mean(d)`` is positive and at least :data:`HOLD_T` standard errors
    (a paired one-sided test: the edge's rows must say so clearly, not by the chance of a few
    noisy rows). An input without an edge (too few distinct values or rows) is never held."""
    from sklearn.linear_model import LinearRegression

    held = np.zeros((X.shape[1], 2), bool)
    for j, side, out in _edges(X):
        if out.sum() < HOLD_ROWS:
            continue
        line = LinearRegression().fit(X[~out], y[~out])
        clipped = X[out].copy()
        rest = X[~out, j]
        clipped[:, j] = rest.max() if side == 0 else rest.min()
        with np.errstate(over="ignore", invalid="ignore"):
            d = (line.predict(X[out]) - y[out]) ** 2 - (line.predict(clipped) - y[out]) ** 2
            gain, se = float(np.mean(d)), float(np.std(d, ddof=1) / np.sqrt(len(d)))
        held[j, side] = bool(np.isfinite(gain) and gain > 0 and gain >= HOLD_T * se)
    return held


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


class Line:
    """Least-squares lines of ``targets`` (JSON paths) on the top-level numeric ``inputs``.

    ``used`` bool[T]: whether each target keeps its line (else its row of ``coef`` and its
    ``intercept`` are zero); ``coef`` float64[T, K]; ``intercept`` float64[T]; ``means``
    float64[K], the inputs' means (what a missing input reads); ``lo``/``hi`` float64[T], each
    target's range in the rows (the network's residuals do not show it); ``held`` bool[T, K, 2]:
    whether the target's line is held at input ``k``'s edge past its top (``[t, k, 0]``) or bottom
    (``[t, k, 1]``) (:func:`held_edges`; none held when not given)."""

    def __init__(
        self,
        targets: Sequence[str],
        inputs: Sequence[str],
        used: Any,
        coef: Any,
        intercept: Any,
        means: Any,
        lo: Any,
        hi: Any,
        held: Any = None,
    ):
        self.targets, self.inputs = list(targets), list(inputs)
        self.used = np.asarray(used, bool).reshape(len(self.targets))
        self.coef = np.asarray(coef, np.float64).reshape(len(self.targets), len(self.inputs))
        self.intercept, self.means = np.asarray(intercept, np.float64), np.asarray(means, np.float64)
        self.lo, self.hi = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
        shape = (len(self.targets), len(self.inputs), 2)
        self.held = np.zeros(shape, bool) if held is None else np.asarray(held, bool).reshape(shape)

    @classmethod
    def fit(cls, records: Sequence[dict], targets: Sequence[str], choose: bool = True) -> "Line":
        """The lines of ``targets`` (every record has a number at each: the caller checks) on
        ``records``' top-level numeric inputs; ``choose``: keep a target's line only where
        :func:`edge_errors` prefers it (else keep every one)."""
        inputs = _numeric_inputs(records, targets)
        with np.errstate(over="ignore", invalid="ignore"):  # values near the float's limit: no line (below)
            means = np.array([np.mean([float(r[k]) for r in records if r.get(k) is not None]) for k in inputs])
            X = _design(records, inputs, means)
            Y = np.array([[float(get(r, t)) for t in targets] for r in records]).reshape(len(records), len(targets))
            ym = Y.mean(0)
            finite = bool(np.isfinite(X - means).all() and np.isfinite(Y - ym).all())
            coef = np.zeros((len(targets), len(inputs)))
            if inputs and finite:
                coef = np.linalg.lstsq(X - means, Y - ym, rcond=None)[0].T
            used = np.full(len(targets), finite)
            held = np.zeros((len(targets), len(inputs), 2), bool)
            if choose and finite:
                for t in range(len(targets)):
                    line, trees, n_held = edge_errors(X, Y[:, t], decide_only=True)
                    used[t] = n_held > 0 and line < trees
                    if used[t]:
                        held[t] = held_edges(X, Y[:, t])
            intercept = ym - coef @ means
            used &= np.isfinite(X @ coef.T + intercept).all(0) & np.isfinite(intercept)  # a line that overflows is not kept
        coef[~used], intercept[~used], held[~used] = 0.0, 0.0, False
        return cls(targets, inputs, used, coef, intercept, means, Y.min(0), Y.max(0), held)

    def predict(self, records: Sequence[dict], clipped: Sequence[dict] | None = None) -> np.ndarray:
        """float64[N, T]: each target's line at each record's inputs (0 where it keeps none).
        ``clipped``: the same records with their inputs clipped into the training range (an input
        past its top or bottom then reads the edge's value where :attr:`held` says so)."""
        X = _design(records, self.inputs, self.means)
        out = X @ self.coef.T + self.intercept
        if clipped is None or not self.held.any():
            return out
        C = _design(clipped, self.inputs, self.means)
        for t in map(int, np.flatnonzero(self.held.any((1, 2)))):
            hold = ((X > C) & self.held[t, :, 0]) | ((X < C) & self.held[t, :, 1])
            out[:, t] = np.where(hold, C, X) @ self.coef[t] + self.intercept[t]
        return out

    def residuals(self, records: Sequence[dict]) -> list[dict]:
        """Copies of ``records`` with each target replaced by its distance from its line (what
        the network trains on)."""
        base = self.predict(records)
        out = []
        for r, b in zip(records, base):
            r = {**r}
            for j, t in enumerate(self.targets):
                if not self.used[j]:
                    continue
                path = parse_path(t)
                if len(path) > 1:  # a nested target: copy the containers on its way
                    r[path[0]] = _deep(r[path[0]])
                set_value(r, path, float(get(r, path)) - float(b[j]))
            out.append(r)
        return out

    def __bool__(self) -> bool:
        return bool(self.used.any())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: what :meth:`from_dict` reads (a saved Regressor's ``run`` entry)."""
        keys = ("used", "coef", "intercept", "means", "lo", "hi", "held")
        return {"targets": self.targets, "inputs": self.inputs, **{k: getattr(self, k).tolist() for k in keys}}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Line":
        """What :meth:`to_dict` wrote (one saved before ``held`` existed holds no input)."""
        return cls(d["targets"], d["inputs"], d["used"], d["coef"], d["intercept"], d["means"], d["lo"], d["hi"], d.get("held"))


def _numeric_inputs(records: Sequence[dict], targets: Sequence[str]) -> list[str]:
    """The top-level keys of ``records`` (not a target) whose every value is a finite number."""
    top = {parse_path(t)[0] for t in targets if len(parse_path(t)) == 1}
    numeric: dict[str, bool] = {}
    for r in records:
        for k, v in r.items():
            if k not in top and v is not None:
                numeric[k] = numeric.get(k, True) and _is_number(v) and bool(np.isfinite(v))
    return [k for k, ok in numeric.items() if ok]


#: the folds of :func:`bends_clearly`
BEND_FOLDS = 5


def bends_clearly(records: Sequence[dict], targets: Sequence[str]) -> np.ndarray:
    """bool[T]: whether each target's rows bend clearly away from a straight line of the
    top-level numeric inputs: in :data:`BEND_FOLDS`-fold cross-validation over ``records``
    (shuffled, seed 0), boosted trees predict the held-out rows better than least squares, the
    per-row gain ``d`` (the line's squared error minus the trees') positive and at least
    :data:`HOLD_T` standard errors (:func:`held_edges`' test, its constants). A table with fewer
    than ``2 · BEND_FOLDS`` rows, no numeric input, or a target that is not a finite number in
    every record never bends. Where the rows bend, :class:`scinum.Regressor` trains without the
    curvature penalty, a prior towards straight predictions the data then clearly contradict
    (experiments/tables-bends)."""
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import KFold

    out = np.zeros(len(targets), bool)
    inputs = _numeric_inputs(records, targets)
    if not inputs or len(records) < 2 * BEND_FOLDS:
        return out
    with np.errstate(over="ignore", invalid="ignore"):
        means = np.array([np.mean([float(r[k]) for r in records if r.get(k) is not None]) for k in inputs])
        X = _design(records, inputs, means)
        for t, target in enumerate(targets):
            try:
                y = np.array([float(get(r, target)) for r in records])
            except (KeyError, IndexError, TypeError, ValueError):
                continue
            if not (np.isfinite(y).all() and np.isfinite(X).all()):
                continue
            d = np.zeros(len(y))
            for fit_rows, held in KFold(BEND_FOLDS, shuffle=True, random_state=0).split(X):
                line = LinearRegression().fit(X[fit_rows], y[fit_rows]).predict(X[held])
                trees = HistGradientBoostingRegressor(random_state=0).fit(X[fit_rows], y[fit_rows]).predict(X[held])
                d[held] = (line - y[held]) ** 2 - (trees - y[held]) ** 2
            mean, se = float(np.mean(d)), float(np.std(d, ddof=1) / np.sqrt(len(d)))
            out[t] = bool(np.isfinite(mean) and mean > 0 and mean >= HOLD_T * se)
    return out


def _design(records: Sequence[dict], inputs: Sequence[str], means: np.ndarray) -> np.ndarray:
    """float64[N, K]: the inputs of each record, a missing or non-numeric one at its mean."""
    X = np.tile(means, (len(records), 1)) if len(inputs) else np.zeros((len(records), 0))
    for i, r in enumerate(records):
        for k, name in enumerate(inputs):
            v = r.get(name)
            if _is_number(v) and np.isfinite(cast(float, v)):
                X[i, k] = float(cast(float, v))
    return X


def _deep(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _deep(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_deep(v) for v in node]
    return node
