"""torch's argument and shape checks of pooling, with its messages, once per family.

torch validates pooling in layers, and its messages say which layer refused:
* the Python argument parser of the 1d ops (``one_int``) and their dims check (``check_dim_range``);
* the 2d/3d ops' own argument lengths (``pool_arguments``);
* the output size of each spatial dim (``pooled_sizes``: stride, padding);
* the shape check of the 2d and 3d kernels (``check_pool_shape``: kernel, stride and dilation signs,
  empty dims, padding, the output size);
* ``max_pool1d``'s own checks (``check_max_pool1d``), adaptive pooling's (``check_adaptive_*``), max
  unpooling's (``check_max_unpool``).
The checks run in torch's order, so the first refusal is torch's.
"""

from __future__ import annotations

from .._tensor import Tensor
from . import window_math as W
from .creation import _size as checked_size

_NUMBER_WORDS = {2: "two", 3: "three"}


def _sizes(shape) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def _half(value: int) -> int:
    """C++'s integer halving (towards zero), as torch's checks compute it."""
    return int(value / 2)


# -- the 1d ops: Python's argument parser and the dims check ------------------------------------------------
def one_int(op: str, name: str, value, empty_ok: bool = False) -> tuple:
    """An ``int[1]`` argument as torch's parser reads it: an int, or a sequence of one."""
    if not isinstance(value, (list, tuple)):
        return (value,)
    if len(value) != 1 and not (empty_ok and len(value) == 0):
        raise RuntimeError(f"{op}() argument '{name}' should contain one int (got {len(value)})")
    return tuple(value)


def check_dim_range(input: Tensor, op: str, low: int = 2, high: int = 3) -> None:
    if not low <= input.dim() <= high:
        raise RuntimeError(f"Expected {low} to {high} dimensions, but got {input.dim()}-dimensional tensor for "
                           f"argument #1 'self' (while checking arguments for {op})")


# -- the 2d and 3d ops: argument lengths, output sizes, the kernels' shape check ----------------------------
def pool_arguments(op: str, ndim: int, kernel_size, stride, padding, dilation=1, *, either: bool = True):
    """kernel, stride (the kernel where omitted), padding and dilation as tuples of ``ndim``; a
    sequence of another length refused with torch's message (``either``: its wording, which differs
    between avg_pool3d and the others)."""
    ints = f"a tuple of {_NUMBER_WORDS[ndim]} ints"
    must = "must either be" if either else "must be"

    def expanded(value, name: str, message: str, omittable: bool = False) -> tuple:
        if not isinstance(value, (list, tuple)):
            return (value,) * ndim
        if len(value) == 1 or len(value) == ndim or (omittable and len(value) == 0):
            return tuple(value) * (ndim if len(value) == 1 else 1)
        raise RuntimeError(f"{op}: {name} {message}, or {ints}")

    kernel = expanded(kernel_size, "kernel_size", f"{must} a single int")
    stride = () if stride is None else expanded(stride, "stride", f"{must} omitted, a single int", omittable=True)
    padding = expanded(padding, "padding", f"{must} a single int")
    dilation = expanded(dilation, "dilation", "must be either a single int")
    return kernel, stride or kernel, padding, dilation


def pooled_sizes(sizes, kernel, stride, padding, dilation, ceil_mode: bool) -> tuple:
    """The number of windows along each spatial dim, after torch's checks of its stride and padding."""
    counts = []
    for n, k, s, p, d in zip(sizes, kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > _half((k - 1) * d + 1):
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={d}")
        counts.append(W.pooled_size(n, k, s, p, d, ceil_mode))
    return tuple(counts)


def _listed(prefix: str, letters: str, values) -> str:
    return " ".join(f"{prefix}{letter}: {v}" for letter, v in zip(letters, values))


def check_pool_shape(shape, kernel, stride, padding, dilation, counts, *, where: str = "",
                     input_size_check: bool = False) -> None:
    """torch's shape check of the 2d and 3d pooling kernels (``where``: the 3d kernel's name in its
    messages; ``input_size_check``: avg_pool3d's refusal of an input smaller than the kernel)."""
    ndim = len(kernel)
    letters = "HW" if ndim == 2 else "THW"
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got {_listed('k', letters, kernel)}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got {_listed('d', letters, stride)}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got {_listed('dilation', letters, dilation)}")
    non_batch = shape[1:] if len(shape) == ndim + 2 else shape
    if ndim == 2 and (len(shape) not in (3, 4) or 0 in non_batch):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                           f"got:{_sizes(shape)}")
    if ndim == 3 and 0 in non_batch:
        raise RuntimeError(f"{where}Expected input's non-batch dimensions to have positive length, but input has a "
                           f"shape of {_sizes(shape)} and non-batch dimension 0 has length zero!")
    sizes = tuple(shape[-ndim:])
    if input_size_check and any(n < k for n, k in zip(sizes, kernel)):
        raise RuntimeError(f"input image ({_listed('', letters, sizes)}) smaller than kernel size "
                           f"({_listed('k', letters, kernel)})")
    if any(p > _half(k) for k, p in zip(kernel, padding)):
        if ndim == 2:
            raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got "
                               f"padW = {padding[1]}, padH = {padding[0]}, kW = {kernel[1]}, kH = {kernel[0]}")
        raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got "
                           f"kT: {kernel[0]} kW: {kernel[2]} kH: {kernel[1]} "
                           f"padT: {padding[0]} padW: {padding[2]} padH: {padding[1]}")
    if min(counts) < 1:
        planes = shape[-ndim - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (planes,) + sizes))}). Calculated output size: "
                           f"({'x'.join(map(str, (planes,) + tuple(counts)))}). Output size is too small")


def check_pool_dims(input: Tensor, ndim: int) -> None:
    """The 2d/3d ops' first check of the input's number of dims."""
    if input.dim() not in (ndim + 1, ndim + 2):
        raise RuntimeError(f"non-empty {ndim + 1}D or {ndim + 2}D (batch mode) tensor expected for input")


def check_divisor(divisor_override) -> None:
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")


# -- max_pool1d without indices: its own checks ---------------------------------------------------------------
def check_max_pool1d(input: Tensor, kernel_size, stride, padding, dilation, ceil_mode: bool) -> None:
    shape = input.shape
    if not ((input.dim() == 2 and 0 not in shape) or (input.dim() == 3 and 0 not in shape[1:])):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{_sizes(shape)}")
    sizes = {}
    for name, value, wording in (("kernel_size", kernel_size, "an int, list of ints or tuple of ints"),
                                 ("stride", stride, "None, an int, list of ints, or tuple of ints"),
                                 ("padding", padding, "an int, list of ints, or tuple of ints"),
                                 ("dilation", dilation, "an int, list of ints or tuple of ints")):
        value = tuple(value) if isinstance(value, (list, tuple)) else (value,)
        if len(value) != 1 and not (name == "stride" and len(value) == 0):
            raise RuntimeError(f"max_pool1d() {name} must be {wording} of size 1 but got size {len(value)}")
        sizes[name] = value[0] if value else None
    kernel, padding, dilation = sizes["kernel_size"], sizes["padding"], sizes["dilation"]
    stride = kernel if sizes["stride"] is None else sizes["stride"]
    if kernel <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {kernel}")
    if stride <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {stride}")
    if padding < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {padding}")
    if padding > kernel // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={padding} "
                           f"and kernel_size={kernel}")
    if dilation <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {dilation}")
    count = W.pooled_size(shape[-1], kernel, stride, padding, dilation, ceil_mode)
    if count <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {count}")


# -- adaptive pooling -------------------------------------------------------------------------------------------
def _check_non_empty(input: Tensor, op: str, first: int = 1) -> None:
    """Every dim from ``first`` on non-empty (by default all but the first, a batch dim or planes)."""
    for d in range(first, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {_sizes(input.shape)} with dimension {d} being empty")


def check_adaptive_avg_output(output_size, ndim: int) -> tuple:
    """adaptive_avg_pool2d/3d's checks of ``output_size`` (its length, then its signs)."""
    op = f"adaptive_avg_pool{ndim}d"
    if len(output_size) != ndim:
        raise RuntimeError(f"{op}: output_size must be {ndim}")
    if min(output_size) < 0:
        # torch writes the third element without a space
        shown = ", ".join(str(o) for o in output_size[:2]) + "".join(f",{o}" for o in output_size[2:])
        raise RuntimeError(f"{op}: elements of output_size must be greater than or equal to 0 but received {{{shown}}}")
    return tuple(output_size)


def check_adaptive_avg_input(input: Tensor, ndim: int) -> None:
    """The adaptive average kernels' checks of the input: its non-batch dims, then its number of dims."""
    op = f"adaptive_avg_pool{ndim}d"
    _check_non_empty(input, op, first=input.dim() - 2 if ndim == 2 else 1)  # the 2d kernel checks its spatial dims
    if input.dim() not in (ndim + 1, ndim + 2):
        raise RuntimeError(f"{op}(): Expected {ndim + 1}D or {ndim + 2}D tensor, but got {_sizes(input.shape)}")


def check_adaptive_max(input: Tensor, output_size, ndim: int) -> tuple:
    """adaptive_max_pool2d/3d's checks: the input's number of dims, its non-batch dims, the length of
    ``output_size``, and a negative output size refused as the output's allocation refuses it."""
    op = f"adaptive_max_pool{ndim}d"
    if input.dim() not in (ndim + 1, ndim + 2):
        raise RuntimeError(f"{op}(): Expected {ndim + 1}D or {ndim + 2}D tensor, but got: {_sizes(input.shape)}")
    _check_non_empty(input, op)
    if len(output_size) != ndim:
        raise RuntimeError(f"{op}(): internal error: output_size.size() must be {ndim}")
    checked_size(tuple(input.shape[:-ndim]) + tuple(output_size))
    return tuple(output_size)


def check_adaptive_max_pool1d(input: Tensor) -> None:
    _check_non_empty(input, "adaptive_max_pool1d")


# -- max unpooling ----------------------------------------------------------------------------------------------
def check_max_unpool(input: Tensor, indices: Tensor, ndim: int) -> None:
    """max_unpool2d/3d's checks of the indices' dtype, the input's dims and the indices' shape (the
    2d kernel checks the dtype first and names it, the 3d one checks it without naming it)."""
    if indices.dtype.scalar_type_name != "Long":
        got = f" but got: {indices.dtype.scalar_type_name}" if ndim == 2 else ""
        raise RuntimeError(f"elements in indices should be type int64{got}")
    if input.dim() not in (ndim + 1, ndim + 2):
        raise RuntimeError(f"Input to max_unpooling{ndim}d should be a {ndim + 1}d or {ndim + 2}d Tensor, but got a "
                           f"tensor with {input.dim()} dimensions.")
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({_sizes(input.shape)}) "
                           f"but got indices tensor with shape: {_sizes(indices.shape)}")
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"max_unpooling{ndim}d_forward_out_cpu(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but got {_sizes(input.shape)} with dimension {d} being empty.")
