"""Records as token sequences: the pieces of a record (:mod:`.pieces`), the codec and its
vocabulary (:mod:`.codec`), per-field normalizers (:mod:`.normalize`), float bits
(:mod:`.bits`) and model inputs from encoded records (:mod:`.batch`). Imports the layers below:
:mod:`scinum.records`, :mod:`scinum.util`."""
