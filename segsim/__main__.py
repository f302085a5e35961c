"""``python -m segsim``: the ``segsim`` command."""

import sys

from segsim.cli import main

sys.exit(main())
