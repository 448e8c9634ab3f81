"""``Parameter``: a leaf tensor that a Module registers as one of its parameters; and ``Buffer``.

A Parameter shares its array and version counter with the tensor it was made from (as torch's
``_make_subclass`` does), is always a leaf, and prints as ``Parameter containing:`` followed by
the tensor. Operations on a Parameter give plain tensors.
"""

from __future__ import annotations

from .. import _dtype
from .._missing import missing_attribute as _missing_attribute
from .._ops.creation import empty
from .._tensor import Tensor, make_tensor, version_counter

REQUIRES_GRAD_DTYPE = "Only Tensors of floating point and complex dtype can require gradients"


def _shared(data: Tensor, requires_grad: bool, cls) -> Tensor:
    """A new leaf of class ``cls`` over ``data``'s array and version counter."""
    base = data.detach()
    if requires_grad and base.dtype.category < _dtype.FLOATING:
        raise RuntimeError(REQUIRES_GRAD_DTYPE)
    out = make_tensor(base._data, requires_grad=requires_grad, cls=cls)
    out._vc = version_counter(base)
    return out


class Parameter(Tensor):
    """A tensor that is a module parameter: registered automatically when assigned to a Module."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        return _shared(data, requires_grad, cls)

    def __init__(self, data=None, requires_grad=True) -> None:
        """Everything is set up by ``__new__``."""

    def __repr__(self, *, tensor_contents=None) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__


Parameter.__module__ = "myautograd.nn.parameter"


class _BufferMeta(type):
    """``isinstance(t, Buffer)`` holds for the tensors ``Buffer(...)`` returns."""

    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """``Buffer(data, persistent=True)``: a plain tensor marked to be registered as a module buffer."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = empty(0)
        out = _shared(data, data.requires_grad, Tensor)
        out.persistent = persistent
        out._is_buffer = True
        return out


Buffer.__module__ = "myautograd.nn.parameter"

__all__ = ["Buffer", "Parameter"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
