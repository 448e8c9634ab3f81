"""Hostile at import: calls sys.exit(0) (the run must stop with one line and exit status 2)."""

import sys

sys.exit(0)
