"""In-place operations: torch's checks, version counters, and rewriting the history.

Every in-place op goes through ``apply_inplace``: it refuses what torch refuses (a leaf that
requires grad, a view of one, an output of a multi-view op, a view made under no_grad, an
inference tensor outside inference mode), writes the new values into the tensor's array, bumps
the version counter shared with its views, and, when the op is recorded, makes the op's node
the tensor's new ``grad_fn`` (for a view: gives its base a ``CopySlices`` node).

A formula of an in-place op that reads the input's original value gets a copy saved before the
write, as torch's generated code does; one that reads ``result`` gets the modified tensor.
"""

from __future__ import annotations

import numpy as np

from .. import _backend, _dtype
from .._autograd import forward
from .._autograd.arithmetic import library_power, multiply, power, scaled
from .._autograd.conjugate_views import ConjugateView, shared
from .._autograd.record import record_inplace, records_any
from .._autograd.views import OVERLAP_MESSAGE, REBASE_REFUSED, copy_slices, rebase_message
from .._grad_mode import STATE
from .._tensor import Tensor, make_tensor, version_counter
from .._user_warnings import warn_from_user_code
from . import ternary
from .common import cast, check_castable
from .derivatives import NODES
from .pointwise import BINARY, UNARY, check_bool_sub, operands
from .registry import method

LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_MESSAGE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
INFERENCE_MESSAGE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal "
    "tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
)


def _inference_outside_mode(self: Tensor) -> bool:
    """An inference tensor (or a view of one) written outside inference mode."""
    return not STATE.inference and self.is_inference()


def check_inplace(self: Tensor, recorded: bool) -> None:
    meta = self._meta
    if not STATE.grad_enabled:
        return
    base = meta.base if meta is not None else None
    if base is None:
        if self._requires_grad and self._grad_fn is None:
            raise RuntimeError(LEAF_MESSAGE)
        return
    if meta.creation in REBASE_REFUSED and recorded:
        raise RuntimeError(rebase_message(self, indirect=False))
    if self._requires_grad and base._grad_fn is None:
        # A view that requires grad, of a leaf: torch does not ask whether the base still requires grad.
        raise RuntimeError(VIEW_OF_LEAF_MESSAGE)


def _check_cast(self: Tensor, result_dtype) -> None:
    target = self._data.dtype
    if result_dtype != target and _dtype.kind(np.dtype(result_dtype)) in "fc" and _dtype.kind(target) not in "fc":
        result = _dtype.from_numpy(np.dtype(result_dtype)).scalar_type_name
        raise RuntimeError(f"result type {result} can't be cast to the desired output type "
                           f"{_dtype.from_numpy(target).scalar_type_name}")
    if np.dtype(result_dtype).kind == "c" and _dtype.kind(target) == "f":
        raise RuntimeError(f"result type {_dtype.from_numpy(np.dtype(result_dtype)).scalar_type_name} can't be cast "
                           f"to the desired output type {_dtype.from_numpy(target).scalar_type_name}")


def _overlap_error() -> RuntimeError:
    """torch's refusal to write into a tensor whose elements share memory (an expanded one)."""
    return RuntimeError(OVERLAP_MESSAGE)


def write(self: Tensor, values, fills: bool = False) -> None:
    """Write ``values`` into ``self``'s memory; ``fills``: one value everywhere (zero_, fill_ with a
    number), which torch writes also into an expanded tensor, whose elements share memory. A conjugate
    view stores the conjugate into the memory it shares (``conjugate_views``)."""
    if self.__class__ is ConjugateView:
        data, values = shared(self), np.conj(values)
    else:
        data = self._data
    if not _backend.is_writeable(data):
        data = _backend.writeable_alias(data, repeats_ok=fills)
        if data is None:
            raise _overlap_error()
    try:
        np.copyto(data, values, casting="unsafe")
    except ValueError as exc:
        raise _inplace_error(exc, data, values) from None


def apply_inplace(self: Tensor, values, node_name: str | None, inputs: tuple, attrs: dict | None = None,
                  read: Tensor | None = None, fills: bool = False) -> Tensor:
    """Write ``values`` into ``self`` and record the op ``node_name`` on ``inputs`` (self first);
    ``read``: a tensor operand, whose memory must not partly overlap ``self``'s (checked after
    autograd's own checks, as torch orders them); ``fills``: see ``write``. Inside a dual level,
    ``self`` gets the tangent of its new value (``forward.inplace_tangent``)."""
    recorded = node_name is not None and STATE.grad_enabled and any(
        isinstance(x, Tensor) and x._requires_grad for x in inputs)
    if _inference_outside_mode(self):
        # torch's kernel writes, then the version counter refuses: the values change, and it raises.
        _check_cast(self, getattr(values, "dtype", self._data.dtype))
        write(self, values, fills)
        raise RuntimeError(INFERENCE_MESSAGE)
    check_inplace(self, recorded)
    if read is not None:
        _check_partial_overlap(self._data, read._data)
    _check_cast(self, getattr(values, "dtype", self._data.dtype))
    def write_and_count() -> None:
        write(self, values, fills)
        version_counter(self)[0] += 1

    if forward.ACTIVE and node_name is not None:
        tangent = forward.inplace_tangent(NODES[node_name], self, inputs, attrs, values)
        _write_and_record(self, values, node_name, inputs, attrs, recorded, write_and_count)
        forward.write_tangent(self, tangent)
        return self
    return _write_and_record(self, values, node_name, inputs, attrs, recorded, write_and_count)


def _write_and_record(self: Tensor, values, node_name, inputs: tuple, attrs, recorded: bool, write_and_count):
    if not recorded:
        write_and_count()
        return self
    original = _original(self) if _reads_original(node_name, inputs) else None
    meta = self._meta
    base = meta.base if meta is not None else None
    node = record_inplace(NODES[node_name], self, inputs, attrs, original, write_and_count, rebase=base is None)
    if base is not None:
        copy_slices(self, base, node)
    return self


def _original(self: Tensor) -> Tensor:
    """The value before the write, for formulas that read it: a recorded clone, as torch saves."""
    from .shape import clone

    return clone(self)


def _reads_original(node_name: str, inputs: tuple) -> bool:
    cls = NODES[node_name]
    needs = tuple(isinstance(x, Tensor) and x._requires_grad for x in inputs)
    return "self" in cls.saved_names(needs)


# -- the in-place ops -----------------------------------------------------------------------------------
def _unary_inplace(name: str):
    node, compute, keep_int = UNARY[name]

    def op(self):
        data = self._data
        if name == "abs" and data.dtype.kind == "c":  # its result is real: it cannot be written into the input
            raise RuntimeError("In-place abs is not supported for complex tensors.")
        out = compute(data if keep_int or _dtype.kind(data.dtype) in "fc" else data.astype(_dtype.get_default_dtype().np))
        return apply_inplace(self, out, node._node_name, (self,))

    op.__name__ = f"{name}_"
    method(op, name=f"{name}_")


for _name in ("exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "sqrt", "rsqrt", "reciprocal", "neg",
              "sign", "round", "floor", "ceil", "trunc", "log1p", "expm1", "erf", "erfc", "frac", "tan", "asin", "acos",
              "atan", "sinh", "cosh", "exp2", "log2", "log10", "sgn"):
    if _name in UNARY:
        _unary_inplace(_name)


@method(name="neg_")
def neg_(self):
    return apply_inplace(self, np.negative(self._data), "NegBackward0", (self,))


@method(name="conj_physical_")
def conj_physical_(self):
    """The conjugate written in place, under torch's node of the in-place overload; of a real tensor too (its
    values unchanged), as torch."""
    return apply_inplace(self, np.conj(self._data), "ConjPhysicalBackward1", (self,))


def _records(self: Tensor, other) -> bool:
    return records_any((self, other))


def _inplace_error(exc: ValueError, ad, bd) -> RuntimeError:
    """torch's message for an in-place op whose operand does not fit the tensor's shape (or whose
    tensor cannot be written: an expanded one)."""
    from .common import broadcast_error

    if _backend.writeable_alias(ad) is None:
        return _overlap_error()
    shape = getattr(bd, "shape", ())
    if _broadcastable(ad.shape, shape):
        return RuntimeError(f"output with shape {list(ad.shape)} doesn't match the broadcast shape "
                            f"{list(np.broadcast_shapes(ad.shape, shape))}")
    if "broadcast" in str(exc):
        return broadcast_error(ad.shape, shape)
    return RuntimeError(str(exc))


def _broadcastable(a: tuple, b: tuple) -> bool:
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False


def _dense_range(array):
    """The byte range a non-overlapping, dense array covers (its dims in any order), or None."""
    if array.size == 0:
        return None
    expected = array.itemsize
    for stride, size in sorted((s, n) for s, n in zip(array.strides, array.shape) if n > 1):
        if stride != expected:
            return None
        expected *= size
    start = array.__array_interface__["data"][0] if isinstance(array, np.ndarray) else array.data.ptr  # CuPy
    return start, start + array.size * array.itemsize


def _check_partial_overlap(written, read) -> None:
    """torch refuses an in-place op whose operand shares some, but not all, of the written memory
    (or all of it with other strides); it leaves layouts it cannot compare cheaply alone."""
    a, b = _dense_range(written), _dense_range(read)
    if a is None or b is None or not (a[0] < b[1] and b[0] < a[1]):
        return
    if a == b and written.strides == read.strides:
        return
    raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor refer to "
                       "a single memory location. Please clone() the tensor before performing the operation.")


def _binary_inplace(name: str, node_name: str, compute, with_alpha: bool = False):
    def op(self, other, *, alpha=1):
        dtype = self._data.dtype
        if not (isinstance(other, Tensor) and other._data.dtype is dtype and dtype.kind in "fc"):
            # (two floating or complex tensors of one dtype, an optimizer's update: nothing to promote or refuse)
            if name == "sub":
                check_bool_sub(self, other)
            result = _dtype.result_type(self, other)
            if name == "div" and result.category < _dtype.FLOATING:
                result = _dtype.get_default_dtype()  # true division
            check_castable(result, self.dtype)
        ad, bd = operands(self, other)
        if alpha != 1:
            bd = bd * alpha
        elif with_alpha:  # add_, sub_: a complex operand scaled by 1 as torch's kernel scales it
            bd = scaled(bd)
        if (ad is self._data and not _records(self, other) and (self._meta is None or not self.is_inference())
                and _backend.is_writeable(ad)):
            # Nothing to record and no cast (an optimizer's update): compute straight into the tensor.
            if isinstance(other, Tensor):
                _check_partial_overlap(self._data, other._data)
            try:
                compute(ad, bd, out=ad)
            except ValueError as exc:
                raise _inplace_error(exc, ad, bd) from None
            version_counter(self)[0] += 1
            return self
        out = compute(ad, bd)
        attrs = {"alpha": alpha} if with_alpha else None
        return apply_inplace(self, _backend.as_array(out), node_name, (self, other), attrs,
                             read=other if isinstance(other, Tensor) else None)

    op.__name__ = f"{name}_"
    method(op, name=f"{name}_")
    return op


add_ = _binary_inplace("add", "AddBackward0", np.add, with_alpha=True)
sub_ = _binary_inplace("sub", "SubBackward0", np.subtract, with_alpha=True)
mul_ = _binary_inplace("mul", "MulBackward0", multiply)
div_ = _binary_inplace("div", "DivBackward0", np.true_divide)
method(mul_, name="multiply_")
method(div_, name="divide_")
method(div_, name="true_divide_")
method(sub_, name="subtract_")


@method
def pow_(self, exponent):
    if isinstance(exponent, Tensor):
        ad, bd = operands(self, exponent)
        return apply_inplace(self, library_power(ad, bd), "PowBackward1", (self, exponent))
    return apply_inplace(self, power(self._data, exponent), "PowBackward0", (self,), {"exponent": exponent})


@method
def cumsum_(self, dim, *, dtype=None):
    from .reduction import scan

    return apply_inplace(self, scan(np.cumsum, self._data, dim), "CumsumBackward0", (self,), {"dim": dim})


@method
def cumprod_(self, dim, *, dtype=None):
    from .reduction import scan

    return apply_inplace(self, scan(np.cumprod, self._data, dim), "CumprodBackward0", (self,), {"dim": dim})


def _triangle_inplace(name: str, compute, node_name: str):
    def op(self, diagonal=0):
        if self._data.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return apply_inplace(self, compute(self._data, diagonal), node_name, (self,), {"diagonal": diagonal})

    return method(op, name=f"{name}_")


tril_ = _triangle_inplace("tril", np.tril, "TrilBackward0")
triu_ = _triangle_inplace("triu", np.triu, "TriuBackward0")


@method
def square_(self):
    return pow_(self, 2)


def _modulo_inplace(name: str, compute):
    def op(self, other):
        ad, bd = operands(self, other)
        if isinstance(other, Tensor):
            return apply_inplace(self, compute(ad, bd), f"{name.capitalize()}Backward1", (self, other))
        return apply_inplace(self, _backend.as_array(compute(ad, bd)), f"{name.capitalize()}Backward0", (self,))

    op.__name__ = f"{name}_"
    return method(op, name=f"{name}_")


fmod_ = _modulo_inplace("fmod", np.fmod)
remainder_ = _modulo_inplace("remainder", np.remainder)


@method
def clamp_(self, min=None, max=None):
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _copy_back(self, ternary.clamp(self, min, max))
    return apply_inplace(self, ternary.clamp_values(self._data, min, max), "ClampBackward1", (self,),
                         {"min": min, "max": max})


@method
def clamp_min_(self, min):
    return apply_inplace(self, np.maximum(self._data, min), "ClampMinBackward0", (self,), {"min": min})


@method
def clamp_max_(self, max):
    return apply_inplace(self, np.minimum(self._data, max), "ClampMaxBackward0", (self,), {"max": max})


@method
def zero_(self):
    return apply_inplace(self, np.zeros_like(self._data), "ZeroBackward0", (self,), fills=True)


@method
def fill_(self, value):
    """A number fills even an expanded tensor; a 0-dim tensor (what item assignment of a number
    uses) is refused there, as torch refuses it."""
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} "
                               "dimensions.")
        values = np.broadcast_to(_backend.to_device(value._data, self.device), self._data.shape)
        return apply_inplace(self, cast(values, self._data.dtype), "FillBackward3", (self, value))
    return apply_inplace(self, np.full_like(self._data, value), "FillBackward2", (self,), fills=True)


@method
def copy_(self, src, non_blocking=False):
    """Copy ``src`` (broadcast and cast) into ``self``: CopyBackwards."""
    data = _backend.to_device(src._data, self.device) if isinstance(src, Tensor) else _backend.host_value(src, self._data)
    try:
        values = np.broadcast_to(data, self._data.shape)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({self._data.shape[-1] if self._data.ndim else 1}) must match the "
                           f"size of tensor b ({data.shape[-1] if data.ndim else 1}) at non-singleton dimension "
                           f"{max(self._data.ndim - 1, 0)}") from None
    values = cast(values, self._data.dtype, copy=False)
    return apply_inplace(self, values, "CopyBackwards", (self, src))


@method
def masked_fill_(self, mask, value):
    from .indexing import masked_values

    out, node, inputs = masked_values(self, mask, value)
    return apply_inplace(self, out, node, inputs, {"mask": mask})


@method
def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    from .indexing import normalize_dim, scattered

    axis = normalize_dim(dim, self._data.ndim)
    source = value if src is None else src
    out = scattered(self._data, axis, index, source, False)
    if isinstance(source, Tensor):
        return apply_inplace(self, out, "ScatterBackward0", (self, source), {"dim": axis, "index": index})
    return apply_inplace(self, out, "ScatterBackward1", (self,), {"dim": axis, "index": index})


@method
def scatter_add_(self, dim, index, src):
    from .indexing import normalize_dim, scattered

    axis = normalize_dim(dim, self._data.ndim)
    out = scattered(self._data, axis, index, src, True)
    return apply_inplace(self, out, "ScatterAddBackward0", (self, src), {"dim": axis, "index": index})


@method
def lerp_(self, end, weight):
    if isinstance(weight, Tensor):
        w = weight._data.astype(self._data.dtype, copy=False)
        return apply_inplace(self, ternary.lerp_values(self._data, end._data, w), "LerpBackward1",
                             (self, end, weight))
    values = ternary.lerp_values(self._data, end._data, self._data.dtype.type(weight))
    return apply_inplace(self, values, "LerpBackward0", (self, end), {"weight": weight})


@method
def addcmul_(self, tensor1, tensor2, *, value=1):
    return apply_inplace(self, ternary.addcmul_values(self._data, tensor1._data, tensor2._data, value),
                         "AddcmulBackward0", (self, tensor1, tensor2), {"value": value})


@method
def addcdiv_(self, tensor1, tensor2, *, value=1):
    return apply_inplace(self, ternary.addcdiv_values(self._data, tensor1._data, tensor2._data, value),
                         "AddcdivBackward0", (self, tensor1, tensor2), {"value": value})


def _copy_back(self: Tensor, result: Tensor) -> Tensor:
    """An in-place op computed out of place: ``result`` written into ``self``, recorded as a copy."""
    return copy_(self, result)


def set_values_without_grad(self: Tensor, values) -> Tensor:
    """Random fills and similar: new values, no history (``uniform_``, ``normal_``)."""
    return apply_inplace(self, values, None, (self,))


def write_behind_autograd(self: Tensor, values) -> None:
    """Write ``values`` into ``self``'s memory (its views see them) without bumping its version or
    touching its history: what torch's batch norm kernel does to the running statistics."""
    self._data[...] = values


def copy_into_new(grad, empty_array):
    """A fresh tensor holding ``grad``'s values, recorded as ``CopyBackwards`` when grad is tracked
    (how the first gradient is stored under ``create_graph=True``)."""
    target = make_tensor(empty_array)
    with _enabled_grad():
        return copy_(target, grad)


class _enabled_grad:
    def __enter__(self):
        self.previous = STATE.grad_enabled
        STATE.grad_enabled = True

    def __exit__(self, *exc):
        STATE.grad_enabled = self.previous


BINARY_INPLACE = {"add": add_, "sub": sub_, "mul": mul_, "div": div_}
for _operator, _fn in {"__iadd__": add_, "__isub__": sub_, "__imul__": mul_, "__itruediv__": div_,
                       "__ipow__": pow_, "__imod__": remainder_}.items():
    method(_fn, name=_operator)
__all__ = ["apply_inplace", "BINARY", "BINARY_INPLACE"]


RESIZED_OUT = ("An output with one or more elements was resized since it had shape {}, which does not match the "
               "required output shape {}. This behavior is deprecated, and in a future PyTorch release outputs will not "
               "be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, "
               "inplace, to zero elements with t.resize_(0).")


def write_out(name: str, out: Tensor, result: Tensor | None) -> Tensor:
    """An op's ``result`` written into its ``out=`` tensor, as torch's out= variants do: refused where
    autograd would record the op (``result`` None), ``out`` resized first where its shape differs (with
    torch's deprecation warning when it held elements), then the values copied in."""
    if result is None:
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    check_castable(result.dtype, out.dtype)
    if tuple(out.shape) != tuple(result.shape):
        if out.numel():
            warn_from_user_code(RESIZED_OUT.format(list(out.shape), list(result.shape)))
        resize_(out, tuple(result.shape))
    return copy_(out, result)


@method
def resize_(self, *sizes, memory_format=None):
    """Give the tensor a new shape in place, keeping its leading values in row-major order; new
    elements are uninitialised. Refused for a tensor that requires grad, as torch does."""
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    shape = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else tuple(sizes)
    count = int(np.prod(shape, dtype=np.int64))
    flat = self._data.reshape(-1)
    if count <= flat.size:
        self._data = flat[:count].reshape(shape)
    else:
        grown = np.empty_like(flat, shape=(count,))
        grown[:flat.size] = flat
        self._data = grown.reshape(shape)
    return self
