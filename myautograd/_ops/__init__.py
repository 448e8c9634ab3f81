"""The operations: each module defines ops and declares them with ``registry.export``.

Importing this package installs the Tensor methods, collects the ``torch.<name>`` functions in
``FUNCTIONS`` (re-exported by ``myautograd/__init__.py``) and builds the formulas' namespace on
tensors (``_autograd/formula_math.py``'s ``TensorMath``), which calls these operations.
"""

from __future__ import annotations

from .._autograd import formula_math, formulas, record
from .._autograd.modes import TensorMode
from .._tensor import Tensor
from . import (  # noqa: F401 - imported for their registrations
    activations,
    arrangements,
    attention,
    comparison,
    complex_numbers,
    contraction,
    conversion,
    convolution,
    creation,
    ctc_loss,
    differences,
    dtype_refusals,
    fourier,
    index_ops,
    indexing,
    inplace,
    linalg,
    linalg_solvers,
    losses,
    margin_losses,
    nan_reductions,
    nn_ops,
    normalization,
    operators,
    padding,
    pointwise,
    pointwise_math,
    pooling,
    ranges,
    reduction,
    scans,
    selection,
    shape,
    shape_compositions,
    special,
    special_math,
    ternary,
    unpack_order,
    vector_products,
    view_copies,
    views,
)
from .registry import FUNCTIONS, METHODS

# torch's refusals of dtypes its kernels lack, in front of those ops wherever they are reached.
dtype_refusals.install([activations, arrangements, comparison, complex_numbers, contraction, conversion, convolution,
                        creation, differences, fourier, index_ops, indexing, inplace, linalg, losses, nan_reductions,
                        nn_ops, normalization, operators, padding, pointwise, pointwise_math, pooling, ranges,
                        reduction, scans, selection, shape, shape_compositions, special, special_math, ternary,
                        unpack_order, vector_products, view_copies, views],
                       [FUNCTIONS, METHODS])

_PROPERTIES = ("T", "mT", "real", "imag")

for _name, _fn in METHODS.items():
    if _name in _PROPERTIES:
        setattr(Tensor, _name, property(_fn))
    else:
        setattr(Tensor, _name, _fn)

# The formulas' namespace on tensors calls these operations.
formula_math.install(
    recorded=record.recorded, nodes=formulas.NODES, copy_into_new=inplace.copy_into_new,
    index_put_into_zeros=indexing.index_put_into_zeros, im2col=convolution.im2col, col2im=convolution.col2im,
    einsum=contraction.einsum, trilinear=contraction.trilinear, constant_pad=padding.constant_pad, cat=shape.cat,
    stack=shape.stack, where=ternary.where, div_by_number=special.div_by_number, mul_by_number=special.mul_by_number,
    logsigmoid=activations.logsigmoid, fft_c2c=fourier.fft_c2c, fft_r2c=fourier.fft_r2c,
    linalg_solve=linalg_solvers.solve)
TensorMode.F = formula_math.TensorMath

__all__ = ["FUNCTIONS", "METHODS"]
