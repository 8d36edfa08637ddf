"""Training cost per sample of four attention heads instead of two (``model.n_heads``), side by
side: the compare preset's trunk with its two heads of 32 (the reference) and with four of 16
(the same width and weights; the attention is split into more, narrower heads).

Both train the compare preset's model (xVal, d_model 64, 2 layers, structure positions, the linear
value path, one thread) on the same planets-shaped records (:mod:`quick_shapes`) through
:func:`scinum.train.fit.fit`, A B A B; the figure is each run's training seconds
(``training.json``: steps only) per sample seen, median over the rounds.

Run: ``python experiments/probe-costs/heads_cost.py [--steps 400 --rounds 3 --batch-size 64]``; a line per
variant with its ratio to the reference (issue target: at most 1.3x the reference's cost per sample).
"""

from __future__ import annotations

from positions_cost import ab_costs

TRUNK = {"positions": "structure", "value_path": "linear"}


def main() -> None:
    ab_costs({"2 heads": {"model": {**TRUNK, "n_heads": 2}}, "4 heads": {"model": {**TRUNK, "n_heads": 4}}}, __doc__.splitlines()[0])


if __name__ == "__main__":
    main()
