"""Records as JSON: strict JSON(L) reading and writing (:mod:`.strict`), field paths
(:mod:`.paths`) and the checked shape of a record (:mod:`.shape`). Imports :mod:`scinum.errors`
and :mod:`scinum.util` only."""
