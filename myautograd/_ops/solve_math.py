"""The gradients and forward-mode rules of ``inv``, ``solve``, ``det`` and ``slogdet``, written over ``F`` so
that they run on arrays and, under ``create_graph``, on tensors (recording torch's nodes: a solve with the
adjoint is LinalgSolveExBackward0). Formulas of torch's derivatives.yaml for invertible matrices.
"""

from __future__ import annotations

import numpy as np


def adjoint(F, x):
    return F.conj(F.mT(x))


def _as_matrix(F, x, vector_case: bool):
    return F.unsqueeze(x, -1) if vector_case else x


def inv_backward(F, grad, inverse):
    """``-A^{-H} grad A^{-H}``."""
    return -F.matmul(adjoint(F, inverse), F.matmul(grad, adjoint(F, inverse)))


def inv_jvp(tangents, values, F):
    inverse = values["result"]
    return -F.matmul(F.matmul(inverse, tangents[0]), inverse)


def solve_backward_B(F, grad, A, vector_case: bool):
    """``B``'s gradient of ``X = A^{-1} B``: ``A^{-H} grad`` (a vector for a vector ``B``)."""
    gB = F.linalg_solve(adjoint(F, A), _as_matrix(F, grad, vector_case))
    return F.squeeze_dim(gB, -1) if vector_case else gB


def solve_backward_A(F, grad, A, result, vector_case: bool):
    """``A``'s gradient of ``X = A^{-1} B``: ``-(A^{-H} grad) X^H``."""
    gB = F.linalg_solve(adjoint(F, A), _as_matrix(F, grad, vector_case))
    return -F.matmul(gB, adjoint(F, _as_matrix(F, result, vector_case)))


def solve_jvp(tangents, values, F):
    """``A^{-1} (B_t - A_t X)``, a missing tangent left out."""
    A_t, B_t = tangents
    A, X, vector_case = values["A"], values["result"], values["vector_case"]
    rhs = None if B_t is None else _as_matrix(F, B_t, vector_case)
    if A_t is not None:
        product = F.matmul(A_t, _as_matrix(F, X, vector_case))
        rhs = -product if rhs is None else rhs - product
    X_t = F.linalg_solve(A, rhs)
    return F.squeeze_dim(X_t, -1) if vector_case else X_t


def _eye_times(F, scale, A):
    """``scale`` (one number per matrix) times the identity, shaped as the matrices of ``A``."""
    eye = F.constant(np.eye(A.shape[-1]), A)
    return F.unsqueeze(F.unsqueeze(scale, -1), -1) * eye


def det_backward(F, grad, det, A):
    """``grad det A^{-H}``, as a solve with ``A^H`` (zeros for empty matrices, as torch's)."""
    if int(np.prod(A.shape)) == 0:
        return F.zeros_like(A)
    return F.linalg_solve(adjoint(F, A), _eye_times(F, grad * F.conj(det), A))


def _trace_of_solve(F, A, A_t):
    """``trace(A^{-1} A_t)`` of each matrix."""
    return F.sum(F.diagonal(F.linalg_solve(A, A_t), 0, -2, -1), (-1,))


def det_jvp(tangents, values, F):
    """``det trace(A^{-1} A_t)``."""
    return values["result"] * _trace_of_solve(F, values["A"], tangents[0])


def slogdet_backward(F, grad_logabsdet, A):
    """A real matrix's gradient of ``log|det A|``: ``grad A^{-T}`` (the sign's is zero)."""
    return F.linalg_solve(adjoint(F, A), _eye_times(F, grad_logabsdet, A))


def slogdet_jvp(tangents, values, F):
    """The sign's tangent zero (real matrices), ``log|det|``'s ``trace(A^{-1} A_t)``."""
    return [F.zeros_like(values["result0"]), _trace_of_solve(F, values["A"], tangents[0])]
