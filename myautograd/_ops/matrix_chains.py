"""Products of several matrices: ``torch.linalg.multi_dot`` and ``torch.linalg.matrix_power``, composed of
``mm``/``matmul`` (and ``linalg.inv`` for a negative power) as torch's are, so their graphs carry the nodes of
those products.

``multi_dot`` multiplies in the order that needs the fewest scalar multiplications (a first vector as a row, a
last one as a column), then views the result to drop those dims (ViewBackward0). ``matrix_power`` squares
the matrix (its inverse for a negative power) for each bit of the exponent, from the least significant, and
multiplies in the squares of the bits that are set; a power of 0 copies the identity into a copy of the input
(CopyBackwards).
"""

from __future__ import annotations

from .._tensor import Tensor
from .creation import eye
from .linalg import matmul, mm
from .linalg_solvers import check_matrices, inv


def multi_dot(tensors) -> Tensor:
    """``torch.linalg.multi_dot``: the product of the matrices (the first and last may be vectors)."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    for position, t in ((0, first), (n - 1, last)):
        if t._data.ndim not in (1, 2):
            raise RuntimeError(f"multi_dot(): the {'first' if position == 0 else 'last'} tensor must be 1D or 2D but "
                               f"got {t._data.ndim}D")
    for i in range(1, n - 1):
        if tensors[i]._data.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i]._data.ndim}D")
    matrices = [first.unsqueeze(0) if first._data.ndim == 1 else first, *tensors[1:-1],
                last.unsqueeze(-1) if last._data.ndim == 1 else last]
    for i in range(1, n):
        if matrices[i]._data.dtype != matrices[0]._data.dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{matrices[0].dtype.c_name} and tensor {i} {matrices[i].dtype.c_name}")
        if matrices[i - 1]._data.shape[-1] != matrices[i]._data.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes {list(tensors[i - 1]._data.shape)} "
                               f"and {list(tensors[i]._data.shape)} cannot be multiplied")
    shape = ([first._data.shape[0]] if first._data.ndim == 2 else []) + \
        ([last._data.shape[1]] if last._data.ndim == 2 else [])
    return _chain_product(matrices).view(*shape)


def _chain_product(matrices: list) -> Tensor:
    """The product in the cheapest order (ties: the earliest split), as torch's matrix chain order."""
    n = len(matrices)
    if n == 2:
        return mm(matrices[0], matrices[1])
    sizes = [m._data.shape[0] for m in matrices] + [matrices[-1]._data.shape[1]]
    if n == 3:
        a, b, c, d = sizes
        left_first, right_first = a * c * (b + d), b * d * (a + c)
        if left_first > right_first:
            return mm(matrices[0], mm(matrices[1], matrices[2]))
        return mm(mm(matrices[0], matrices[1]), matrices[2])
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + sizes[i] * sizes[k + 1] * sizes[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k

    def product(i: int, j: int) -> Tensor:
        if i == j:
            return matrices[i]
        return mm(product(i, split[i][j]), product(split[i][j] + 1, j))

    return product(0, n - 1)


def matrix_power(A: Tensor, n: int) -> Tensor:
    """``torch.linalg.matrix_power``: ``A`` times itself ``n`` times (of its inverse for a negative ``n``)."""
    data = A._data
    if data.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if data.shape[-1] != data.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{data.shape[-2]} by {data.shape[-1]} matrices")
    if n == 0:
        identity = eye(data.shape[-1], dtype=A.dtype, device=A.device).expand_as(A)
        return A.clone().copy_(identity)
    inverted = n < 0
    if inverted:
        check_matrices(A, "linalg.inv")
        A, n = inv(A), -n
    if n == 1:
        return A if inverted else A.clone()  # the inverse is already a new tensor
    if n == 2:
        return matmul(A, A)
    if n == 3:
        return matmul(matmul(A, A), A)
    square, result = None, None
    while n > 0:
        bit, n = n % 2, n // 2
        square = A if square is None else matmul(square, square)
        if bit:
            result = square if result is None else matmul(result, square)
    return result
