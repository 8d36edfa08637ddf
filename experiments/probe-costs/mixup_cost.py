"""Training cost per sample of mixup of records (:mod:`scinum.model.mixup`), side by side: the
compare preset's trunk without it (the reference) and with it on every record of a batch
(``mixup_share`` 1), half and a quarter of them.

All train the compare preset's model (xVal, d_model 64, 2 layers, structure positions, the linear
value path, one thread) on the same planets-shaped records (:mod:`quick_shapes`) through
:func:`scinum.train.fit.fit`, A B A B; the figure is each run's training seconds
(``training.json``: steps only) per sample seen, median over the rounds.

Run: ``python experiments/probe-costs/mixup_cost.py [--steps 400 --rounds 3 --batch-size 64] [--smoke]``; a line per
share with its ratio to the reference (issue target: at most 1.3x the reference's cost per sample).
"""

from __future__ import annotations

from positions_cost import ab_costs

TRUNK = {"positions": "structure", "value_path": "linear"}


def main() -> None:
    variants = {"none": {"model": TRUNK}}
    for share in (1.0, 0.5, 0.25):
        variants[f"share {share:g}"] = {"model": TRUNK, "optim": {"mixup_weight": 1.0, "mixup_share": share}}
    ab_costs(variants, __doc__.splitlines()[0])


if __name__ == "__main__":
    main()
