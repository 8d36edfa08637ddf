"""The model and its file: the trunk's shape (:mod:`.config`), the transformer trunk (:mod:`.trunk`), the
whole trainable model with its loss and prediction (:mod:`.mlm`), the curvature penalty
(:mod:`.curvature`), checkpoints (:mod:`.checkpoint`), export directories read back (:mod:`.exported`) and the recalibration
tables a checkpoint stores (:mod:`.recalibration`). Imports :mod:`scinum.encodings`,
:mod:`scinum.heads`, :mod:`scinum.tokens` and below; never Lightning."""
