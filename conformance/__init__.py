"""A conformance suite for PyTorch autograd.

Every catalog case runs side by side on the installed PyTorch (the reference) and on an
implementation under test; the differences in values, flags, exceptions and warnings are
reported per case and device. See ``python -m conformance --help``.
"""

from .case import Case, Doc, case

__all__ = ["Case", "Doc", "case"]
__version__ = "0.1.0"
