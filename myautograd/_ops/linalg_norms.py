"""``torch.linalg``'s norms: ``vector_norm``, ``matrix_norm`` and ``norm``, composed as torch's are.

``vector_norm`` records LinalgVectorNormBackward0 (``reduction._vector_norm``), after torch's checks of its
dtype and of an order without identity on an empty tensor. ``matrix_norm`` is the vector 2-norm (Frobenius),
the sum (nuclear), largest or smallest (2, -2) of the singular values of the matrices moved to the last two
dims (``linalg.linalg_svd``), or the largest or smallest (1, -1, inf, -inf) of the 1-norms of the columns or
rows (amax/amin of a vector norm). ``norm`` picks one of the two as torch's does.
"""

from __future__ import annotations

import math
import numbers

from .. import _dtype
from .._tensor import Tensor
from .common import normalize_dim, to_dtype
from .linalg import linalg_svd
from .reduction import _dims_arg, _vector_norm

_NO_IDENTITY = "because the operation does not have an identity"


def _order_text(ord) -> str:
    """An order as torch's C++ code prints a double: ``inf``, ``-1``, ``-0.5``."""
    return f"{ord:g}"


def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """``torch.linalg.vector_norm``: the ``ord``-norm of the elements over ``dim`` (all of them without it),
    computed in ``dtype`` when given."""
    if not isinstance(ord, numbers.Number) or isinstance(ord, bool):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not {type(ord).__name__}")
    x = _in_norm_dtype(x, dtype, "linalg.vector_norm")
    if ord < 0 or math.isinf(ord):
        _check_identity(x, ord, dim)
    return _vector_norm(x, ord, dim, keepdim)


def _in_norm_dtype(x: Tensor, dtype, name: str) -> Tensor:
    """A norm's input as torch checks it (floating or complex), cast to its ``dtype=`` when given."""
    if _dtype.kind(x._data.dtype) not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{x.dtype.scalar_type_name}")
    return x if dtype is None else x.to(_checked_dtype(x, to_dtype(dtype), name))


def _checked_dtype(x: Tensor, dtype, name: str):
    """The ``dtype=`` of a norm as torch checks it: floating or complex, of the input's kind, not narrower."""
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got {dtype.scalar_type_name}")
    if x.is_complex() != dtype.is_complex:
        kind = "complex" if x.is_complex() else "real"
        raise RuntimeError(f"{name}: dtype should be {kind} for {kind} inputs, but got {dtype.scalar_type_name}")
    if _dtype.promote_types(x.dtype, dtype) != dtype:
        raise RuntimeError(f"{name}: the dtype of the input ({x.dtype.scalar_type_name}) should be convertible "
                           f"without narrowing to the specified dtype ({dtype.scalar_type_name})")
    return dtype


def _check_identity(x: Tensor, ord, dim) -> None:
    """A negative or infinite order has no identity: torch refuses it over an empty tensor or dim."""
    shape = x._data.shape
    axes = _dims_arg(dim, len(shape))
    if axes is None:
        if x._data.size == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {_order_text(ord)} norm on an empty tensor "
                               f"{_NO_IDENTITY}")
        return
    for given, axis in zip(dim if isinstance(dim, (list, tuple)) else (dim,), axes):
        if shape[axis] == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {_order_text(ord)} norm on the dimension "
                               f"{given}because this dimension is empty and the operation does not have an identity")


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:
    """``torch.linalg.matrix_norm``: the ``ord``-norm of the matrices over the two dims ``dim``."""
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    elif abs(ord) not in (1, 2, math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {_order_text(ord)} not supported.")
    ndim = A._data.ndim
    if ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    dims = tuple(dim)
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dims)}")
    first, second = normalize_dim(dims[0], ndim), normalize_dim(dims[1], ndim)
    if first == second:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({first}, {second})")
    A = _in_norm_dtype(A, dtype, "linalg.matrix_norm")
    if ord == "fro":
        return _vector_norm(A, 2, (first, second), keepdim)
    if ord == "nuc" or abs(ord) == 2:
        return _of_singular_values(A, ord, (first, second), keepdim)
    rows, columns = (second, first) if math.isinf(ord) else (first, second)
    if not keepdim and rows < columns:
        columns -= 1
    norms = _vector_norm(A, 1, rows, keepdim)
    return norms.amax(columns, keepdim) if ord > 0 else norms.amin(columns, keepdim)


def _of_singular_values(A: Tensor, ord, dims: tuple, keepdim: bool) -> Tensor:
    """The nuclear norm (their sum) or the 2-norm (their largest; -2: smallest) of the singular values of the
    matrices over ``dims``, moved to the end as torch's ``linalg.svdvals`` takes them."""
    ndim = A._data.ndim
    permutation = [d for d in range(ndim) if d not in dims] + list(dims)
    _, S, _ = linalg_svd(A.permute(*permutation))
    if ord == "nuc":
        out = S.sum(-1, keepdim=keepdim)
    else:
        out = S.amax(-1, keepdim) if ord > 0 else S.amin(-1, keepdim)
    if not keepdim:
        return out
    inverse = [permutation.index(d) for d in range(ndim)]
    return out.unsqueeze(-1).permute(*inverse)


def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """``torch.linalg.norm``: a matrix norm for a string order, or a numeric one over two dims (those of a 2-D
    input without ``dim``); otherwise the vector norm (the 2-norm without ``ord``)."""
    dims = None if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    if dims is not None and len(dims) not in (1, 2) and not isinstance(ord, str):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dims)}")
    if dims is None and ord is not None and A._data.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A._data.ndim}D.")
    if isinstance(ord, str):
        return matrix_norm(A, ord, dims or (0, 1), keepdim, dtype=dtype)
    if ord is not None and ((dims is not None and len(dims) == 2) or (dims is None and A._data.ndim == 2)):
        return matrix_norm(A, ord, dims or (0, 1), keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
