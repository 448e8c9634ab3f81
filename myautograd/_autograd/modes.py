"""The two forms of a backward pass: on arrays, or on tensors that are recorded.

A plain backward (``create_graph=False``) passes NumPy arrays between nodes and evaluates the
formulas with ``ArrayMath``, with grad mode off. Under ``create_graph=True`` the gradients are
tensors and the formulas run with ``TensorMath``, with grad mode on, so the backward pass is
itself recorded and can be differentiated again (both namespaces: ``formula_math.py``; the
second is installed here by ``myautograd._ops``). The engine and the nodes reach everything that
differs between the two through the mode object.
"""

from __future__ import annotations

from .._backend import device_of
from .._dtype import REDUCED_FLOATS
from .formula_math import ArrayMath, NativeArrayMath
from .node import Node, SavedTensor, unpack_saved_tensor
from .view_links import gradient_tensor


class ArrayMode:
    """Plain backward: gradients are arrays.

    ``running``: with ``inputs``, the nodes that execute (None: all of them); ``visited``: those
    plus the nodes whose hooks and captures apply without running them (None: all). A formula
    is evaluated only for an edge whose node is visited.
    """

    create_graph = False
    F = ArrayMath

    def __init__(self, running: set | None = None, visited: set | None = None) -> None:
        self.running = running
        self.visited = visited

    def runs(self, node: Node) -> bool:
        """Whether ``node`` executes in this pass."""
        return self.running is None or node in self.running

    @staticmethod
    def math(grad) -> type:
        """The ``F`` of the formulas that take ``grad`` back through a node: ``NativeArrayMath``,
        or ``ArrayMath`` for a float16 or bfloat16 gradient (computed in float32, rounded once)."""
        return ArrayMath if grad.dtype in REDUCED_FLOATS else NativeArrayMath

    @staticmethod
    def unpack(saved: SavedTensor, owner: Node):
        data = saved.data
        if data is None or saved.counter[0] != saved.version or (saved.nonleaf and saved.tensor._grad_fn is None):
            return unpack_saved_tensor(saved, owner)._data  # hooks, or the error to raise
        return data

    @staticmethod
    def as_tensor(grad):
        return gradient_tensor(grad)

    @staticmethod
    def from_tensor(tensor):
        return tensor._data

    @staticmethod
    def shape(grad) -> tuple:
        return grad.shape

    @staticmethod
    def dtype(grad):
        return grad.dtype

    @staticmethod
    def device(grad):
        return device_of(grad)


class TensorMode(ArrayMode):
    """``create_graph=True``: gradients are tensors and the backward is recorded."""

    create_graph = True
    F = None  # formula_math.TensorMath, installed by myautograd._ops once its operations exist

    @classmethod
    def math(cls, grad) -> type:
        return cls.F

    @staticmethod
    def unpack(saved: SavedTensor, owner: Node):
        return unpack_saved_tensor(saved, owner)

    @staticmethod
    def as_tensor(grad):
        return grad

    @staticmethod
    def from_tensor(tensor):
        return tensor

    @staticmethod
    def shape(grad) -> tuple:
        return grad._data.shape

    @staticmethod
    def dtype(grad):
        return grad._data.dtype

    @staticmethod
    def device(grad):
        return device_of(grad._data)
