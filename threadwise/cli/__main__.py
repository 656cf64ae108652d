"""``python -m threadwise.cli``: the ``threadwise`` command."""

import sys

from threadwise.cli import main

sys.exit(main())
