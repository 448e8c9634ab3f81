"""The Tensor: an array plus the autograd state torch keeps for it.

Hot-path fields are slots set by ``make_tensor``: the array (``_data``), ``_requires_grad``,
``_grad_fn`` with ``_output_nr`` (which output of that node the tensor is), ``_grad`` and the
version counter ``_vc`` (a one-element list shared by views and by ``detach()``, made on first
use by ``version_counter``: most tensors are never saved, viewed or changed in place; ``_version``
reads it).
Everything rarer (hooks, ``retain_grad``, view bookkeeping, inference flags, the leaf's
gradient accumulator) lives in a ``TensorMeta`` created on first use.

This module holds the tensor state, its rules and its messages, and knows nothing of graphs or
operations: it is the lowest layer of the engine. The layers above add what needs them
(``install``): ``_autograd.views`` the regenerated ``grad_fn`` of a view whose base changed in
place, ``_ops`` the math methods, ``autograd`` ``Tensor.backward``.
"""

from __future__ import annotations

import copy
import math
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _backend, _dtype, _memory_format
from ._device import as_device
from ._grad_mode import STATE
from ._hooks import add_hook
from ._printing import format_tensor
from ._size import Size
from ._user_warnings import warn_once

NONLEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
    "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
    "for more information."
)
NONLEAF_REQUIRES_GRAD = "you can only change requires_grad flags of leaf variables."
NONLEAF_REQUIRES_GRAD_OFF = (
    NONLEAF_REQUIRES_GRAD + " If you want to use a computed variable in a subgraph that doesn't require "
    "differentiation use var_no_grad = var.detach()."
)
SCALAR_CONVERSION_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first."
)
class TensorMeta:
    """The rarely used autograd state of a tensor."""

    __slots__ = ("accumulator", "hooks", "post_accumulate_hooks", "retains_grad", "base", "view",
                 "creation", "inference", "grad_dtype", "plain_views", "pinned")

    def __init__(self) -> None:
        self.accumulator = None          # weakref to the leaf's AccumulateGrad node
        self.hooks: dict | None = None   # tensor hooks of a leaf
        self.post_accumulate_hooks: dict | None = None
        self.retains_grad = False
        self.base = None                 # for views: the tensor whose storage they look into
        self.view = None                 # for views: how to find them in the base (see _ops.views)
        self.creation = None             # for views: "multi_output", "no_grad", "inference" or None
        self.inference = False
        self.grad_dtype = None
        self.plain_views = None          # for a base that did not require grad: the views taken of it since
        self.pinned = False              # a CPU copy that save_on_cpu(pin_memory=True) made where CUDA is available


_new = object.__new__
tangent_for_repr = None  # a tensor's tangent inside a dual level, for repr: installed by _autograd/forward.py


def views_follow_requires_grad(base: Tensor) -> None:
    """A view requires grad when its base does (torch asks the base): the views of ``base`` taken
    while it did not require grad take its flag now that it changed (``requires_grad_()``, or an
    in-place op with an operand that requires grad)."""
    meta = base._meta
    if meta is not None and meta.plain_views:
        for view in list(meta.plain_views):
            if view._grad_fn is None:
                view._requires_grad = base._requires_grad


LAZY_BITS = ("_conj_bit", "_neg_bit")  # torch's lazy conjugate and negative bits (_ops/complex_numbers.py)


def make_tensor(data, requires_grad: bool = False, grad_fn=None, output_nr: int = 0, cls=None) -> Tensor:
    if type(data) is not np.ndarray and isinstance(data, np.generic):
        data = np.asarray(data)  # NumPy gives scalars for 0-d results; a tensor always holds an array
    t = _new(cls or Tensor)
    t._data = data
    t._requires_grad = requires_grad
    t._grad_fn = grad_fn
    t._output_nr = output_nr
    t._grad = None
    t._vc = None
    t._meta = None
    if STATE.inference:
        meta_of(t).inference = True
    return t


def _same_inference(alias: Tensor, source: Tensor) -> Tensor:
    """An alias (``detach()``, ``.data``) is an inference tensor exactly when its source is one,
    whatever the mode it is made in."""
    if source.is_inference():
        meta_of(alias).inference = True
    elif alias._meta is not None and alias._meta.inference:
        alias._meta.inference = False
    return alias


def version_counter(t: Tensor) -> list:
    """The tensor's version counter, shared with its views and detached copies; made on first use."""
    counter = t._vc
    if counter is None:
        counter = t._vc = [0]
    return counter


def meta_of(t: Tensor) -> TensorMeta:
    meta = t._meta
    if meta is None:
        meta = t._meta = TensorMeta()
    return meta


class Installed:
    """What the layers above provide (see the module docstring)."""

    @staticmethod
    def view_grad_fn(view: Tensor):
        """A view's grad_fn; ``_autograd.views`` installs the one that regenerates it."""
        return view._grad_fn


def install(name: str, fn: Callable) -> None:
    """Called by a higher layer to provide ``Installed.<name>``."""
    if not hasattr(Installed, name):
        raise AttributeError(f"_tensor has no installable {name!r}")
    setattr(Installed, name, staticmethod(fn))


def is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor)


# NumPy's ufunc for each of Python's binary operators: (the tensor's operator with the tensor first, with it second)
_UFUNC_OPERATORS = {
    np.add: ("__add__", "__radd__"), np.subtract: ("__sub__", "__rsub__"), np.multiply: ("__mul__", "__rmul__"),
    np.true_divide: ("__truediv__", "__rtruediv__"), np.floor_divide: ("__floordiv__", "__rfloordiv__"),
    np.remainder: ("__mod__", "__rmod__"), np.power: ("__pow__", "__rpow__"),
    np.less: ("__lt__", "__gt__"), np.less_equal: ("__le__", "__ge__"), np.greater: ("__gt__", "__lt__"),
    np.greater_equal: ("__ge__", "__le__"), np.equal: ("__eq__", "__eq__"), np.not_equal: ("__ne__", "__ne__"),
}

_COMPARISONS = (np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal)


def _numpy_scalar(value, ufunc) -> bool:
    """A NumPy scalar operand (which NumPy hands to a comparison as a 0-dim array)."""
    return isinstance(value, np.generic) or (ufunc in _COMPARISONS and type(value) is np.ndarray and value.ndim == 0)


class Tensor:
    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_output_nr", "_grad", "_vc", "_meta",
                 "__weakref__", "__dict__")

    # -- construction ---------------------------------------------------------------------
    def __new__(cls, *args, device=None):
        """The legacy constructor: ``Tensor([1., 2.])`` or ``Tensor(2, 3)`` (uninitialized)."""
        dev = as_device(device)
        xp = _backend.array_module(dev)
        if len(args) == 1 and isinstance(args[0], Tensor):
            return args[0]
        if args and all(isinstance(a, int) for a in args):
            data = xp.empty(args, dtype=_dtype.get_default_dtype().np)
        elif len(args) == 1 and isinstance(args[0], Size):
            data = xp.empty(tuple(args[0]), dtype=_dtype.get_default_dtype().np)
        elif len(args) == 1:
            data = xp.asarray(np.asarray(args[0], dtype=_dtype.get_default_dtype().np))
        else:
            data = xp.empty((0,), dtype=_dtype.get_default_dtype().np)
        return make_tensor(data, cls=cls)

    # -- basic properties -----------------------------------------------------------------
    @property
    def dtype(self) -> _dtype.dtype:
        return _dtype.BY_NUMPY[self._data.dtype]

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    @property
    def device(self):
        return _backend.device_of(self._data)

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    def size(self, dim: int | None = None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_normalize_dim(dim, self._data.ndim)]

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    def stride(self, dim: int | None = None):
        data = self._data
        if data.size:
            strides = tuple(s // data.itemsize for s in data.strides)
        else:  # NumPy gives an empty array zero strides; torch gives one it makes row-major ones, where a
            # dimension of size 0 counts as 1
            strides = tuple(math.prod(max(n, 1) for n in data.shape[i + 1:]) for i in range(data.ndim))
        if dim is None:
            return strides
        return strides[_normalize_dim(dim, self._data.ndim)]

    def storage_offset(self) -> int:
        """Elements between the start of the memory this tensor views (its base's) and its first element."""
        base = self._base
        if base is None:
            return 0
        return (_backend.address(self._data) - _backend.address(base._data)) // self._data.itemsize

    def is_contiguous(self, memory_format=None) -> bool:
        if memory_format is None:
            return bool(self._data.flags.c_contiguous)
        return _memory_format.is_laid_out(self._data, memory_format)

    def is_floating_point(self) -> bool:
        return self.dtype.category == _dtype.FLOATING

    def is_complex(self) -> bool:
        return self.dtype.category == _dtype.COMPLEX

    def data_ptr(self) -> int:
        return int(self._data.__array_interface__["data"][0]) if _backend.is_cpu_array(self._data) \
            else int(self._data.data.ptr)

    def untyped_storage(self):
        raise NotImplementedError("untyped_storage")

    def get_device(self) -> int:
        return -1 if self.device.type == "cpu" else self.device.index

    # -- autograd state -------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value) -> None:
        if not isinstance(value, bool):
            raise RuntimeError("requires_grad must be a bool")
        if self._grad_fn is not None:
            raise RuntimeError(NONLEAF_REQUIRES_GRAD if value else NONLEAF_REQUIRES_GRAD_OFF)
        if value and self.dtype.category < _dtype.FLOATING:
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        if value and self.is_inference() and not STATE.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._requires_grad = value
        views_follow_requires_grad(self)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(NONLEAF_REQUIRES_GRAD_OFF)
            return self
        if requires_grad and self.dtype.category < _dtype.FLOATING:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self.is_inference() and not STATE.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._requires_grad = requires_grad
        views_follow_requires_grad(self)
        return self

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def grad_fn(self):
        meta = self._meta
        if meta is not None and meta.base is not None:
            return Installed.view_grad_fn(self)
        return self._grad_fn

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def retains_grad(self) -> bool:
        # The flag outlives the graph: after retain_grad(), detach_() leaves it True (as torch).
        return self._meta is not None and self._meta.retains_grad

    @property
    def grad(self):
        if self._grad is None and self._grad_fn is not None and not self.retains_grad:
            warnings.warn(NONLEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is None:
            self._grad = None
            return
        if not isinstance(value, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
        if value is self:
            raise RuntimeError("can't assign Variable as its own grad")
        if value.dtype is not self.dtype:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{value.dtype.c_name}' to a tensor with grad_dtype "
                f"'{self.dtype.scalar_type_name}'. The gradient must match the tensor's grad_dtype (defaults to the "
                "tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or None to "
                "allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may "
                "break downstream systems that assume they match."
            )
        if value.device.type != self.device.type:
            raise RuntimeError(
                f"attempting to assign a gradient with device type '{value.device.type}' to a tensor with device "
                f"type '{self.device.type}'. Please ensure that the gradient and the tensor are on the same device"
            )
        if value.shape != self.shape:
            raise RuntimeError(
                f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
                f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the same size"
            )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def grad_dtype(self):
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        meta = self._meta
        return meta.grad_dtype if meta is not None and meta.grad_dtype is not None else self.dtype

    @property
    def _version(self) -> int:
        if self.is_inference():
            raise RuntimeError("Inference tensors do not track version counter.")
        counter = self._vc
        return 0 if counter is None else counter[0]

    def retain_grad(self) -> None:
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None:
            return
        meta = meta_of(self)
        if meta.retains_grad:
            return
        meta.retains_grad = True
        target = weakref.ref(self)
        self._grad_fn.extras.retain_grad[self._output_nr] = target

    def register_hook(self, hook: Callable) -> Any:
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        fn = self.grad_fn
        if fn is None:
            meta = meta_of(self)
            if meta.hooks is None:
                meta.hooks = {}
            return add_hook(meta.hooks, hook)
        return fn._register_tensor_hook(self._output_nr, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable) -> Any:
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        meta = meta_of(self)
        if meta.post_accumulate_hooks is None:
            meta.post_accumulate_hooks = {}
        return add_hook(meta.post_accumulate_hooks, hook)

    # -- data, detach ---------------------------------------------------------------------
    @property
    def data(self) -> Tensor:
        return _same_inference(make_tensor(self._data), self)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._data = value._data

    def detach(self) -> Tensor:
        out = _same_inference(make_tensor(self._data), self)
        out._vc = version_counter(self)
        if self.__dict__:  # the lazy conjugate and negative bits stay (_ops/complex_numbers.py)
            out.__dict__.update((k, v) for k, v in self.__dict__.items() if k in LAZY_BITS)
        return out

    def detach_(self) -> Tensor:
        meta = self._meta
        if meta is not None and meta.base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
                "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
                "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
                "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        self._grad_fn = None
        self._output_nr = 0
        self._requires_grad = False
        return self

    def is_pinned(self, device=None) -> bool:
        """Whether this CPU tensor's memory is pinned for the GPU (only save_on_cpu's copies can be)."""
        meta = self._meta
        return meta is not None and meta.pinned

    def is_inference(self) -> bool:
        meta = self._meta
        if meta is None:
            return False
        base = meta.base  # a view of an inference tensor is one
        return meta.inference or (base is not None and base._meta is not None and base._meta.inference)

    def _is_view(self) -> bool:
        return self._meta is not None and self._meta.base is not None

    @property
    def _base(self):
        return self._meta.base if self._meta is not None else None

    # -- conversion to Python ---------------------------------------------------------------
    def item(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def tolist(self):
        return _backend.to_numpy(self._data).tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if self.__dict__ and not force:
            for bit, what, resolve in (("_conj_bit", "conjugate", "resolve_conj"), ("_neg_bit", "negative", "resolve_neg")):
                if self.__dict__.get(bit):
                    raise RuntimeError(f"Can't call numpy() on Tensor that has {what} bit set. "
                                       f"Use tensor.{resolve}().numpy() instead.")
        if not _backend.is_cpu_array(self._data):
            if not force:
                raise TypeError(
                    f"can't convert {self.device.type}:{self.device.index} device type tensor to numpy. "
                    "Use Tensor.cpu() to copy the tensor to host memory first."
                )
            return _backend.to_numpy(self._data)
        return self._data

    def _scalar(self, kind):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return kind(self._data.reshape(()).item())

    def __float__(self) -> float:
        if self._requires_grad and STATE.grad_enabled:  # torch warns only where gradients are recorded
            warn_once(SCALAR_CONVERSION_WARNING)
        return self._scalar(float)

    def __int__(self) -> int:
        return self._scalar(int)

    def __complex__(self) -> complex:
        return self._scalar(complex)

    def __index__(self) -> int:
        if self.dtype.category > _dtype.INTEGER:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return self._scalar(int)

    def __bool__(self) -> bool:
        if self._data.size != 1:
            if self._data.size == 0:
                raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()).item())

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    __hash__ = object.__hash__

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """A NumPy scalar and a tensor in one of Python's operators (``np.float64(0.5) * t``, where NumPy
        is asked first): the tensor's operator, the scalar taken as the Python number it holds, as torch
        gives (a float32 tensor, recorded; NumPy computed a float64 array). Anything else as NumPy
        computes it on the tensor's array (``__array__``), as before this hook."""
        operators = _UFUNC_OPERATORS.get(ufunc)
        if operators is not None and method == "__call__" and not kwargs and len(inputs) == 2:
            first, second = inputs
            if isinstance(second, Tensor) and _numpy_scalar(first, ufunc):
                return getattr(second, operators[1])(first.item())
            if isinstance(first, Tensor) and _numpy_scalar(second, ufunc):
                return getattr(first, operators[0])(second.item())
        inputs = tuple(np.asarray(x) if isinstance(x, Tensor) else x for x in inputs)
        if "out" in kwargs:
            kwargs["out"] = tuple(np.asarray(x) if isinstance(x, Tensor) else x for x in kwargs["out"])
        return getattr(ufunc, method)(*inputs, **kwargs)

    # -- printing -------------------------------------------------------------------------
    def __repr__(self, *, tensor_contents=None) -> str:
        suffixes = []
        fn = self.grad_fn
        if fn is not None:
            suffixes.append(("grad_fn", f"<{type(fn).__name__}>"))
        elif self._requires_grad:
            suffixes.append(("requires_grad", "True"))
        tangent = tangent_for_repr(self) if tangent_for_repr is not None else None
        if tangent is not None:
            suffixes.append(("tangent", f"{tangent}"))  # a 0-dim one as its number, as torch formats it
        return format_tensor(_backend.to_numpy(self._data), dtype_name=self.dtype.name, device=str(self.device),
                             suffixes=suffixes, default_float=_dtype.get_default_dtype().name)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    # -- copying --------------------------------------------------------------------------
    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the "
                "moment.  If you were attempting to deepcopy a module, this may be because of a "
                "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001"
            )
        if id(self) in memo:
            return memo[id(self)]
        new = make_tensor(self._data.copy(), requires_grad=self._requires_grad, cls=type(self))
        memo[id(self)] = new
        if self._grad is not None:
            new._grad = copy.deepcopy(self._grad, memo)
        if self.__dict__:
            new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new

    def __reduce_ex__(self, protocol):
        return (_rebuild, (type(self), _backend.to_numpy(self._data), self._requires_grad, str(self.device)))

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)


def _rebuild(cls, array, requires_grad, device="cpu"):
    """Unpickling: the values on the device they were pickled from."""
    return make_tensor(_backend.to_device(np.array(array), as_device(device)), requires_grad=requires_grad, cls=cls)


def _normalize_dim(dim: int, ndim: int) -> int:
    limit = max(ndim, 1)
    if not -limit <= dim < limit:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-limit}, {limit - 1}], but got {dim})")
    return dim % limit


Tensor.__module__ = "myautograd"
