"""Matrix products: matmul and the ops it dispatches to (dot, mv, mm, bmm), addmm, baddbmm, addmv, addbmm, addr
and linear.

``matmul`` follows torch's decomposition so graphs carry torch's nodes: 1-D @ 2-D is
``unsqueeze -> mm -> squeeze``, batched @ matrix folds the batch into rows (``view -> mm ->
_unsafe_view``), batched @ batched broadcasts and uses ``bmm``. ``linear`` is ``addmm`` on the
transposed weight, as in torch. float16 and bfloat16 products accumulate in float32 and round once.
"""


from __future__ import annotations

import numpy as np

from .. import _backend
from .._autograd.record import record, recorded, records
from .._autograd.views import make_view
from .._dtype import REDUCED_FLOATS
from .._reduced import in_float32
from .._tensor import Tensor, make_tensor
from . import formula_helpers as H
from .common import check_tensor, device_error, normalize_dim
from .derivatives import NODES
from .registry import export, method

_product = in_float32(np.matmul)
_dot = in_float32(np.dot)
_times = in_float32(np.multiply)


# The products of the add-and-multiply ops: addmm's and addmv's, addbmm's (the batch's products summed), addr's
_PRODUCTS = {"matmul": np.matmul, "summed_bmm": lambda a, b: np.matmul(a, b).sum(0), "outer": np.multiply.outer}


@in_float32
def _scaled_product_plus(bias, a, b, alpha, beta, product="matmul"):
    """``alpha * (a @ b) + beta * bias`` (``product`` names another product of ``a`` and ``b``, one of
    ``_PRODUCTS``); float16 and bfloat16 rounded once, after the sum (torch's CPU gemm)."""
    out = _PRODUCTS[product](a, b)
    if alpha != 1:
        out *= alpha
    if beta != 0:  # torch ignores the bias when beta is 0, NaN and infinities included
        out += bias if beta == 1 else bias * beta
    return out


def _same_dtype(a: Tensor, b: Tensor, op: str) -> None:
    if a._data.dtype != b._data.dtype:
        operands = "m1 and m2" if a.device.type == "cpu" else "mat1 and mat2"  # torch's CPU and CUDA kernels
        raise RuntimeError(f"expected {operands} to have the same dtype, but got: {a.dtype.c_name} != {b.dtype.c_name}"
                           if op == "mm" else
                           f"expected scalar type {a.dtype.scalar_type_name} but found {b.dtype.scalar_type_name}")
    if type(a._data) is not type(b._data):
        raise device_error(a._data, b._data)


def _check_vectors(input: Tensor, tensor: Tensor) -> None:
    if input._data.ndim != 1 or tensor._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {tensor._data.ndim}D tensors")
    if input._data.shape != tensor._data.shape:
        n, m = input._data.shape[0], tensor._data.shape[0]
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same number of "
                           f"elements, but got {n} and {m} elements respectively")
    if input._data.dtype != tensor._data.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {input.dtype.scalar_type_name} "
                           f"and {tensor.dtype.scalar_type_name}")
    _same_dtype(input, tensor, "dot")


@export
def dot(input, tensor):
    _check_vectors(input, tensor)
    return recorded(NODES["DotBackward0"], _backend.as_array(_dot(input._data, tensor._data)), (input, tensor))


@export
def vdot(input, other):
    """The conjugate of ``input`` dotted with ``other``."""
    _check_vectors(input, other)
    return recorded(NODES["VdotBackward0"], _backend.as_array(np.vdot(input._data, other._data)), (input, other))


@export
def mv(input, vec):
    a, v = input._data, vec._data
    if a.ndim != 2 or v.ndim != 1 or a.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0] if a.ndim else 1}), mat "
                           f"({'x'.join(str(n) for n in a.shape)}), vec ({v.shape[0] if v.ndim else 1})")
    _same_dtype(input, vec, "mv")
    return recorded(NODES["MvBackward0"], _product(a, v), (input, vec))


@export
def mm(input, mat2):
    a, b = input._data, mat2._data
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b.shape[0]}x{b.shape[1]})")
    _same_dtype(input, mat2, "mm")
    # torch's CPU kernel forms an outer product (k = 1, several rows and columns) from the products
    # themselves, which keeps the sign of a zero (0 * -1.7 is -0.0); a BLAS call sums from +0.0
    outer = isinstance(a, np.ndarray) and a.shape[1] == 1 and a.shape[0] > 1 and b.shape[1] > 1
    product = _product if a.dtype in REDUCED_FLOATS else np.matmul  # (the same dtype: checked above)
    return recorded(NODES["MmBackward0"], _times(a, b) if outer else product(a, b), (input, mat2),
                    {"self_column_major": H.column_major(a), "mat2_column_major": H.column_major(b)})


@export
def bmm(input, mat2):
    a, b = input._data, mat2._data
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, "
                           f"{a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    _same_dtype(input, mat2, "bmm")
    return recorded(NODES["BmmBackward0"], _product(a, b), (input, mat2))


def _unsafe_view(input: Tensor, shape: tuple) -> Tensor:
    out = input._data.reshape(shape)
    return recorded(NODES["UnsafeViewBackward0"], out, (input,), {"self_sym_sizes": input._data.shape})


@export
def matmul(input, other):
    check_tensor(input, "matmul")
    check_tensor(other, "matmul", "other", 2)
    a_dim, b_dim = input._data.ndim, other._data.ndim
    if a_dim == 0 or b_dim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a_dim}D and {b_dim}D")
    if a_dim == 1 and b_dim == 1:
        return dot(input, other)
    if a_dim == 2 and b_dim == 1:
        return mv(input, other)
    if a_dim == 1 and b_dim == 2:
        product = mm(input.unsqueeze(0), other)
        return make_view(product, product._data.reshape(product._data.shape[1:]), "SqueezeBackward4",
                         {"dim": 0, "self_sym_sizes": product._data.shape})
    if a_dim == 2 and b_dim == 2:
        return mm(input, other)
    if a_dim == 3 and b_dim == 3:
        # torch squeezes a batch of one that requires grad beside a longer one: a matrix, whose gradient is then
        # one mm, not a bmm's batch of products summed
        batch_a, batch_b = input._data.shape[0], other._data.shape[0]
        if batch_b == 1 != batch_a and other._requires_grad:
            return matmul(input, other.squeeze(0))
        if batch_a == 1 != batch_b and input._requires_grad:
            return matmul(input.squeeze(0), other)
    if _should_fold(input, other):
        return _folded_matmul(input, other)
    return _batched_matmul(input, other)


def _strides(data) -> tuple:
    return tuple(s // data.itemsize for s in data.strides)


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """torch's choice (``should_fold``) to fold the batch of the larger operand into the rows of one
    mm or mv instead of a bmm: always when the smaller operand requires grad (its gradient is then
    no batch-sized temporary), else when the fold is a view."""
    larger = a if a._data.ndim >= b._data.ndim else b.mT
    smaller = b if a._data.ndim >= b._data.ndim else a
    if not (larger._data.ndim >= 3 and smaller._data.ndim <= 2):
        return False
    if smaller._requires_grad:
        return True
    if a._data.ndim == 2:
        return False
    data = larger._data
    if data.size == 0:
        return True
    shape, strides = data.shape, _strides(data)
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(data.ndim - 2))


def _folded_matmul(a: Tensor, b: Tensor) -> Tensor:
    """The larger operand's batch folded into rows: ``(t1.reshape(-1, k) @ t2)`` viewed back; for a
    larger right operand through ``(b^T @ a^T)^T``, made contiguous as torch does."""
    transpose = b._data.ndim > a._data.ndim
    t1 = b.mT if transpose else a
    t2 = (a.t() if a._data.ndim == 2 else a) if transpose else b
    sizes = t1._data.shape
    shape = sizes[:-1]
    rows = t1.reshape(int(np.prod(shape)), sizes[-1])
    if t2._data.ndim == 2:
        output = _unsafe_view(mm(rows, t2), shape + (t2._data.shape[1],))
        return output.mT.contiguous() if transpose else output
    return _unsafe_view(mv(rows, t2), shape)


def _batched_matmul(input: Tensor, other: Tensor) -> Tensor:
    a = input.unsqueeze(0) if input._data.ndim == 1 else input
    b = other.unsqueeze(-1) if other._data.ndim == 1 else other
    if a._data.shape[-1] != b._data.shape[-2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{int(np.prod(a._data.shape[:-2]))}, {a._data.shape[-1]}] but got: "
                           f"[{int(np.prod(b._data.shape[:-2]))}, {b._data.shape[-2]}].")
    try:
        batch = np.broadcast_shapes(a._data.shape[:-2], b._data.shape[:-2])
    except ValueError:
        from .common import broadcast_error

        raise broadcast_error(a._data.shape[:-2], b._data.shape[:-2]) from None
    n, k, m = a._data.shape[-2], a._data.shape[-1], b._data.shape[-1]
    size = int(np.prod(batch)) if batch else 1
    left = a.expand(*batch, n, k).reshape(size, n, k)
    right = b.expand(*batch, k, m).reshape(size, k, m)
    shape = tuple(batch) + (n, m)
    product = bmm(left, right)
    if input._data.ndim == 1:
        shape = tuple(batch) + (m,)
    elif other._data.ndim == 1:  # torch drops the vector's dim before viewing the batch back
        shape, product = tuple(batch) + (n,), product.squeeze(-1)
    return _unsafe_view(product, shape)


@export
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    a, b = mat1._data, mat2._data
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({'x'.join(map(str, a.shape))} and "
                           f"{'x'.join(map(str, b.shape))})")
    from .views import expand_shape

    expand_shape(input._data.shape, (a.shape[0], b.shape[1]),
                 input.dtype.message_type_name(input.device.type))  # torch's error
    out = _scaled_product_plus(input._data, a, b, alpha, beta)
    return recorded(NODES["AddmmBackward0"], out, (input, mat1, mat2),
                    {"alpha": alpha, "beta": beta, "mat1_column_major": H.column_major(a),
                     "mat2_column_major": H.column_major(b)})


@export
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)`` for batches of matrices, ``input`` broadcast to the product
    (BaddbmmBackward0; MultiheadAttention adds its mask to the attention scores this way)."""
    a, b = batch1._data, batch2._data
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, "
                           f"{a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    _same_dtype(batch1, batch2, "bmm")
    out = _product(a, b)
    if alpha != 1:
        out *= alpha
    from .views import expand_shape

    expand_shape(input._data.shape, out.shape, input.dtype.message_type_name(input.device.type))  # torch's error
    if beta != 0:  # as addmm: a zero beta ignores the input, NaN and infinities included
        out += input._data if beta == 1 else input._data * beta
    return recorded(NODES["BaddbmmBackward0"], out, (input, batch1, batch2), {"alpha": alpha, "beta": beta})


def _scaled_plus_input(input, a, b, alpha, beta, product, node):
    """``beta * input + alpha * product(a, b)``, the input broadcast to the product (torch's expand message),
    recorded as ``node`` (which saves ``beta`` and ``alpha``)."""
    from .views import expand_shape

    shape = (a._data.shape[-2], b._data.shape[-1]) if product == "summed_bmm" else \
        (a._data.shape[0],) if product == "matmul" else (a._data.shape[0], b._data.shape[0])
    expand_shape(input._data.shape, shape, input.dtype.message_type_name(input.device.type))
    out = _scaled_product_plus(input._data, a._data, b._data, alpha, beta, product)
    return recorded(NODES[node], out, (input, a, b), {"alpha": alpha, "beta": beta})


@export
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``, the input broadcast to the product (AddmvBackward0)."""
    m, v, i = mat._data, vec._data, input._data
    if m.ndim != 2 or v.ndim != 1 or i.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {i.ndim}, {m.ndim}, {v.ndim}")
    if m.shape[1] != v.shape[0] or (i.ndim == 1 and i.shape[0] not in (1, m.shape[0])):
        raise RuntimeError(f"size mismatch, got input ({i.shape[0] if i.ndim else 1}), mat ({m.shape[0]}x{m.shape[1]}), "
                           f"vec ({v.shape[0]})")
    if not i.dtype == m.dtype == v.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {input.dtype.scalar_type_name}, "
                           f"{mat.dtype.scalar_type_name}, and {vec.dtype.scalar_type_name}")
    return _scaled_plus_input(input, mat, vec, alpha, beta, "matmul", "AddmvBackward0")


@export
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``, the input broadcast to the sum (AddbmmBackward0)."""
    a, b = batch1._data, batch2._data
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    normalize_dim(2, b.ndim)  # torch reads batch2's last size first: its IndexError
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {a.shape[0]} and {b.shape[0]}")
    if a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({a.shape[1]}x{a.shape[2]} and {b.shape[1]}x{b.shape[2]})")
    if a.dtype != b.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {batch1.dtype.scalar_type_name} and "
                           f"{batch2.dtype.scalar_type_name}")
    return _scaled_plus_input(input, batch1, batch2, alpha, beta, "summed_bmm", "AddbmmBackward0")


@export
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``, the input broadcast to the outer product (AddrBackward0)."""
    for name, vec in (("vec1", vec1), ("vec2", vec2)):
        if vec._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {vec._data.ndim}-D")
    return _scaled_plus_input(input, vec1, vec2, alpha, beta, "outer", "AddrBackward0")


method(matmul, name="__matmul__")
method(lambda self, other: matmul(other, self), name="__rmatmul__")


def linear(input, weight, bias=None):
    """``input @ weight.T + bias`` with torch's graph: addmm for 2-D input, else views around it."""
    if bias is None:
        return matmul(input, weight.t())
    if input._data.ndim == 2:
        return addmm(bias, input, weight.t())
    rows = input.reshape(-1, input._data.shape[-1])
    product = addmm(bias, rows, weight.t())
    return product.view(*input._data.shape[:-1], weight._data.shape[0])


def linalg_svd(A: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """The reduced SVD of real matrices (the last two dims): ``U``, ``S`` (descending), ``Vh``, computed in
    float64 and rounded once (LinalgSvdBackward0, as torch's ``linalg_svd``; myautograd has no
    ``torch.linalg``, the nuclear norm calls it)."""
    data = A._data
    if data.dtype.kind == "c":
        raise NotImplementedError("myautograd does not implement the singular value decomposition of complex matrices "
                                  "(torch.norm(input, 'nuc') of a complex tensor; see docs/myautograd.md)")
    factors = np.linalg.svd(data.astype(np.float64, copy=False), full_matrices=False)
    outputs = tuple(_backend.as_array(factor.astype(data.dtype, copy=False)) for factor in factors)
    if records(A):
        return record(NODES["LinalgSvdBackward0"], outputs, (A,), {}, outputs=3)
    return tuple(make_tensor(output) for output in outputs)


def svdvals(A: Tensor) -> Tensor:
    """``torch.linalg.svdvals``: the singular values (descending) of real matrices, the reduced SVD's second output
    (LinalgSvdBackward0, output 1, as torch's), after torch's checks."""
    data = A._data
    if data.ndim < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    if data.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.svd: Expected a floating point or complex tensor as input. Got "
                           f"{A.dtype.scalar_type_name}")
    if data.dtype in REDUCED_FLOATS:
        raise NotImplementedError(f"\"linalg_svd_cpu\" not implemented for '{A.dtype.scalar_type_name}'")
    return linalg_svd(A)[1]


def nuclear_norm(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """The sum of the singular values of the matrices over ``dim`` (two dims; all, of a 2-D tensor), as
    torch's ``linalg.matrix_norm``: those dims permuted to the end, the SVD, a sum."""
    ndim = input._data.ndim
    dims = tuple(range(ndim)) if dim is None else tuple(dim)
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dims)}")
    dims = tuple(normalize_dim(d, ndim) for d in dims)
    permutation = [d for d in range(ndim) if d not in dims] + list(dims)
    _, S, _ = linalg_svd(input.permute(*permutation))
    out = S.sum(-1, keepdim=keepdim)
    return out.unsqueeze(-1).permute(*np.argsort(permutation).tolist()) if keepdim else out


@export(method=False)
def cdist(x1, x2, p=2.0, compute_mode=None):
    """The p-norm distance between each row of ``x1`` and each row of ``x2`` (batch dims broadcast;
    CdistBackward0, which torch has no forward-mode formula for)."""
    a, b = x1._data, x2._data
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {a.shape[-1]} X2: {b.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    difference = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        out = (difference != 0).sum(-1).astype(a.dtype)
    elif p == np.inf:
        out = difference.max(-1, initial=0)
    else:
        out = (difference ** p).sum(-1) ** (1.0 / p)
    return recorded(NODES["CdistBackward0"], out.astype(a.dtype, copy=False), (x1, x2), {"p": float(p)})
