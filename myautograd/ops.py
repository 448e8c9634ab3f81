"""``torch.ops``: the operator namespaces ``aten`` and ``prim``, whose overload objects
(``torch.ops.aten.mm.default``) name the ops a dispatch mode sees, as selective checkpointing's policies
receive them (see ``_ops/aten.py``)."""

from ._missing import missing_attribute
from ._ops.aten import aten, prim

__all__ = ["aten", "prim"]

__getattr__ = missing_attribute(__name__)
