"""``torch.linalg``'s inverse, solve and determinants: ``inv``/``inv_ex`` (LinalgInvExBackward0),
``solve``/``solve_ex`` (LinalgSolveExBackward0), ``det`` (LinalgDetBackward0), ``slogdet``
(LinalgSlogdetBackward0) and ``torch.logdet`` (composed as torch's: the log of ``|det|`` where the sign is
not -1, WhereBackward0).

The values come from NumPy's LAPACK calls on invertible matrices. A singular matrix (a pivot of exactly zero
in the LU factorization with partial pivoting, ``singular_pivots``) is refused with torch's ``LinAlgError``
by ``inv`` and ``solve``; ``inv_ex`` and ``solve_ex`` report it in ``info`` and give NaN where torch's LAPACK
gives its own NaN and infinities. The gradients are torch's formulas for invertible matrices (solves with the
adjoint), so the graphs under ``create_graph`` carry torch's nodes.
"""

from __future__ import annotations

import numpy as np

from .. import _backend, _dtype, return_types
from .._autograd.record import record, recorded, records
from .._tensor import Tensor, make_tensor
from .derivatives import NODES
from .registry import export


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a matrix the operation cannot factor (its class is ``torch._C._LinAlgError``)."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"


def check_matrices(A: Tensor, name: str) -> None:
    """torch's checks of a batch of square floating or complex matrices, in its order and words."""
    data = A._data
    if data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if data.shape[-1] != data.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {data.shape[-2]} by "
                           f"{data.shape[-1]} matrices")
    if _dtype.kind(data.dtype) not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{A.dtype.scalar_type_name}")


def singular_pivots(data) -> np.ndarray:
    """LAPACK's ``info`` of each matrix's LU factorization with partial pivoting: the 1-based index of the first
    pivot that is exactly zero, 0 for an invertible matrix (int32, of the batch's shape)."""
    lu = _backend.to_numpy(data).astype(np.complex128 if data.dtype.kind == "c" else np.float64)
    n = lu.shape[-1]
    lu = lu.reshape(int(np.prod(data.shape[:-2])), n, n).copy()
    info = np.zeros(lu.shape[0], dtype=np.int32)
    rows = np.arange(lu.shape[0])
    for k in range(n):
        pivot = k + np.argmax(np.abs(lu[:, k:, k]), axis=1)
        lu[rows, k], lu[rows, pivot] = lu[rows, pivot], lu[rows, k].copy()
        diagonal = lu[:, k, k]
        zero = diagonal == 0
        info[(info == 0) & zero] = k + 1
        safe = np.where(zero, 1, diagonal)
        factors = np.where(zero[:, None], 0, lu[:, k + 1:, k] / safe[:, None])
        lu[:, k + 1:, k + 1:] -= factors[:, :, None] * lu[:, None, k, k + 1:]
    return info.reshape(data.shape[:-2])


def _raise_singular(info: np.ndarray, name: str, reason) -> None:
    """torch's LinAlgError for the first singular matrix (``reason(pivot)`` says why), its batch element named."""
    flat = info.reshape(-1)
    first = int(np.flatnonzero(flat)[0])
    where = f"(Batch element {first}): " if info.ndim else ""
    raise LinAlgError(f"{name}: {where}{reason(int(flat[first]))}")


def _solved(solve, data, info):
    """``solve(data)`` for invertible matrices; NaN for the singular ones (``info`` > 0)."""
    if not info.any():
        return solve(data)
    nonsingular = np.where((info == 0)[..., None, None], data, np.eye(data.shape[-1], dtype=data.dtype))
    out = solve(nonsingular)
    return np.where((info == 0).reshape(info.shape + (1,) * (out.ndim - info.ndim)), out, np.nan)


def _info_tensor(info: np.ndarray, like) -> Tensor:
    return make_tensor(_backend.host_value(info, like))


def inv_ex(A: Tensor, *, check_errors: bool = False):
    """``torch.linalg.inv_ex``: the inverse of each matrix and LAPACK's ``info`` (LinalgInvExBackward0)."""
    check_matrices(A, "linalg.inv")
    info = singular_pivots(A._data)
    if check_errors and info.any():
        _raise_singular(info, "linalg.inv", lambda pivot: f"The diagonal element {pivot} is zero, the inversion could "
                                                          "not be completed because the input matrix is singular.")
    out = _backend.as_array(_solved(np.linalg.inv, A._data, info), dtype=A._data.dtype)
    inverse = record(NODES["LinalgInvExBackward0"], out, (A,), {}) if records(A) else make_tensor(out)
    return return_types.linalg_inv_ex(inverse, _info_tensor(info, A._data))


def inv(A: Tensor) -> Tensor:
    """``torch.linalg.inv``: ``inv_ex`` that refuses a singular matrix."""
    return inv_ex(A, check_errors=True).inverse


def solve_is_vector(A_shape: tuple, B_shape: tuple) -> bool:
    """torch's reading of ``B`` as a (batch of) vector(s): 1-D, or the shape of ``A`` without its last dim."""
    return len(B_shape) == 1 or (len(B_shape) == len(A_shape) - 1 and tuple(B_shape) == tuple(A_shape[:-1]))


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False):
    """``torch.linalg.solve_ex``: ``X`` with ``A X = B`` (``B`` a matrix or a vector, the batches broadcast) and
    LAPACK's ``info`` (LinalgSolveExBackward0)."""
    if not left:
        raise NotImplementedError("myautograd does not implement torch.linalg.solve(left=False) (see "
                                  "docs/myautograd.md)")
    check_matrices(A, "linalg.solve")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype.scalar_type_name} and B of type {B.dtype.scalar_type_name} instead")
    a, b = A._data, B._data
    vector = solve_is_vector(a.shape, b.shape)
    matrix = b[..., None] if vector else b
    if matrix.shape[-2] != a.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B ({a.shape[-2]}x"
                           f"{a.shape[-1]} and {matrix.shape[-2]}x{matrix.shape[-1]})")
    info = singular_pivots(a)
    if check_errors and info.any():
        _raise_singular(info, "torch.linalg.solve", lambda pivot: "The solver failed because the input matrix is "
                                                                  "singular.")
    batch = np.broadcast_shapes(a.shape[:-2], matrix.shape[:-2])
    solved = _solved(lambda m: np.linalg.solve(np.broadcast_to(m, batch + m.shape[-2:]),
                                               np.broadcast_to(matrix, batch + matrix.shape[-2:])), a, info)
    out = _backend.as_array(solved[..., 0] if vector else solved, dtype=a.dtype)
    result = recorded(NODES["LinalgSolveExBackward0"], out, (A, B), {"vector_case": vector})
    return return_types.linalg_solve_ex(result, _info_tensor(np.broadcast_to(info, batch), a))


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """``torch.linalg.solve``: ``solve_ex`` that refuses a singular matrix."""
    return solve_ex(A, B, left=left, check_errors=True).result


def det(A: Tensor) -> Tensor:
    """``torch.linalg.det``: the determinant of each matrix (LinalgDetBackward0)."""
    check_matrices(A, "linalg.det")
    out = _backend.as_array(np.linalg.det(A._data), dtype=A._data.dtype)
    return record(NODES["LinalgDetBackward0"], out, (A,), {}) if records(A) else make_tensor(out)


def slogdet(A: Tensor, name: str = "linalg.slogdet"):
    """``torch.linalg.slogdet``: the sign and the log of the absolute value of each determinant, two outputs of
    one LinalgSlogdetBackward0 (the sign's tangent and gradient zero for real matrices)."""
    check_matrices(A, name)
    if A.is_complex():
        raise NotImplementedError("myautograd does not implement torch.linalg.slogdet of complex matrices (see "
                                  "docs/myautograd.md)")
    sign, logabsdet = np.linalg.slogdet(A._data)
    outputs = (_backend.as_array(sign, dtype=A._data.dtype),
               _backend.as_array(logabsdet, dtype=A._data.dtype))
    if records(A):
        return return_types.linalg_slogdet(*record(NODES["LinalgSlogdetBackward0"], outputs, (A,), {}, outputs=2))
    return return_types.linalg_slogdet(*(make_tensor(output) for output in outputs))


@export
def logdet(input: Tensor) -> Tensor:
    """The log of the determinant as torch composes it: ``logabsdet`` where the sign is not -1, else NaN."""
    sign, logabsdet = slogdet(input, "logdet")
    if input.is_complex():
        return sign.log() + logabsdet
    return logabsdet.where(sign != -1, float("nan"))
