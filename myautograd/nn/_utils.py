"""Helpers shared by ``nn`` and ``optim``: ``typename`` as torch's messages spell types."""

from __future__ import annotations

from .._tensor import Tensor

_OWN_PREFIX = "myautograd"


def typename(obj) -> str:
    """The name torch's messages give ``obj``'s type: ``torch.FloatTensor``, ``int``, ``torch.nn...``.

    Tensors are named by their legacy type; other objects by ``module.qualname`` (``builtins`` left
    out). Classes of this package are named as their torch counterparts.
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None)
    if not isinstance(qualname, str):
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    if module in ("", "builtins"):
        return qualname
    if module == _OWN_PREFIX or module.startswith(_OWN_PREFIX + "."):
        module = "torch" + module[len(_OWN_PREFIX):]
    return f"{module}.{qualname}"
