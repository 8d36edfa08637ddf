"""Training cost per sample of the trunk's value paths, side by side: ``linear`` (attention values
and the number head read the residual stream) and ``linear_mlp`` (the MLPs too) vs ``layernorm``
(the paper's pre-LN trunk, the reference), all with structure positions.

Both train the compare preset's model (xVal, d_model 64, 2 layers, batches of 8, one thread) on
the same planets-shaped records (:mod:`quick_shapes`) through :func:`scinum.train.fit.fit`, A B A B;
the figure is each run's training seconds (``training.json``: steps only) per sample seen, median
over the rounds.

Run: ``python experiments/probe-costs/value_path_cost.py [--steps 400 --rounds 3]``; the last two lines are
the headlines, ``linear_mlp``'s last (issue target: at most 1.3x the reference's cost per sample).
"""

from __future__ import annotations

from positions_cost import ab_costs


def main() -> None:
    variants = {path: {"model": {"positions": "structure", "value_path": path}} for path in ("layernorm", "linear", "linear_mlp")}
    ab_costs(variants, __doc__.splitlines()[0])


if __name__ == "__main__":
    main()
