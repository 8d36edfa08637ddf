"""Training cost per sample of a moving average of the weights (``optim.weight_average``,
:mod:`scinum.train.weight_average`), side by side: the compare preset's trunk without it (the
reference) and with it (decay 0.999: one update of every parameter's average per step).

Both train the compare preset's model (xVal, d_model 64, 2 layers, structure positions, the linear
value path, one thread) on the same planets-shaped records (:mod:`quick_shapes`) through
:func:`scinum.train.fit.fit`, A B A B; the figure is each run's training seconds
(``training.json``: steps only) per sample seen, median over the rounds.

Run: ``python experiments/probe-costs/weight_average_cost.py [--steps 400 --rounds 3 --batch-size 64]``; a line
per variant with its ratio to the reference (issue target: at most 1.3x the reference's cost per sample).
"""

from __future__ import annotations

from positions_cost import ab_costs

TRUNK = {"positions": "structure", "value_path": "linear"}


def main() -> None:
    ab_costs(
        {"none": {"model": TRUNK, "optim": {"weight_average": 0.0}}, "average 0.999": {"model": TRUNK, "optim": {"weight_average": 0.999}}},
        __doc__.splitlines()[0],
    )


if __name__ == "__main__":
    main()
