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

__all__ = ["EDGE", "Line", "edge_errors"]

#: an edge: the rows strictly beyond an input's ``EDGE`` (``1 - EDGE``) quantile
EDGE = 0.1
#: an input is tested at its edges when it has this many distinct values, and an edge when it
#: holds out at least ``MIN_HELD`` rows and leaves at least ``MIN_LEFT``
MIN_DISTINCT, MIN_HELD, MIN_LEFT = 10, 2, 8


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

    edges = []
    for j in range(X.shape[1]):
        col = X[:, j]
        if len(np.unique(col)) < MIN_DISTINCT:
            continue
        for out in (col > np.quantile(col, 1 - EDGE), col < np.quantile(col, EDGE)):
            if out.sum() >= MIN_HELD and (~out).sum() >= MIN_LEFT:
                edges.append(out)

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


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


class Line:
    """Least-squares lines of ``targets`` (JSON paths) on the top-level numeric ``inputs``.

    ``used`` bool[T]: whether each target keeps its line (else its row of ``coef`` and its
    ``intercept`` are zero); ``coef`` float64[T, K]; ``intercept`` float64[T]; ``means``
    float64[K], the inputs' means (what a missing input reads); ``lo``/``hi`` float64[T], each
    target's range in the rows (the network's residuals do not show it)."""

    def __init__(self, targets: Sequence[str], inputs: Sequence[str], used: Any, coef: Any, intercept: Any, means: Any, lo: Any, hi: Any):
        self.targets, self.inputs = list(targets), list(inputs)
        self.used = np.asarray(used, bool).reshape(len(self.targets))
        self.coef = np.asarray(coef, np.float64).reshape(len(self.targets), len(self.inputs))
        self.intercept, self.means = np.asarray(intercept, np.float64), np.asarray(means, np.float64)
        self.lo, self.hi = np.asarray(lo, np.float64), np.asarray(hi, np.float64)

    @classmethod
    def fit(cls, records: Sequence[dict], targets: Sequence[str], choose: bool = True) -> "Line":
        """The lines of ``targets`` (every record has a number at each: the caller checks) on
        ``records``' top-level numeric inputs; ``choose``: keep a target's line only where
        :func:`edge_errors` prefers it (else keep every one)."""
        top = {parse_path(t)[0] for t in targets if len(parse_path(t)) == 1}
        numeric: dict[str, bool] = {}
        for r in records:
            for k, v in r.items():
                if k not in top and v is not None:
                    numeric[k] = numeric.get(k, True) and _is_number(v) and bool(np.isfinite(v))
        inputs = [k for k, ok in numeric.items() if ok]
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
            if choose and finite:
                for t in range(len(targets)):
                    line, trees, held = edge_errors(X, Y[:, t], decide_only=True)
                    used[t] = held > 0 and line < trees
            intercept = ym - coef @ means
            used &= np.isfinite(X @ coef.T + intercept).all(0) & np.isfinite(intercept)  # a line that overflows is not kept
        coef[~used], intercept[~used] = 0.0, 0.0
        return cls(targets, inputs, used, coef, intercept, means, Y.min(0), Y.max(0))

    def predict(self, records: Sequence[dict]) -> np.ndarray:
        """float64[N, T]: each target's line at each record's inputs (0 where it keeps none)."""
        return _design(records, self.inputs, self.means) @ self.coef.T + self.intercept

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
        keys = ("used", "coef", "intercept", "means", "lo", "hi")
        return {"targets": self.targets, "inputs": self.inputs, **{k: getattr(self, k).tolist() for k in keys}}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Line":
        return cls(d["targets"], d["inputs"], d["used"], d["coef"], d["intercept"], d["means"], d["lo"], d["hi"])


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
