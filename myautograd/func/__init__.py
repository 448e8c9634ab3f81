"""``myautograd.func``: torch.func's ``grad``, ``grad_and_value`` and ``vjp``, built on the engine.

A transform runs the function on fresh copies of its inputs that require grad and asks the
engine for the gradients (``autograd.grad``). Inputs may be tensors or nested dicts, lists and
tuples of tensors ("pytrees"); gradients come back in the same structure, zeros for inputs the
output does not use (as torch.func gives).

Transforms compose (``grad(grad(f))``) and results stay differentiable when the function's value
depends on tensors from outside the transform that require grad (an outer transform's inputs,
or a model's parameters): then the graph of the gradients is recorded (``create_graph``), and
otherwise results come back as plain tensors, as torch's do.
"""

from __future__ import annotations

from .. import autograd
from .._grad_mode import enable_grad
from .._ops.creation import zeros_like
from .._tensor import Tensor

NOT_A_TENSOR = "Thing passed to transform API must be Tensor, got {}"


# -- pytrees -----------------------------------------------------------------------------------------------------
def _flatten(tree) -> tuple[list, object]:
    """The leaves of nested dicts, lists and tuples, and a spec to rebuild the structure."""
    if isinstance(tree, dict):
        parts = [_flatten(value) for value in tree.values()]
        return [leaf for leaves, _ in parts for leaf in leaves], (dict, list(tree), [spec for _, spec in parts])
    if isinstance(tree, (list, tuple)):
        parts = [_flatten(value) for value in tree]
        return [leaf for leaves, _ in parts for leaf in leaves], (type(tree), None, [spec for _, spec in parts])
    return [tree], None


def _unflatten(leaves: list, spec):
    position = 0

    def build(spec):
        nonlocal position
        if spec is None:
            position += 1
            return leaves[position - 1]
        kind, keys, children = spec
        values = [build(child) for child in children]
        if kind is dict:
            return dict(zip(keys, values, strict=True))
        return kind(values) if kind in (list, tuple) else kind(*values)

    return build(spec)


def _spec_text(spec) -> str:
    """A structure as torch's messages draw it: ``*`` for a leaf, ``(*, *)`` for a pair."""
    if spec is None:
        return "*"
    kind, keys, children = spec
    inner = [_spec_text(child) for child in children]
    if kind is dict:
        return "{" + ", ".join(f"{key!r}: {text}" for key, text in zip(keys, inner, strict=True)) + "}"
    if kind is list:
        return "[" + ", ".join(inner) + "]"
    return "(" + ", ".join(inner) + (",)" if len(inner) == 1 else ")")


# -- shared machinery ----------------------------------------------------------------------------------------------
def _track(leaf):
    """An input as the transform sees it: connected to the outside when it requires grad there."""
    if not isinstance(leaf, Tensor):
        raise ValueError(NOT_A_TENSOR.format(type(leaf)))
    if not (leaf.is_floating_point() or leaf.is_complex()):
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    return leaf.view_as(leaf) if leaf.requires_grad else leaf.detach().requires_grad_()


def _depends_on_outside(tensors: list, inside: list) -> bool:
    """Whether the graph of ``tensors`` reaches a leaf that is not one of the transform's own."""
    own = {id(t) for t in inside if t.grad_fn is None}
    pending = [t.grad_fn for t in tensors if isinstance(t, Tensor) and t.grad_fn is not None]
    pending += [t for t in tensors if isinstance(t, Tensor) and t.grad_fn is None and t.requires_grad
                and id(t) not in own]
    seen = set()
    while pending:
        node = pending.pop()
        if isinstance(node, Tensor):
            return True
        if id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None and id(variable) not in own:
            return True
        pending += [child for child, _ in node.next_functions if child is not None]
    return False


def _plain(tree, inside: list):
    """Results as the caller gets them: each tensor detached unless its graph reaches a tensor from outside
    the transform (``inside``: the transform's own inputs), as torch.func's lifted results are. A gradient
    taken with ``create_graph`` because the value depends on the outside may itself not (an outside tensor
    that enters additively): it comes back plain."""
    leaves, spec = _flatten(tree)
    return _unflatten([leaf.detach() if isinstance(leaf, Tensor) and not _depends_on_outside([leaf], inside)
                       else leaf for leaf in leaves], spec)


def _gradients(outputs: list, inputs: list, cotangents, keep: bool, retain: bool) -> list:
    """d(outputs)/d(inputs) weighted by ``cotangents``; outputs that do not depend on the inputs count as
    constants (zero gradients), as in torch.func."""
    if cotangents is None:
        cotangents = [None] * len(outputs)
    pairs = [(o, c) for o, c in zip(outputs, cotangents, strict=True) if o.requires_grad]
    if not pairs:
        return [zeros_like(t) for t in inputs]
    found = autograd.grad([o for o, _ in pairs], inputs, [c for _, c in pairs], retain_graph=retain or keep,
                          create_graph=keep, allow_unused=True)
    return [zeros_like(t) if g is None else g for g, t in zip(found, inputs, strict=True)]


# -- the transforms --------------------------------------------------------------------------------------------------
def grad_and_value(func, argnums=0, has_aux: bool = False):
    """``f(*args) -> (gradient of f's scalar value w.r.t. args[argnums], value)``."""

    def wrapper(*args, **kwargs):
        numbers = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        for number in numbers:
            if not -len(args) <= number < len(args):
                raise RuntimeError(f"Got argnum={number}, but only {len(args)} positional inputs")
        with enable_grad():
            args = list(args)
            tracked, specs = [], []
            for number in numbers:
                leaves, spec = _flatten(args[number])
                leaves = [_track(leaf) for leaf in leaves]
                args[number] = _unflatten(leaves, spec)
                tracked.append(leaves)
                specs.append(spec)
            result = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should be a tuple: "
                                       "(output, aux) if has_aux is True")
                result, aux = result
            if not isinstance(result, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(result)}")
            if result.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {result.dim()} dims. Maybe you wanted to use the vjp or jacrev "
                                   "APIs instead?")
            inputs = [leaf for leaves in tracked for leaf in leaves]
            keep = _depends_on_outside([result], inputs)
            flat = _gradients([result], inputs, None, keep, retain=False)
        grads, start = [], 0
        for leaves, spec in zip(tracked, specs, strict=True):
            grads.append(_unflatten(flat[start:start + len(leaves)], spec))
            start += len(leaves)
        grads = _plain(grads[0] if isinstance(argnums, int) else tuple(grads), inputs)
        value = _plain(result, inputs)
        if has_aux:
            return grads, (value, _plain(aux, inputs))
        return grads, value

    return wrapper


def grad(func, argnums=0, has_aux: bool = False):
    """``f(*args) -> gradient of f's scalar value w.r.t. args[argnums]`` (and ``aux`` with ``has_aux``)."""
    both = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        grads, value = both(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return wrapper


def vjp(func, *primals, has_aux: bool = False):
    """``(f(*primals), vjp_fn[, aux])``; ``vjp_fn(cotangents)`` gives the vector-Jacobian products,
    one per primal, and may be called any number of times."""
    with enable_grad():
        tracked, specs, inputs = [], [], []
        for primal in primals:
            leaves, spec = _flatten(primal)
            leaves = [_track(leaf) for leaf in leaves]
            tracked.append(_unflatten(leaves, spec))
            specs.append((len(leaves), spec))
            inputs += leaves
        result = func(*tracked)
        aux = None
        if has_aux:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: (output, aux) if "
                                   "has_aux is True")
            result, aux = result
        outputs, output_spec = _flatten(result)
        for output in outputs:
            if not isinstance(output, Tensor):
                raise RuntimeError(f"vjp(f, *primals): expected f(*primals) to return only tensors, got unsupported "
                                   f"type {type(output)}")
        keep = _depends_on_outside(outputs, inputs)

    def vjp_fn(cotangents):
        given, given_spec = _flatten(cotangents)
        if _spec_text(given_spec) != _spec_text(output_spec):
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree structure of outputs "
                               f"to the function. cotangents: {_spec_text(given_spec)}, primal output: "
                               f"{_spec_text(output_spec)}")
        with enable_grad():
            flat = _gradients(outputs, inputs, given, keep, retain=True)
        results, start = [], 0
        for count, spec in specs:
            results.append(_plain(_unflatten(flat[start:start + count], spec), inputs))
            start += count
        return tuple(results)

    value = _plain(result, inputs)
    return (value, vjp_fn, _plain(aux, inputs)) if has_aux else (value, vjp_fn)


__all__ = ["grad", "grad_and_value", "vjp"]
