"""``myautograd.autograd``: backward, grad, custom Functions, anomaly detection, graph hooks.

``backward`` and ``grad`` check their arguments and turn them into root gradients the way
torch's ``torch/autograd/__init__.py`` does (with the same messages), then hand over to the
engine (``myautograd/_autograd/engine.py``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

from .._autograd import forward as _forward
from .._autograd.engine import run_backward
from .._autograd.node import gradient_edge
from .._autograd.view_links import gradient_tensor
from .._batched import LEVELS as VMAP_LEVELS
from .._batched import BatchedTensor, aligned, levels_of, union_of_levels
from .._grad_mode import (
    enable_grad,
    enforce_grad_layout_policy,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)
from .._missing import missing_attribute as _missing_attribute
from .._ops.shape import stack
from .._tensor import Tensor, make_tensor
from .._user_warnings import warn_once
from . import anomaly_mode, forward_ad, function, functional, graph
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import gradcheck, gradgradcheck  # the functions hide the module's name, as in torch
from .variable import Variable

__all__ = [
    "Function", "FunctionCtx", "Variable", "backward", "grad", "detect_anomaly", "set_detect_anomaly",
    "enable_grad", "no_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled", "graph", "functional",
    "function", "anomaly_mode", "once_differentiable", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
    "gradcheck", "gradgradcheck", "forward_ad", "set_multithreading_enabled", "enforce_grad_layout_policy",

]

REFERENCE_CYCLE_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient "
    "which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you "
    "have to use this function, make sure to reset the .grad fields of your parameters to None after use to break "
    "the cycle and avoid the leak."
)


def _as_tuple(value, count: int | None = None) -> tuple:
    if value is None:
        return (None,) * (count or 1)
    if isinstance(value, (Tensor, graph.GradientEdge)):
        return (value,)
    return tuple(value)


def _make_grads(outputs: Sequence[Tensor], grads: Sequence, is_grads_batched: bool = False) -> list:
    """Root gradients: checked against the outputs, implicit ones for single-element outputs."""
    made = []
    for out, grad in zip(outputs, grads):
        if isinstance(out, graph.GradientEdge):  # an output given as an edge has no values to look at
            if grad is None:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            made.append(grad)
            continue
        if isinstance(grad, Tensor):
            out_shape = out.shape
            grad_shape = grad.shape
            if not is_grads_batched and out_shape != grad_shape:
                index = list(grads).index(grad)
                raise RuntimeError(f"Mismatch in shape: grad_output[{index}] has a shape of {grad_shape} and "
                                   f"output[{index}] has a shape of {out_shape}.")
            if is_grads_batched and tuple(grad_shape[1:]) != tuple(out_shape):
                index = list(grads).index(grad)
                raise RuntimeError(
                    "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                    "dimension. The sizes of the remaining dimensions are expected to match the shape of "
                    f"corresponding output, but a mismatch was detected: grad_output[{index}] has a shape of "
                    # torch reports the shape of grad_output[i][0] without its first dimension
                    f"{grad_shape[2:]} and output[{index}] has a shape of {out_shape}. If you only want some "
                    "tensors in "
                    "`grad_output` to be considered batched, consider using vmap.")
            if out.dtype.is_complex != grad.dtype.is_complex:
                index = list(grads).index(grad)
                raise RuntimeError(
                    "For complex Tensors, both grad_output and output are required to have the same dtype. Mismatch "
                    f"in dtype: grad_output[{index}] has a dtype of {grad.dtype} and output[{index}] has a dtype of "
                    f"{out.dtype}.")
            made.append(grad)
        elif grad is None:
            if out.requires_grad:
                if out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not out.dtype.is_floating_point:
                    raise RuntimeError(
                        f"grad can be implicitly created only for real scalar outputs but got {out.dtype}")
                made.append(make_tensor(np.ones_like(out._data)))
            else:
                made.append(None)
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got {type(grad).__name__}")
    return made


def _roots(tensors: Sequence[Tensor], grads: list, create_graph: bool):
    """Validated root edges and gradients (arrays for a plain backward, tensors under create_graph)."""
    roots, root_grads = [], []
    for index, (tensor, grad) in enumerate(zip(tensors, grads)):
        if isinstance(tensor, graph.GradientEdge):
            roots.append(tensor[:2])
            root_grads.append(grad if create_graph else grad._data)
            continue
        edge = gradient_edge(tensor)
        if edge[0] is None:
            raise RuntimeError(f"element {index} of tensors does not require grad and does not have a grad_fn")
        if grad.device != tensor.device:
            raise RuntimeError(f"invalid gradient at index {index} - expected device {tensor.device} but got "
                               f"{grad.device}")
        if grad.dtype is not tensor.dtype:
            grad = grad.to(tensor.dtype)
        roots.append(edge)
        root_grads.append(grad if create_graph else grad._data)
    return roots, root_grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves (or of ``inputs``)."""
    if grad_variables is not None:
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.", FutureWarning, stacklevel=2)
        if grad_tensors is None:
            grad_tensors = grad_variables
        else:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments both passed to "
                               "`backward()`. Please only use `grad_tensors`.")
    if inputs is not None and len(_as_tuple(inputs)) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    tensors = _as_tuple(tensors)
    inputs = _inputs_tuple(inputs)
    grads = _as_tuple(grad_tensors, len(tensors))
    made = _make_grads(tensors, grads)
    if len(made) != len(tensors) or len(grads) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grads)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        for tensor in inputs:
            if not isinstance(tensor, graph.GradientEdge) and not tensor.requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    roots, root_grads = _roots(tensors, made, create_graph)
    try:
        run_backward(roots, root_grads, keep_graph=retain_graph, create_graph=create_graph, inputs=inputs,
                     accumulate=True)
    finally:  # torch warns when its engine returns, after hooks and Functions ran, and also when it raised
        if create_graph:
            warn_once(REFERENCE_CYCLE_WARNING)


def _inputs_tuple(inputs):
    if inputs is None:
        return None
    if isinstance(inputs, (Tensor, graph.GradientEdge)):
        return (inputs,)
    if isinstance(inputs, dict):
        return tuple(inputs.values())
    return tuple(inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned (``.grad`` is left alone)."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.",
                      FutureWarning, stacklevel=2)
    as_dict = isinstance(inputs, dict)
    keys = list(inputs.keys()) if as_dict else None
    outputs = _as_tuple(outputs)
    inputs = _inputs_tuple(inputs)
    if len(inputs) == 0:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grad_outputs = _as_tuple(grad_outputs, len(outputs))
    if VMAP_LEVELS and any(isinstance(t, BatchedTensor) for t in (*outputs, *inputs, *grad_outputs)):
        return _grad_of_samples(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                                materialize_grads)
    made = _make_grads(outputs, grad_outputs, is_grads_batched)
    if len(made) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    if materialize_grads and any(isinstance(x, graph.GradientEdge) for x in inputs):
        raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
    if is_grads_batched:
        result = _batched_grad(outputs, inputs, made, retain_graph, create_graph, allow_unused)
    else:
        result = _grad(outputs, inputs, made, retain_graph, create_graph, allow_unused)
    if materialize_grads:
        result = tuple(r if r is not None else _zeros_for(x, create_graph) for r, x in zip(result, inputs))
    return dict(zip(keys, result)) if as_dict else result


def _grad_of_samples(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize) -> tuple:
    """``grad`` under vmap, of batched values: one backward pass of their physical tensors gives each sample's
    gradients, provided every input is batched over every level the others are (else the gradients of the
    samples would be summed)."""
    levels = union_of_levels((*outputs, *inputs, *grad_outputs))
    if any(levels_of(t) != levels for t in inputs):
        raise RuntimeError("vmap: autograd.grad with respect to an input that is not batched over every level of "
                           "the outputs (create the input inside the vmap, or differentiate with torch.func.grad)")
    physical_grads = []
    for output, given in zip(outputs, grad_outputs):
        if given is None and output.numel() != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        physical_grads.append(None if given is None else aligned(given, levels, expand=True))
    physical_outputs = [aligned(o, levels, expand=True) for o in outputs]
    physical_grads = [g if g is not None else make_tensor(np.ones_like(o._data)) for g, o in zip(physical_grads,
                                                                                             physical_outputs)]
    found = grad(physical_outputs, [t.physical for t in inputs], physical_grads, retain_graph, create_graph,
                 allow_unused=allow_unused, materialize_grads=materialize)
    return tuple(None if g is None else BatchedTensor(g, levels) for g in found)


def _grad(outputs, inputs, grads, retain_graph, create_graph, allow_unused) -> tuple:
    # Inside a dual level the formulas run on tensors, so that the gradients get their tangents
    # (forward-over-reverse), as torch's do without create_graph too; they are then given back detached.
    tangents_only = not create_graph and _forward.carrying()
    roots, root_grads = _roots(outputs, grads, create_graph or tangents_only)  # the outputs are checked first
    for tensor in inputs:
        if not isinstance(tensor, graph.GradientEdge) and not tensor.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    captured = run_backward(roots, root_grads, keep_graph=retain_graph, create_graph=create_graph or tangents_only,
                            inputs=list(inputs), accumulate=False)
    if tangents_only:
        captured = [None if value is None else _forward.detached_keeping_tangent(value) for value in captured]
        create_graph = True  # the values are tensors already
    result = []
    for index, value in enumerate(captured):
        if value is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {index} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
            result.append(None)
        else:
            result.append(value if create_graph else gradient_tensor(value))
    return tuple(result)


def _batched_grad(outputs, inputs, grads, retain_graph, create_graph, allow_unused) -> tuple:
    """``is_grads_batched``: one vector-Jacobian product per row of the grad_outputs."""
    rows = grads[0].shape[0]
    per_row = []
    for row in range(rows):
        row_grads = [g[row] for g in grads]
        per_row.append(_grad(outputs, inputs, row_grads, True if row < rows - 1 else retain_graph,
                             create_graph, allow_unused))
    return tuple(None if parts[0] is None else stack(list(parts)) for parts in zip(*per_row))


def _zeros_for(tensor: Tensor, requires_grad: bool) -> Tensor:
    return make_tensor(np.zeros_like(tensor._data), requires_grad=requires_grad)


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
    """``tensor.backward()``: ``autograd.backward`` of this tensor."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


_tensor_backward.__name__ = _tensor_backward.__qualname__ = "backward"
Tensor.backward = _tensor_backward  # installed here: the tensor layer knows nothing of the engine


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
