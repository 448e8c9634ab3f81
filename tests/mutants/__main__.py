"""``python -m tests.mutants``: see ``tests/mutants/run.py``."""

import sys

from .run import main

sys.exit(main())
