"""Training: the typed run config (:mod:`.config`), budgets (:mod:`.budget`), length-bucketed
batches (:mod:`.sampler`), MLM masking (:mod:`.masking`), the data module (:mod:`.data`), the
Lightning module (:mod:`.module`), distributed runs (:mod:`.distributed`), the run directory
(:mod:`.run_dir`), early stopping (:mod:`.early_stopping`), logging only what a logger writes
(:mod:`.speed`) and one run from a config (:mod:`.fit`). Imports :mod:`scinum.fill`
(calibration after training) and below."""
