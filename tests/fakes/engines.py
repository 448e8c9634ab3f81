"""The fake engines, one ``namespace`` per rule of the verdict (see ``tests/test_verdicts.py``).

Each is torch with one change; run one as ``--impl tests.fakes.engines:<name>``.
"""

import functools
import types

import torch

from ._make import namespace


def _tensor_without_requires_grad(data, dtype=None, device=None):
    return torch.tensor(data, dtype=dtype, device=device)


#: torch.tensor() takes no requires_grad keyword.
no_requires_grad_keyword = namespace("no_requires_grad_keyword", {"tensor": _tensor_without_requires_grad})

#: torch.autograd has no grad.
no_autograd_grad = namespace("no_autograd_grad", autograd={"grad": None})

#: torch.no_grad is not callable.
no_grad_not_callable = namespace("no_grad_not_callable", {"no_grad": True})


def _patch_backward(change):
    def install(torch_module):
        original = torch_module.Tensor.backward

        @functools.wraps(original)
        def backward(self, *args, **kwargs):
            return change(original, self, *args, **kwargs)

        torch_module.Tensor.backward = backward

    return install


def _backward_without_inputs(torch_module):
    original = torch_module.Tensor.backward

    def backward(self, gradient=None, retain_graph=None, create_graph=False):
        return original(self, gradient, retain_graph, create_graph)

    torch_module.Tensor.backward = backward


#: Tensor.backward() takes no inputs keyword.
backward_without_inputs = namespace("backward_without_inputs", install=_backward_without_inputs)

#: backward computes nothing: every .grad stays None.
backward_does_nothing = namespace("backward_does_nothing", install=_patch_backward(lambda original, self, *a, **k: None))


def _reworded(original, self, *args, **kwargs):
    try:
        return original(self, *args, **kwargs)
    except RuntimeError as exc:
        raise RuntimeError(str(exc).replace("second time", "once more")) from None


def _retyped(original, self, *args, **kwargs):
    try:
        return original(self, *args, **kwargs)
    except RuntimeError as exc:
        raise ValueError(str(exc)) from None


#: Same exception, another message.
message_reworded = namespace("message_reworded", install=_patch_backward(_reworded))

#: Same message, another exception type.
exception_retyped = namespace("exception_retyped", install=_patch_backward(_retyped))


class _RenamedNode:
    def __init__(self, node):
        self._node = node

    def name(self):
        return {"MulBackward0": "Multiply"}.get(self._node.name(), self._node.name())

    @property
    def next_functions(self):
        return self._node.next_functions


def _rename_nodes(torch_module):
    original = torch_module.Tensor.grad_fn

    def grad_fn(self):
        node = original.__get__(self)
        return None if node is None else _RenamedNode(node)

    torch_module.Tensor.grad_fn = property(grad_fn)


#: Nodes have their own names (Multiply for MulBackward0).
nodes_renamed = namespace("nodes_renamed", install=_rename_nodes)




def _no_retain_grad_and_doubled(torch_module):
    _patch_backward(lambda original, self, gradient=None, *a, **k: original(
        self, torch_module.ones_like(self) * 2 if gradient is None else gradient * 2, *a, **k))(torch_module)

    class Missing:
        def __get__(self, obj, owner=None):
            raise AttributeError(f"'{owner.__name__}' object has no attribute 'retain_grad'", name="retain_grad",
                                 obj=obj)

    torch_module.Tensor.retain_grad = Missing()


#: Gradients doubled, and no retain_grad: the gradient difference comes first.
doubled_without_retain_grad = namespace("doubled_without_retain_grad", install=_no_retain_grad_and_doubled)


def _shape_as_tuple(torch_module):
    torch_module.Tensor.shape = property(lambda self: tuple(self.size()))


#: Tensor.shape is a plain tuple.
shape_as_tuple = namespace("shape_as_tuple", install=_shape_as_tuple)


class Tensor:
    """A tensor of a tiny engine that has no float() (no __float__)."""

    def __init__(self, data):
        self.data = list(data)

    def tolist(self):
        return list(self.data)


#: float(x) of a tensor is not supported (a tiny engine of its own, not torch).
no_float_protocol = types.SimpleNamespace(Tensor=Tensor, tensor=Tensor, __version__="0.0",
                                          __conformance_module__="no_float_protocol")

#: torch.autograd.function is missing (a catalog helper looks it up).
no_autograd_function_module = namespace("no_autograd_function_module", autograd={"function": None})


def _grad_without_materialize(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
                              allow_unused=None):
    return torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused=allow_unused)


#: torch.autograd.grad() takes no materialize_grads keyword.
grad_without_materialize = namespace("grad_without_materialize", autograd={"grad": _grad_without_materialize})
