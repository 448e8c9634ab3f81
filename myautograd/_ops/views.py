"""View operations: view, reshape, squeeze, transpose, select, slicing, split, unfold, ...

Each computes a NumPy view of its input's array and hands it to ``make_view``
(``myautograd/_autograd/views.py``), which records the op's node and ties the view to its base;
that module also explains how autograd follows writes through views.
"""

from __future__ import annotations

import numpy as np

from .. import _backend, _dtype, _memory_format
from .._autograd.record import record, records
from .._autograd.views import make_view, make_views, view_positions
from .._tensor import Tensor, make_tensor
from .common import normalize_dim, normalize_dims
from .derivatives import NODES
from .registry import export, method


# -- the view ops --------------------------------------------------------------------------------------
def _shape_arg(shape) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple(int(n) for n in shape)


def _infer_shape(shape: tuple, numel: int) -> tuple:
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for n in shape:
        if n != -1:
            if n < 0:
                raise RuntimeError(f"invalid shape dimension {n}")
            known *= n
    if -1 in shape:
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                               "unspecified dimension size -1 can be any value and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if n == -1 else n for n in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def _try_view(data, shape):
    try:
        return np.reshape(data, shape, copy=False)
    except ValueError:
        return None


@export(function=False)
def view(self, *shape):
    if len(shape) == 1 and not isinstance(shape[0], (tuple, list, int)):
        return self.to(shape[0]) if self.dtype.itemsize == shape[0].itemsize else _bad_view_dtype(self, shape[0])
    shape = _infer_shape(_shape_arg(shape), self._data.size)
    data = _try_view(self._data, shape)
    if data is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.")
    return make_view(self, data, "ViewBackward0", {"self_sym_sizes": self._data.shape})


def _bad_view_dtype(self, dtype):
    raise RuntimeError(f"self.dim() cannot be 0 to view {self.dtype} as {dtype} (different element sizes)")


@method
def view_as(self, other):
    return view(self, tuple(other.shape))


@export
def reshape(input, *shape):
    shape = _infer_shape(_shape_arg(shape), input._data.size)
    data = _try_view(input._data, shape)
    if data is not None:
        # torch: a view of a contiguous tensor; _reshape_alias where strides allow a view of another
        node = "ViewBackward0" if input._data.flags.c_contiguous else "ReshapeAliasBackward0"
        return make_view(input, data, node, {"self_sym_sizes": input._data.shape})
    from .shape import clone

    copy = clone(input, memory_format=_memory_format.contiguous_format)
    out_data = copy._data.reshape(shape)
    if records(copy):
        return record(NODES["UnsafeViewBackward0"], out_data, (copy,), {"self_sym_sizes": copy._data.shape})
    return make_tensor(out_data)


@method
def reshape_as(self, other):
    return reshape(self, tuple(other.shape))


@export
def flatten(input, start_dim=0, end_dim=-1):
    ndim = input._data.ndim
    if ndim == 0:
        return reshape(input, (1,))
    start, end = normalize_dim(start_dim, ndim), normalize_dim(end_dim, ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    shape = input._data.shape
    return reshape(input, shape[:start] + (-1,) + shape[end + 1:])


@export
def unflatten(input, dim, sizes):
    dim = normalize_dim(dim, input._data.ndim)
    shape = input._data.shape
    sizes = tuple(sizes)
    known = int(np.prod([n for n in sizes if n != -1]))
    if (-1 not in sizes and known != shape[dim]) or (-1 in sizes and (known == 0 or shape[dim] % known)):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                           f"({shape[dim]}) in the input tensor")
    return view(input, shape[:dim] + sizes + shape[dim + 1:])


@export
def squeeze(input, dim=None):
    data = input._data
    if dim is None:
        return make_view(input, data.reshape(tuple(n for n in data.shape if n != 1)), "SqueezeBackward0",
                         {"self_sym_sizes": data.shape})
    if isinstance(dim, (tuple, list)):
        dims = normalize_dims(dim, data.ndim)
        shape = tuple(n for i, n in enumerate(data.shape) if not (i in dims and n == 1))
        return make_view(input, data.reshape(shape), "SqueezeBackward2", {"dim": tuple(dim), "self_sym_sizes": data.shape})
    axis = normalize_dim(dim, data.ndim)
    out = np.squeeze(data, axis) if data.ndim and data.shape[axis] == 1 else data.view()
    return make_view(input, out, "SqueezeBackward1", {"dim": dim, "self_sym_sizes": data.shape})


@export
def unsqueeze(input, dim):
    data = input._data
    axis = normalize_dim(dim, data.ndim + 1)
    return make_view(input, np.expand_dims(data, axis), "UnsqueezeBackward0", {"dim": axis})


@export
def transpose(input, dim0, dim1):
    data = input._data
    a, b = normalize_dim(dim0, data.ndim), normalize_dim(dim1, data.ndim)
    swapped = np.swapaxes(data, a, b) if data.ndim else data.view()  # a 0-dim tensor: dims 0 and -1 are itself
    return make_view(input, swapped, "TransposeBackward0", {"dim0": dim0, "dim1": dim1})


swapaxes = export(transpose, name="swapaxes")
swapdims = export(transpose, name="swapdims")


@export
def t(input):
    data = input._data
    if data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {data.ndim}D")
    return make_view(input, data.T, "TBackward0", {})


@export
def permute(input, *dims):
    dims = _shape_arg(dims)
    data = input._data
    if len(dims) != data.ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                           f"of the desired ordering of dimensions i.e. input.dim() = {data.ndim} is not equal to "
                           f"len(dims) = {len(dims)}")
    axes = normalize_dims(dims, data.ndim, unique=False)
    if len(set(axes)) != len(axes):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return make_view(input, np.transpose(data, axes), "PermuteBackward0", {"dims": dims})


@export
def movedim(input, source, destination):
    axes = list(range(input.dim()))
    given = {"source": _dim_list(source), "destination": _dim_list(destination)}
    if len(given["source"]) != len(given["destination"]):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({given['source']} dims) should "
                           f"contain the same number of dims as destination ({given['destination']} dims)")
    wrapped = {name: normalize_dims(dims, input.dim(), unique=False) for name, dims in given.items()}
    for name, dims in wrapped.items():
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({given[name]})")
    src, dst = wrapped["source"], wrapped["destination"]
    order = [a for a in axes if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute(input, order)


moveaxis = export(movedim, name="moveaxis")


def _dim_list(dims) -> list:
    return [dims] if isinstance(dims, (int, np.integer)) else list(dims)


def expand_shape(data_shape: tuple, sizes: tuple, type_name: str = "torch.FloatTensor") -> tuple:
    if len(sizes) < len(data_shape):
        raise RuntimeError(f"expand({type_name}{{{list(data_shape)}}}, size={list(sizes)}): the number of sizes "
                           f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in the "
                           f"tensor ({len(data_shape)})")
    lead = len(sizes) - len(data_shape)
    shape = list(sizes)
    for i in range(len(sizes) - 1, -1, -1):  # torch checks from the last dim
        size = sizes[i]
        current = data_shape[i - lead] if i >= lead else None
        if size == -1:
            if current is None:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                                   f"dimension {i}")
            shape[i] = current
        elif current is not None and current != 1 and current != size:
            raise RuntimeError(f"The expanded size of the tensor ({size}) must match the existing size ({current}) at "
                               f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                               f"{list(data_shape)}")
    return tuple(shape)


@method
def expand(self, *sizes):
    shape = expand_shape(self._data.shape, _shape_arg(sizes), self.dtype.message_type_name(self.device.type))
    return make_view(self, _backend.broadcast_to(self._data, shape), "ExpandBackward0",
                     {"self_sym_sizes": self._data.shape})


@method
def expand_as(self, other):
    return expand(self, tuple(other.shape))


@export(method=False)
def broadcast_to(input, size):
    return expand(input, tuple(size))


@export
def select(input, dim, index):
    data = input._data
    if data.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    axis = normalize_dim(dim, data.ndim)
    size = data.shape[axis]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(data.shape)} at dimension "
                         f"{axis}")
    key = (slice(None),) * axis + (index, Ellipsis)
    return make_view(input, data[key], "SelectBackward0", {"dim": axis, "index": index % size,
                                                           "self_sym_sizes": data.shape})


def slice_dim(input: Tensor, dim: int, start, stop, step) -> Tensor:
    """``input[..., start:stop:step]`` along ``dim`` (SliceBackward0)."""
    data = input._data
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step is not None and step < 0:
        raise ValueError("step must be greater than zero")
    start, stop, step = slice(start, stop, step).indices(data.shape[dim])
    stop = max(stop, start)
    key = (slice(None),) * dim + (slice(start, stop, step),)
    return make_view(input, data[key], "SliceBackward0", {"dim": dim, "start": start, "end": stop, "step": step,
                                                          "self_sym_sizes": data.shape})


@export
def narrow(input, dim, start, length):
    if input._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if isinstance(start, Tensor):
        if start.dim() != 0 or start.dtype.category != _dtype.INTEGER:  # a bool tensor is not one
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = start.item()
    axis = normalize_dim(dim, input._data.ndim)
    size = input._data.shape[axis]
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return slice_dim(input, axis, start, start + length, 1)


@export
def diagonal(input, offset=0, dim1=0, dim2=1):
    data = input._data
    first, second = normalize_dim(dim1, data.ndim), normalize_dim(dim2, data.ndim)
    if first == second:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    out = np.diagonal(data, offset, first, second)
    return make_view(input, out, "DiagonalBackward0", {"offset": offset, "dim1": dim1, "dim2": dim2,
                                                       "self_sym_sizes": data.shape})


@export
def as_strided(input, size, stride, storage_offset=None):
    data = input._data
    base = data if data.base is None else data.base
    offset = storage_offset if storage_offset is not None else 0
    flat = base.reshape(-1) if base.flags.c_contiguous else data.reshape(-1)
    out = _backend.as_strided(flat[offset:], tuple(size), tuple(s * data.itemsize for s in stride))
    positions = view_positions(out, data) if out.size else np.zeros(tuple(size), np.int64)
    return make_view(input, out, "AsStridedBackward0", {"positions": positions, "self_sym_sizes": data.shape})


@export
def unbind(input, dim=0):
    data = input._data
    # torch wraps the dim as for any tensor first, then refuses a 0-dim tensor naming the wrapped dim
    axis = normalize_dim(normalize_dim(dim, data.ndim), data.ndim, wrap_scalar=False)
    parts = [data[(slice(None),) * axis + (i, Ellipsis)] for i in range(data.shape[axis])]
    return make_views(input, parts, "UnbindBackward0", {"dim": axis, "result_shapes": [p.shape for p in parts]})


@export
def split(tensor, split_size_or_sections, dim=0):
    data = tensor._data
    axis = normalize_dim(dim, data.ndim)
    size = data.shape[axis]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        sizes = [min(step, size - start) for start in range(0, size, step)] if step > 0 else [size]
        node = "SplitBackward0"
    else:
        sizes = list(split_size_or_sections)
        if sum(sizes) != size:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
                               f"dimension {axis}), but got split_sizes={sizes}")
        node = "SplitWithSizesBackward0"
    parts, start = [], 0
    for n in sizes or [0]:
        parts.append(data[(slice(None),) * axis + (slice(start, start + n),)])
        start += n
    return make_views(tensor, parts, node, {"dim": axis, "result_shapes": [p.shape for p in parts]})


@export
def chunk(input, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = input._data.shape[normalize_dim(dim, input._data.ndim)]
    step = -(-size // chunks) if chunks > 0 else size
    return split(input, max(step, 1), dim)


@export
def tensor_split(input, indices_or_sections, dim=0):
    """Parts of ``input`` along ``dim``, each a slice of it (SliceBackward0): as many parts as the
    sections asked for (the first ones one longer where the size does not divide), or cut at the
    indices (a Python slice's rules: counted from the end when negative, empty when reversed)."""
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    axis = normalize_dim(dim, input.ndim)
    size = input._data.shape[axis]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = _sections_or_indices(indices_or_sections)
    if isinstance(indices_or_sections, int):
        if indices_or_sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {indices_or_sections}")
        count, extra = divmod(size, indices_or_sections)
        lengths = [count + (1 if i < extra else 0) for i in range(indices_or_sections)]
        bounds = [0, *(sum(lengths[:i + 1]) for i in range(len(lengths)))]
    else:
        bounds = [0, *indices_or_sections, size]
    return tuple(slice_dim(input, axis, start, stop, 1) for start, stop in zip(bounds, bounds[1:]))


def _sections_or_indices(tensor: Tensor):
    """tensor_split's tensor argument: a 0-dim one is the number of sections, a 1-dim one the indices."""
    if tensor.dtype != _dtype.int64:
        raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                           f"{tensor.dtype.scalar_type_name}")
    if tensor.ndim > 1:
        raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                           f"one-dimensional tensor, but got a tensor with {tensor.ndim} dims")
    return int(tensor._data) if tensor.ndim == 0 else [int(i) for i in tensor._data.tolist()]


@export(function=False)
def unfold(self, dimension, size, step):
    """Sliding windows of ``size`` with ``step`` along ``dimension``, as a new last dim (a 0-dim tensor
    counts as one element, and its one window of ``size`` 0 or 1 is the result)."""
    data = self._data
    axis = normalize_dim(dimension, data.ndim)
    length = data.shape[axis] if data.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {axis} is {length} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")

    def windows(array):
        if array.ndim == 0:
            return array.reshape(1)[:size]
        sliding = np.lib.stride_tricks.sliding_window_view(array, size, axis=axis)
        return sliding[(slice(None),) * axis + (slice(None, None, step),)]

    positions = windows(np.arange(data.size, dtype=np.int64).reshape(data.shape))
    return make_view(self, windows(data), "UnfoldBackward0", {"positions": positions, "self_sym_sizes": data.shape})


@method(name="T")
def _transpose_all(self):
    data = self._data
    return make_view(self, data.T, "PermuteBackward0", {"dims": tuple(range(data.ndim - 1, -1, -1))})


@method(name="mT")
def _matrix_transpose(self):
    return transpose(self, -2, -1)


@export
def real(input):
    if not input.is_complex():
        return input
    return select(view_as_real(input), -1, 0)  # torch's composition: SelectBackward0 of ViewAsRealBackward0


@export
def imag(input):
    if not input.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    out = select(view_as_real(input), -1, 1)
    if input.__dict__.get("_conj_bit", False):  # torch's imag of a conjugate: the negative bit (complex_numbers.py)
        out.__dict__["_neg_bit"] = True
    return out


@export
def view_as_real(input):
    data = input._data
    if data.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    real_dtype = np.float32 if data.dtype == np.complex64 else np.float64
    out = data[..., None].view(real_dtype)  # a trailing axis of one element, seen as two reals: any layout, 0-dim too
    return make_view(input, out, "ViewAsRealBackward0", {})


@export
def view_as_complex(input):
    data = input._data
    if data.dtype == np.float16:
        raise _dtype.refuse_complex_half("view_as_complex")
    if data.dtype not in (np.float32, np.float64):
        raise RuntimeError("view_as_complex is only supported for half, float and double tensors, but got a tensor of "
                           f"scalar type: {input.dtype.scalar_type_name}")
    strides = input.stride()
    if not data.ndim or data.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(stride % 2 for stride in strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if input.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    complex_dtype = np.complex64 if data.dtype == np.float32 else np.complex128
    out = data.view(complex_dtype)[..., 0]  # the last axis is contiguous: a view of the same memory
    return make_view(input, out, "ViewAsComplexBackward0", {})
