"""Training cost per sample of the curvature penalty (:mod:`scinum.model.curvature`), side by
side: the compare preset's trunk without it (the reference) and with it on every record of a
batch (``curvature_share`` 1) and on a quarter, an eighth and a sixteenth of them.

All train the compare preset's model (xVal, d_model 64, 2 layers, structure positions, the linear
value path, one thread) on the same planets-shaped records (:mod:`quick_shapes`) through
:func:`scinum.train.fit.fit`, A B A B; the figure is each run's training seconds
(``training.json``: steps only) per sample seen, median over the rounds.

Run: ``python experiments/probe-costs/curvature_cost.py [--steps 400 --rounds 3 --batch-size 64]``; a line per
share with its ratio to the reference (issue target: at most 1.3x the reference's cost per sample).
"""

from __future__ import annotations

from positions_cost import ab_costs

TRUNK = {"positions": "structure", "value_path": "linear"}


def main() -> None:
    variants = {"none": {"model": TRUNK}}
    for share in (1.0, 0.25, 0.125, 0.0625):
        variants[f"share {share:g}"] = {"model": TRUNK, "optim": {"curvature_weight": 10.0, "curvature_share": share}}
    ab_costs(variants, __doc__.splitlines()[0])


if __name__ == "__main__":
    main()
