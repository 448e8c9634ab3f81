"""The operations: each module defines ops and declares them with ``registry.export``.

Importing this package installs the Tensor methods, collects the ``torch.<name>`` functions in
``FUNCTIONS`` (re-exported by ``myautograd/__init__.py``) and builds the formulas' namespace on
tensors (``_math.TensorMath``), which calls these operations.
"""

from __future__ import annotations

from .. import _math
from .._autograd.modes import TensorMode
from .._tensor import Tensor
from . import (  # noqa: F401 - imported for their registrations
    comparison,
    contraction,
    conversion,
    convolution,
    creation,
    indexing,
    inplace,
    linalg,
    losses,
    nn_ops,
    normalization,
    operators,
    padding,
    pointwise,
    ranges,
    reduction,
    shape,
    special,
    ternary,
    unpack_order,
    views,
)
from .registry import FUNCTIONS, METHODS

_PROPERTIES = ("T", "mT", "real", "imag")

for _name, _fn in METHODS.items():
    if _name in _PROPERTIES:
        setattr(Tensor, _name, property(_fn))
    else:
        setattr(Tensor, _name, _fn)

_math.install()  # the formulas' namespace on tensors calls these operations
TensorMode.F = _math.TensorMath

__all__ = ["FUNCTIONS", "METHODS"]
