"""``Variable``: the deprecated wrapper, now a function-like class that returns a plain Tensor."""

from __future__ import annotations

from .._missing import missing_attribute as _missing_attribute
from .._ops.creation import tensor
from .._tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(tensor, requires_grad=False)`` gives a tensor sharing ``tensor``'s data."""

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if data is None:
            data = tensor([])
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        out.requires_grad = requires_grad
        return out


Variable.__module__ = "myautograd.autograd.variable"


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
