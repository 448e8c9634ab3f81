"""Custom autograd Functions: ``class F(Function)`` with static ``forward``/``backward``.

As in torch, the context object a Function's ``forward`` receives *is* its backward node (so
``y.grad_fn.saved_tensors`` works), of class ``<Name>Backward``. ``apply`` runs ``forward``
with grad mode off, then wires the outputs into the graph: outputs marked dirty keep their
identity and get the node as history, an input returned unchanged comes back as a new view of
it, outputs marked non-differentiable stay out of the graph. The node's edges are those of the
tensor arguments; ``backward`` must return one gradient per argument (None for non-tensors).
"""

from __future__ import annotations

import functools
import inspect
import warnings
from typing import Any

from .. import _backend, _dtype
from .._autograd import forward
from .._autograd.engine import current_task, shown_to_user
from .._autograd.node import (
    FREED_MESSAGE,
    NO_EDGE,
    Node,
    SavedTensor,
    gradient_edge,
    init_node,
    split_edges,
    unpack_saved_tensor,
)
from .._autograd.record import save_for_backward
from .._autograd.view_links import track_view
from .._grad_mode import STATE
from .._missing import missing_attribute as _missing_attribute
from .._tensor import Tensor, make_tensor, version_counter
from . import _function_vmap

LEGACY_MESSAGE = (
    "Legacy autograd function with non-static forward method is deprecated. Please use new-style autograd function "
    "with static forward method. (Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
)
DIRTY_LEAF_MESSAGE = "a leaf Variable that requires grad has been used in an in-place operation."
DIRTY_NON_INPUT_WARNING = (
    "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have been mutated should be "
    "passed to ctx.mark_dirty()."
)
INPLACE_JVP_MESSAGE = ("An inplace custom Function is not modifying the forward mode gradients inplace. If the forward "
                       "is modifying an input inplace, then the jvp function must modify the corresponding gradient "
                       "inplace.")
VIEW_JVP_MESSAGE = "A custom Function's forward is returning a view (or an input as-is) but the jvp is not returning a view."
TWICE_MESSAGE = "trying to differentiate twice a function that was marked with @once_differentiable"
BOTH_BACKWARD_AND_VJP_MESSAGE = ("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You "
                                 "should only implement one of them.")
SAVED_TENSORS_ACCESSED_MESSAGE = (
    "saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is set on the autograd.Function. "
    "Either access saved_tensors only once, or set clear_saved_tensors_on_access=False."
)
SHARED_STORAGE_WARNING = ("`mark_shared_storage` is deprecated. Tensors with shared storages are automatically tracked. "
                          "Note that calls to `set_()` are not tracked")


class FunctionCtx:
    """What ``forward``/``setup_context`` can record on the context."""

    def save_for_backward(self, *tensors) -> None:
        for position, tensor in enumerate(tensors):
            if tensor is not None and not isinstance(tensor, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {position} is of type "
                                f"{type(tensor).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self.saved_for_forward = tensors

    def mark_dirty(self, *tensors) -> None:
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value

    def mark_shared_storage(self, *pairs) -> None:
        warnings.warn(SHARED_STORAGE_WARNING, FutureWarning, stacklevel=2)


class BackwardCFunction(Node, FunctionCtx):
    """The backward node of a custom Function; also its ``ctx``."""

    _forward_cls: type = None

    def __init__(self) -> None:
        init_node(self, (), (), {}, ())
        self.to_save = ()
        self.dirty_tensors = ()
        self.non_differentiable = ()
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._saved_tensors: tuple = ()
        self._arg_is_tensor: tuple = ()
        self._output_meta: list = []
        self.saved_for_forward: tuple = ()
        self._in_jvp = False
        self._saved_tensors_accessed = False

    @property
    def saved_tensors(self) -> tuple:
        if self._in_jvp:  # jvp sees what save_for_forward saved, not save_for_backward
            return tuple(self.saved_for_forward)
        if self._forward_cls.clear_saved_tensors_on_access:
            if self._saved_tensors_accessed:
                raise RuntimeError(SAVED_TENSORS_ACCESSED_MESSAGE)
            self._saved_tensors_accessed = True
        return tuple(None if s is None else unpack_saved_tensor(s, self) if isinstance(s, SavedTensor) else s
                     for s in self._saved_tensors)

    saved_variables = saved_tensors

    def release(self) -> None:
        for saved in self._saved_tensors:
            if isinstance(saved, SavedTensor):
                saved.free()
        self._released = True

    def apply(self, grads: list, mode) -> list:
        if self._released and any(isinstance(s, SavedTensor) for s in self._saved_tensors):
            raise RuntimeError(FREED_MESSAGE)
        inputs = []
        for index, meta in enumerate(self._output_meta):
            grad = grads[index] if index < len(grads) else None
            if meta is None:
                inputs.append(None)
            elif grad is None and self.materialize_grads:
                shape, dtype, device = meta
                inputs.append(make_tensor(_backend.array_module(device).zeros(shape, dtype=dtype)))
            else:
                inputs.append(None if grad is None else mode.as_tensor(grad))
        backward = self._user_backward()
        results = backward(self, inputs) if self._forward_cls.boxed_grads_call else backward(self, *inputs)
        if not isinstance(results, tuple):
            results = (results,)
        expected = len(self._arg_is_tensor)
        if len(results) != expected:
            if len(results) > expected and all(r is None for r in results[expected:]):
                results = results[:expected]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients (expected "
                                   f"{expected}, got {len(results)})")
        grads_out = []
        for position, (result, is_tensor) in enumerate(zip(results, self._arg_is_tensor)):
            if not is_tensor:
                if result is not None:
                    raise RuntimeError(f"function {self.name()} returned a gradient different than None at position "
                                       f"{position + 1}, but the corresponding forward input was not a Variable")
                continue
            if result is not None and not isinstance(result, Tensor):
                raise TypeError(f"{self.name()}.backward returned {type(result).__name__} instead of a Tensor")
            grads_out.append(None if result is None else mode.from_tensor(result))
        shown_to_user(current_task(), list(grads) + grads_out)  # user code saw them: not the engine's alone
        return grads_out

    def _user_backward(self):
        """The Function's ``backward``, or ``vjp``, its other name; defining both is an error."""
        cls = self._forward_cls
        if cls.backward is not Function.backward and cls.vjp is not Function.vjp:
            raise RuntimeError(BOTH_BACKWARD_AND_VJP_MESSAGE)
        return cls.vjp if cls.vjp is not Function.vjp else cls.backward

    def name(self) -> str:
        return type(self).__name__


class FunctionMeta(type):
    """Gives every Function subclass its backward node class, ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        backward_cls = type(f"{name}Backward", (BackwardCFunction,), {"_forward_cls": cls})
        backward_cls.__module__ = cls.__module__
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    """Base class of custom autograd operations (see the module docstring)."""

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, so "
                      "you should invoke them on the class itself. Instantiating an autograd function will raise an "
                      "error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(LEGACY_MESSAGE)

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward
    clear_saved_tensors_on_access = False  # True: saved_tensors may be read once
    boxed_grads_call = False  # True: backward(ctx, grads) gets the gradients as one list it may empty
    generate_vmap_rule = False

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it with "
                                  "forward mode AD.")

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError("To use autograd.Function with vmap, you must either override the vmap staticmethod "
                                  "or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args, **kwargs):
        setup_style = cls.setup_context is not Function.setup_context
        if setup_style:  # as torch, the arguments bound to forward's signature, defaults included
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        inputs = args + tuple(kwargs.values())  # keyword arguments are inputs too, in the order given
        if _function_vmap.is_batched_call(inputs):
            return _function_vmap.apply_batched(cls, Function, args, kwargs, setup_style)
        ctx = cls._backward_cls()
        is_tensor = tuple(isinstance(a, Tensor) for a in inputs)
        requires = tuple(t and a._requires_grad for t, a in zip(is_tensor, inputs))
        executable = STATE.grad_enabled and any(requires)
        ctx.needs_input_grad = requires  # whatever the grad mode, as torch's
        ctx._arg_is_tensor = is_tensor
        previous = STATE.grad_enabled
        STATE.grad_enabled = False
        try:
            with forward.suspended():  # as torch, forward runs with forward-mode AD off: jvp gives the tangents
                if setup_style:
                    outputs = cls.forward(*args, **kwargs)
                    cls.setup_context(ctx, inputs, outputs)
                else:
                    outputs = cls.forward(ctx, *args, **kwargs)
        finally:
            STATE.grad_enabled = previous
        wrapped = _wrap_outputs(ctx, inputs, outputs, executable)
        if forward.ACTIVE and any(forward.tangent_of(a) is not None for a in inputs):
            _give_tangents(cls, ctx, inputs, wrapped)
        return wrapped


def _give_tangents(cls, ctx: BackwardCFunction, args: tuple, wrapped) -> None:
    """Call ``jvp`` with the inputs' tangents and give the outputs theirs, with torch's checks of what it returns."""
    tangents = []
    for arg in args:
        tangent = forward.tangent_of(arg) if isinstance(arg, Tensor) else None
        if tangent is None and isinstance(arg, Tensor) and ctx.materialize_grads and forward.is_differentiable(arg):
            tangent = make_tensor(_backend.array_module(_backend.device_of(arg._data)).zeros_like(arg._data))
        tangents.append(tangent)
    ctx._in_jvp = True
    try:
        with forward.suspended():
            results = cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
    outputs = wrapped if isinstance(wrapped, tuple) else (wrapped,)
    results = results if isinstance(results, tuple) else (results,)
    if len(results) != len(outputs):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients (expected {len(outputs)} "
                           f"but got {len(results)})")
    non_differentiable = {id(t) for t in ctx.non_differentiable}
    dirty = {id(t): index for index, t in enumerate(args) if any(t is d for d in ctx.dirty_tensors)}
    for position, (output, tangent) in enumerate(zip(outputs, results)):
        if tangent is None:
            continue
        if not isinstance(output, Tensor) or id(output) in non_differentiable or not forward.is_differentiable(output):
            raise RuntimeError(f"Function's jvp returned a gradient at position {position}, but  the corresponding "
                               "forward output is not a differentiable Tensor.You should return None at that position "
                               "instead.")
        if tangent._data.shape != output._data.shape:
            raise RuntimeError(forward.size_message(output, tangent))
        if id(output) in dirty:
            if tangent is not tangents[dirty[id(output)]]:
                raise RuntimeError(INPLACE_JVP_MESSAGE)
        elif _is_view_of_an_input(output, args) and not tangent._is_view():
            raise RuntimeError(VIEW_JVP_MESSAGE)
        forward.set_tangent(output, tangent)


def _is_view_of_an_input(output: Tensor, args: tuple) -> bool:
    root = output._base if output._is_view() else output
    return any(isinstance(a, Tensor) and (a._base if a._is_view() else a) is root for a in args)


def _wrap_outputs(ctx: BackwardCFunction, args: tuple, outputs, executable: bool):
    single = not isinstance(outputs, tuple)
    results = (outputs,) if single else outputs
    inputs = {id(a): a for a in args if isinstance(a, Tensor)}
    dirty = {id(t) for t in ctx.dirty_tensors}
    for tensor in ctx.dirty_tensors:
        if id(tensor) not in inputs:
            warnings.warn(DIRTY_NON_INPUT_WARNING, UserWarning, stacklevel=3)
    non_diff = {id(t) for t in ctx.non_differentiable}
    if executable:
        edges, metas = [], []
        for arg in args:
            if isinstance(arg, Tensor):
                edges.append(gradient_edge(arg) if arg._requires_grad else (None, 0))
                metas.append((arg._data.shape, arg._data.dtype, _backend.device_of(arg._data))
                             if arg._requires_grad else None)
        init_node(ctx, *split_edges(edges), {}, tuple(metas))
    wrapped = []
    for index, out in enumerate(results):
        if not isinstance(out, Tensor):
            ctx._output_meta.append(None)
            wrapped.append(out)
            continue
        ctx._output_meta.append((out._data.shape, out._data.dtype, _backend.device_of(out._data)))
        if not executable:
            wrapped.append(out)
            continue
        if id(out) in dirty:
            if out._requires_grad and out._grad_fn is None and not out._is_view():
                raise RuntimeError(DIRTY_LEAF_MESSAGE)
            version_counter(out)[0] += 1
            result = out
        elif id(out) in inputs:
            result = track_view(make_tensor(out._data), out, "custom_function")
        else:
            result = out
        if id(out) in non_diff:
            result._requires_grad = False
        elif _dtype.kind(result._data.dtype) in "fc":
            result._grad_fn = ctx
            result._output_nr = index
            result._requires_grad = True
        wrapped.append(result)
    ctx._saved_tensors = _save(ctx.to_save, executable, inputs, results, wrapped)
    ctx._released = False  # a custom Function is released after each backward without retain_graph
    return wrapped[0] if single else tuple(wrapped)


def _save(to_save: tuple, executable: bool, inputs: dict, results: tuple, wrapped: list) -> tuple:
    """What ``ctx.save_for_backward`` named, saved as a built-in op saves (refused for an inference
    tensor, packed by saved-tensor hooks, with grad mode off as torch packs them); an output is saved
    as the node's output."""
    saved = []
    outputs_by_id = {id(original): (index, new) for index, (original, new) in enumerate(zip(results, wrapped))}
    previous = STATE.grad_enabled
    STATE.grad_enabled = False
    try:
        for tensor in to_save:
            if tensor is None:
                saved.append(None)
            elif not executable:
                saved.append(tensor)
            elif id(tensor) in outputs_by_id and id(tensor) not in inputs:
                index, new = outputs_by_id[id(tensor)]
                saved.append(save_for_backward(new, index))
            else:
                kept = save_for_backward(tensor)
                # torch unpacks a Function's input even after detach_(), as it is now (None: it had a grad_fn)
                kept.nonleaf = None if kept.nonleaf else False
                saved.append(kept)
    finally:
        STATE.grad_enabled = previous
    return tuple(saved)


class Error(Node):
    """The node ``once_differentiable`` puts on gradients that require grad (torch's ``Error``, made
    by its ``DelayedError``): it refuses to run. Its edges lead to fresh leaves, detached copies of
    the gradients, as torch's: it lies on no path to the original inputs, so only a backward that
    runs every node reaches it."""

    __slots__ = ()
    _node_name = "torch::autograd::Error"

    def apply(self, grads: list, mode) -> list:
        raise RuntimeError(TWICE_MESSAGE)


def once_differentiable(fn):
    """Marks a backward that cannot be differentiated: it runs with grad mode off, and its results
    cannot be backpropagated through again."""

    @functools.wraps(fn)
    def wrapper(ctx, *grads):
        previous = STATE.grad_enabled
        STATE.grad_enabled = False
        try:
            outputs = fn(ctx, *grads)
        finally:
            STATE.grad_enabled = previous
        if not (STATE.grad_enabled and any(isinstance(g, Tensor) and g._requires_grad for g in grads)):
            return outputs
        single = not isinstance(outputs, tuple)
        results = (outputs,) if single else outputs
        error = Error.__new__(Error)
        stand_ins = [make_tensor(r._data, True) if isinstance(r, Tensor) else None for r in results]
        init_node(error, *split_edges([NO_EDGE if leaf is None else gradient_edge(leaf) for leaf in stand_ins]),
                  None, tuple(None if leaf is None else (leaf._data.shape, leaf._data.dtype) for leaf in stand_ins))
        wrapped = tuple(make_tensor(r._data, True, error, nr) if isinstance(r, Tensor) else r
                        for nr, r in enumerate(results))
        return wrapped[0] if single else wrapped

    return wrapper


class InplaceFunction(Function):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    pass


Function.__module__ = "myautograd.autograd.function"
FunctionCtx.__module__ = "myautograd.autograd.function"


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
