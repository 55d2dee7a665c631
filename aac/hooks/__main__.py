"""``python -m aac.hooks run --agent NAME``: what the installed hooks call."""

import sys

from aac.hooks.run import main

sys.exit(main())
