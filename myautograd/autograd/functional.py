"""Higher-level derivatives of functions: ``jacobian``, ``hessian``, ``vjp``, ``jvp``, ``hvp``, ``vhp``.

Each function takes a Python function and its inputs (a tensor or a tuple of tensors) and returns the
derivative in the same structure as torch's ``torch.autograd.functional``: a tensor where a tensor was given,
tuples where tuples were (nested per output, then per input, for ``jacobian`` and ``hessian``).

Everything is reverse mode on the engine (``autograd.grad``):

* the function runs on fresh tensors that require grad (views of the inputs with ``create_graph=True``, so
  the results stay connected to them; detached copies otherwise, and the results come back detached);
* ``jvp`` and ``hvp`` use the double-backward trick: ``J v`` is the gradient, with respect to a dummy
  ``u``, of ``u^T J`` contracted with ``v``;
* ``strict=True`` raises, with torch's messages, where an output does not depend on an input (and where
  an output does not require grad at all); without it those derivatives are zeros;
* ``vectorize=True`` computes the reverse-mode Jacobian in one batched call: ``torch.func.jacrev``, on vmap;
* ``strategy="forward-mode"`` (only with ``vectorize=True``, as torch) pushes the identity's rows through the
  function as tangents, under vmap and one dual level, as torch does.
"""

from __future__ import annotations

import sys

from .._grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from .._missing import missing_attribute as _missing_attribute
from .._ops.creation import eye, zeros_like
from .._tensor import Tensor

STRATEGIES = ("forward-mode", "reverse-mode")
NOT_STRICT = " This is not allowed in strict mode."


def _as_tuple(value, what: str, function: str) -> tuple[bool, tuple]:
    """Whether ``value`` was a tuple, and it as a tuple of tensors (TypeError naming what is not a tensor)."""
    given_tuple = isinstance(value, tuple)
    items = value if given_tuple else (value,)
    for index, item in enumerate(items):
        if not isinstance(item, Tensor):
            where = f"the value at index {index}" if given_tuple else f"the given {what}"
            raise TypeError(f"The {what} given to {function} must be either a Tensor or a tuple of Tensors but "
                            f"{where} has type {type(item)}.")
    return given_tuple, items


def _unpack(result, given_tuple):
    """Undo ``_as_tuple``: ``given_tuple`` a bool, or (outputs were a tuple, inputs were a tuple) for tables."""
    if isinstance(given_tuple, tuple):
        outputs_tuple, inputs_tuple = given_tuple
        if not inputs_tuple:
            result = tuple(row[0] for row in result)
        return result if outputs_tuple else result[0]
    return result if given_tuple else result[0]


def _fresh(tensors: tuple, create_graph: bool, requires_grad: bool = True) -> tuple:
    """New tensor objects to differentiate with respect to: connected to the given ones (a view) where
    ``create_graph`` and they require grad, detached otherwise."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(requires_grad)
                 for t in tensors)


def _settle(tensors: tuple, create_graph: bool) -> tuple:
    """The results as returned: detached unless ``create_graph`` (tables recursively)."""
    if create_graph:
        return tensors
    return tuple(t.detach() if isinstance(t, Tensor) else _settle(t, create_graph) for t in tensors)


def _check_v(v: tuple, like: tuple, given_tuple: bool) -> None:
    if len(v) != len(like):
        if given_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(like)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for index, (vector, reference) in enumerate(zip(v, like)):
        if vector.size() != reference.size():
            entry = f"Entry {index} in " if given_tuple else ""
            raise RuntimeError(f"{entry}v has invalid size: should be {reference.size()} but got {vector.size()}.")


def _check_strict(tensors: tuple, kind: str, strict: bool) -> None:
    """strict: each of ``tensors`` (outputs, gradients of inputs, a Jacobian) must exist and require grad."""
    if not strict:
        return
    for index, tensor in enumerate(tensors):
        if tensor is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {index}."
                               + NOT_STRICT)
        if tensor.requires_grad:
            continue
        if kind == "outputs":
            raise RuntimeError(f"Output {index} of the user-provided function does not require gradients. The "
                               "outputs must be computed in a differentiable manner from the input when running in "
                               "strict mode.")
        if kind == "grad_inputs":
            raise RuntimeError(f"The gradient with respect to input {index} is independent of the inputs of the "
                               "user-provided function." + NOT_STRICT)
        raise RuntimeError("While computing the hessian, found that the jacobian of the user-provided function with "
                           f"respect to input {index} is independent of the input." + NOT_STRICT + " You should "
                           "ensure that your function is twice differentiable and that the jacobian depends on the "
                           "inputs (this would be violated by a linear function for example).")


def _grad(outputs: tuple, inputs: tuple, grad_outputs=None, create_graph=False, batched=False) -> tuple:
    """``autograd.grad`` over the outputs that exist and require grad; None for every input if there are none."""
    from . import grad

    grad_outputs = (None,) * len(outputs) if grad_outputs is None else grad_outputs
    pairs = [(out, g) for out, g in zip(outputs, grad_outputs) if out is not None and out.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return grad(tuple(out for out, _ in pairs), inputs, tuple(g for _, g in pairs), retain_graph=True,
                create_graph=create_graph, allow_unused=True, is_grads_batched=batched)


# what a missing product means in strict mode, per stage: (no gradient at all, not differentiable with create_graph)
_MISSING = {
    "back": ("The output of the user-provided function is independent of input {}." + NOT_STRICT,
             "The jacobian of the user-provided function is independent of input {}."),
    "back_trick": ("The gradient with respect to the input is independent of entry {} in the grad_outputs when "
                   "using the double backward trick to compute forward mode gradients." + NOT_STRICT,
                   "The jacobian of the user-provided function is independent of input {}."),
    "double_back": ("The jacobian of the user-provided function is independent of input {}." + NOT_STRICT,
                    "The hessian of the user-provided function is independent of input {}."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry {} in the "
                          "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                          "backward trick to replace forward mode AD.",
                          "The hessian of the user-provided function is independent of input {}."),
}


def _zeros_where_missing(grads: tuple, like: tuple, strict: bool, create_graph: bool, stage: str) -> tuple:
    missing, constant = _MISSING[stage]
    filled = []
    for index, (g, reference) in enumerate(zip(grads, like)):
        if g is None:
            if strict:
                raise RuntimeError(missing.format(index))
            g = zeros_like(reference)
        elif strict and create_graph and not g.requires_grad:
            raise RuntimeError(constant.format(index) + " This is not allowed in strict mode when create_graph=True.")
        filled.append(g)
    return tuple(filled)


def _needs_v(inputs: tuple) -> None:
    if len(inputs) != 1 or inputs[0].numel() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                           "Tensor with a single element.")


def _prepare_v(v, like: tuple, like_tuple: bool, create_graph: bool, function: str):
    if v is None:
        return None
    _, v = _as_tuple(v, "v", function)
    v = _fresh(v, create_graph, requires_grad=False)
    _check_v(v, like, like_tuple)
    return v


def _product_mode(create_graph: bool) -> set_grad_enabled:
    """The grad mode the last backward of a product runs in: recording where create_graph asks for it."""
    return set_grad_enabled(True if create_graph else is_grad_enabled())


# -- vjp and jvp -------------------------------------------------------------------------------------------------

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """The function's output and the vector-Jacobian product ``v^T J`` (shaped as the inputs)."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _fresh(inputs, create_graph)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_strict(outputs, "outputs", strict)
        v = _prepare_v(v, outputs, outputs_tuple, create_graph, "vjp")
        if v is None and (len(outputs) != 1 or outputs[0].numel() != 1):
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                               "Tensor with a single element.")
    with _product_mode(create_graph):
        product = _zeros_where_missing(_grad(outputs, inputs, v, create_graph), inputs, strict, create_graph, "back")
    return (_unpack(_settle(outputs, create_graph), outputs_tuple),
            _unpack(_settle(product, create_graph), inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """The function's output and the Jacobian-vector product ``J v`` (shaped as the outputs), by the
    double-backward trick."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _fresh(inputs, create_graph)
        v = _prepare_v(v, inputs, inputs_tuple, create_graph, "jvp")
        if v is None:
            _needs_v(inputs)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_strict(outputs, "outputs", strict)
        dummies = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, dummies, create_graph=True)
        _check_strict(grad_inputs, "grad_inputs", strict)
    with _product_mode(create_graph):
        product = _zeros_where_missing(_grad(grad_inputs, dummies, v, create_graph), outputs, strict, create_graph,
                                       "back_trick")
    return (_unpack(_settle(outputs, create_graph), outputs_tuple),
            _unpack(_settle(product, create_graph), outputs_tuple))


# -- jacobian and hessian ----------------------------------------------------------------------------------------

def _jacobian_rows(outputs: tuple, inputs: tuple, create_graph: bool, strict: bool) -> tuple:
    """Per output, per input: one backward per output element, the rows stacked."""
    table = []
    for out_index, out in enumerate(outputs):
        rows = tuple([] for _ in inputs)
        flat = out.reshape(-1)
        for element in range(out.numel()):
            grads = _grad((flat[element],), inputs, create_graph=create_graph)
            for in_index, (g, x) in enumerate(zip(grads, inputs)):
                if g is None:
                    if strict:
                        raise RuntimeError(f"Output {out_index} of the user-provided function is independent of "
                                           f"input {in_index}." + NOT_STRICT)
                    g = _torch_op("zeros_like")(x)
                elif strict and create_graph and not g.requires_grad:
                    # torch names the output's index here
                    raise RuntimeError(f"The jacobian of the user-provided function is independent of input "
                                       f"{out_index}. This is not allowed in strict mode when create_graph=True.")
                rows[in_index].append(g)
        table.append(tuple(_torch_op("stack")(column).view(tuple(out.shape) + tuple(x.shape))
                           for column, x in zip(rows, inputs)))
    return tuple(table)


def _jacobian_batched(func, inputs: tuple, outputs_tuple: bool) -> tuple:
    """All rows at once: ``torch.func.jacrev`` (the vector-Jacobian products of the identity's rows under
    vmap); the inputs are the fresh ones, so with ``create_graph`` the table stays connected to the given."""
    from ..func import jacrev  # noqa: PLC0415 - func is built on this package

    table = jacrev(func, argnums=tuple(range(len(inputs))))(*inputs)
    return table if outputs_tuple else (table,)


def _jacobian_forward(func, inputs: tuple) -> tuple[bool, list]:
    """torch's forward-mode Jacobian: the tangents of the identity's rows pushed through ``func`` under vmap,
    in one dual level; a table of lists (torch's), per output then per input."""
    from ..func import vmap  # noqa: PLC0415 - func is built on this package
    from ..func._forward import dual, unpacked_batched  # noqa: PLC0415
    try:
        from . import forward_ad  # noqa: PLC0415 - forward mode is imported late, as func's
    except ImportError:
        raise NotImplementedError("myautograd has no forward-mode AD: use strategy=\"reverse-mode\"") from None

    numels = [x.numel() for x in inputs]
    basis = eye(sum(numels), dtype=inputs[0].dtype, device=inputs[0].device)
    rows = basis.split(numels, dim=1)
    seen = {}

    def push(*tangents):
        with forward_ad.dual_level():
            duals = tuple(dual(x, t.view_as(x)) for x, t in zip(inputs, tangents))
            seen["tuple"], outputs = _as_tuple(func(*duals), "outputs of the user-provided function", "jacobian")
            pairs = [unpacked_batched(out) for out in outputs]
            seen["shapes"] = [tuple(primal.shape) for primal, _ in pairs]
            return tuple(_torch_op("zeros_like")(primal) if tangent is None else tangent for primal, tangent in pairs)

    pushed = vmap(push)(*rows)
    table = []
    for jac_output, shape in zip(pushed, seen["shapes"]):
        table.append([jac.permute(*range(1, jac.dim()), 0).reshape(*shape, *x.shape)
                      for jac, x in zip(jac_output.split(numels, dim=0), inputs)])
    return seen["tuple"], table


def _torch_op(name: str):
    """``torch.<name>`` as user code reaches it: under vmap, its batching dispatcher."""
    return getattr(sys.modules["myautograd"], name)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: ``result[i][j]`` is output i's derivative by input j, of shape
    ``output_i.shape + input_j.shape``."""
    if strategy not in STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        _check_forward_mode(inputs, create_graph, strict, vectorize)
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        outputs_tuple, table = _jacobian_forward(func, inputs)
        return _unpack(table, (outputs_tuple, inputs_tuple))
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _fresh(inputs, create_graph)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_strict(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        if vectorize:
            table = _jacobian_batched(func, inputs, outputs_tuple)
        else:
            table = _jacobian_rows(outputs, inputs, create_graph, strict)
    return _unpack(_settle(table, create_graph), (outputs_tuple, inputs_tuple))


def _check_forward_mode(inputs, create_graph: bool, strict: bool, vectorize: bool):
    """torch's checks of ``strategy="forward-mode"``, in its order."""
    if create_graph:
        raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-'
                                  'mode"` are not supported together (yet). Please either set `create_graph=False` '
                                  'or `strategy="reverse-mode"`.')
    if strict:
        raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not '
                           'supported together (yet). Please either set `strict=False` or `strategy="reverse-mode"`.')
    _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        # torch's message, its missing space included
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                  "only implemented for `vectorize=True`.")


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a function returning one element: the Jacobian of its gradient (``result[i][j]`` for
    inputs i and j, of shape ``input_i.shape + input_j.shape``)."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar(*xs):
        out = func(*xs)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_strict(outs, "outputs", strict)
        _one_tensor_of_one_element(out_tuple, outs, "hessian")
        return out.squeeze()

    def gradient(*xs):
        if outer_jacobian_strategy == "forward-mode":
            xs = tuple(x.requires_grad_(True) for x in xs)
        grads = jacobian(scalar, xs, create_graph=True)
        _check_strict(grads, "jacobian", strict)
        return grads

    table = jacobian(gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                     strategy=outer_jacobian_strategy)
    return _unpack(table, (inputs_tuple, inputs_tuple))


def _one_tensor_of_one_element(outputs_tuple: bool, outputs: tuple, function: str) -> None:
    if outputs_tuple:
        raise RuntimeError(f"The function given to {function} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {function} should contain a single element")


# -- vhp and hvp -------------------------------------------------------------------------------------------------

def _scalar_and_gradient(func, inputs, v, create_graph: bool, strict: bool, function: str):
    """What vhp and hvp share: the checked inputs and v, the output, its gradient (with its graph)."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", function)
    inputs = _fresh(inputs, create_graph)
    v = _prepare_v(v, inputs, inputs_tuple, create_graph, function)
    if v is None:
        _needs_v(inputs)
    outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", function)
    _check_strict(outputs, "outputs", strict)
    _one_tensor_of_one_element(outputs_tuple, outputs, function)
    gradient = _grad(outputs, inputs, create_graph=True)
    _check_strict(gradient, "jacobian", strict)
    return inputs_tuple, inputs, v, outputs_tuple, outputs, gradient


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """The function's output and the vector-Hessian product ``v^T H`` (shaped as the inputs)."""
    with enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, gradient = _scalar_and_gradient(
            func, inputs, v, create_graph, strict, "vhp")
    with _product_mode(create_graph):
        product = _zeros_where_missing(_grad(gradient, inputs, v, create_graph), inputs, strict, create_graph,
                                       "double_back")
    return (_unpack(_settle(outputs, create_graph), outputs_tuple),
            _unpack(_settle(product, create_graph), inputs_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """The function's output and the Hessian-vector product ``H v`` (shaped as the inputs), by the
    double-backward trick on the gradient."""
    with enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, gradient = _scalar_and_gradient(
            func, inputs, v, create_graph, strict, "hvp")
        dummies = tuple(zeros_like(x, requires_grad=True) for x in inputs)
        double_back = _grad(gradient, inputs, dummies, create_graph=True)
    with _product_mode(create_graph):
        product = _zeros_where_missing(_grad(double_back, dummies, v, create_graph), inputs, strict, create_graph,
                                       "double_back_trick")
    return (_unpack(_settle(outputs, create_graph), outputs_tuple),
            _unpack(_settle(product, create_graph), inputs_tuple))


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
