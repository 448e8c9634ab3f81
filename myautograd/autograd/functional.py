"""Higher-level derivatives of functions: ``jacobian``, ``hessian``, ``vjp``, ``jvp``, ``hvp``, ``vhp``."""

from __future__ import annotations

from .._ops.shape import stack
from .._tensor import Tensor


def _tuple(value) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def _grad_ready(inputs: tuple, create_graph: bool) -> tuple:
    return tuple(x.detach().requires_grad_(True) if not create_graph else x.requires_grad_(True)
                 if x.is_leaf else x for x in inputs)


def _grad(outputs, inputs, grad_outputs, create_graph: bool) -> tuple:
    from . import grad

    result = grad(outputs, inputs, grad_outputs, retain_graph=True, create_graph=create_graph, allow_unused=True)
    return tuple(g if g is not None else x.new_zeros(tuple(x.shape)) for g, x in zip(result, inputs))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    single_input = isinstance(inputs, Tensor)
    inputs = _grad_ready(_tuple(inputs), create_graph)
    outputs = func(*inputs)
    single_output = isinstance(outputs, Tensor)
    outputs = _tuple(outputs)
    table = []
    for out in outputs:
        flat = out.reshape(-1)
        rows = []
        for index in range(flat.numel()):
            if not out.requires_grad:
                rows.append(tuple(x.new_zeros(tuple(x.shape)) for x in inputs))
                continue
            rows.append(_grad(flat[index], inputs, None, create_graph))
        per_input = []
        for position, x in enumerate(inputs):
            stacked = stack([row[position] for row in rows]) if rows else x.new_zeros((0,) + tuple(x.shape))
            per_input.append(stacked.reshape(tuple(out.shape) + tuple(x.shape)))
        table.append(tuple(per_input))
    if single_output and single_input:
        return table[0][0]
    if single_output:
        return table[0]
    if single_input:
        return tuple(row[0] for row in table)
    return tuple(table)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    single_input = isinstance(inputs, Tensor)

    def gradient(*xs):
        outputs = func(*xs)
        grads = _grad(outputs, xs, None, True)
        return grads[0] if single_input else grads

    return jacobian(gradient, inputs, create_graph=create_graph)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    single_input = isinstance(inputs, Tensor)
    inputs = _grad_ready(_tuple(inputs), create_graph)
    outputs = func(*inputs)
    grads = _grad(outputs, inputs, v, create_graph)
    detached = outputs if create_graph else (outputs.detach() if isinstance(outputs, Tensor) else
                                             tuple(o.detach() for o in outputs))
    return detached, (grads[0] if single_input else grads)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Forward-mode product by the double-backward trick: J v = d/du (u^T J) v."""
    single_input = isinstance(inputs, Tensor)
    inputs = _grad_ready(_tuple(inputs), True)
    outputs = func(*inputs)
    single_output = isinstance(outputs, Tensor)
    outs = _tuple(outputs)
    dummies = tuple(o.new_zeros(tuple(o.shape)).requires_grad_(True) for o in outs)
    grads = _grad(outs, inputs, dummies, True)
    vs = _tuple(v) if v is not None else tuple(x.new_ones(tuple(x.shape)) for x in inputs)
    result = _grad(grads, dummies, vs, create_graph)
    detached = tuple(o.detach() for o in outs)
    del single_input
    return (detached[0] if single_output else detached), (result[0] if single_output else result)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    single_input = isinstance(inputs, Tensor)
    inputs = _grad_ready(_tuple(inputs), True)
    outputs = func(*inputs)
    grads = _grad(outputs, inputs, None, True)
    result = _grad(grads, inputs, _tuple(v), create_graph)
    return outputs.detach(), (result[0] if single_input else result)


hvp = vhp
