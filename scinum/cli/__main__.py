"""``python -m scinum.cli``: the ``scinum`` command."""

import sys

from .main import main

sys.exit(main())
