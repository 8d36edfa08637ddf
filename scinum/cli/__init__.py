"""The ``scinum`` command line (:mod:`.main`) and the subcommands that are nothing but a
command line (:mod:`.fit`, :mod:`.fill`, :mod:`.info`, :mod:`.demo`); thin over every package
below it."""
