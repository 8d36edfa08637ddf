"""Analysis of trained models: metrics (:mod:`.metrics`), ID vs OOD evaluation
(:mod:`.evaluate`) and plots of a results directory (:mod:`.plots`).

Submodules are imported on use so that ``import scinum.analysis`` needs neither torch nor
matplotlib. Imports :mod:`scinum.fill` (models through ``load``), :mod:`scinum.baselines` and
below; never :mod:`scinum.train`.
"""
