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

import contextlib
import functools

from .. import autograd
from .._batched import LEVELS, BatchedTensor, aligned, union_of_levels
from .._grad_mode import enable_grad
from .._missing import missing_attribute as _missing_attribute
from .._ops.creation import ones_like, zeros_like
from .._tensor import Tensor
from . import _forward
from ._forward import hessian, jacfwd, jvp, linearize
from ._jacobians import jacrev
from ._modules import functional_call, replace_all_batch_norm_modules_, stack_module_state
from ._per_sample import per_sample
from ._pytree import flatten as _flatten
from ._pytree import spec_text as _spec_text
from ._pytree import unflatten as _unflatten
from ._rearrange import rearrange
from ._vmap import as_dispatcher, vmap

NOT_A_TENSOR = "Thing passed to transform API must be Tensor, got {}"


# -- shared machinery ----------------------------------------------------------------------------------------------
def _track(leaf):
    """An input as the transform sees it: connected to the outside when it requires grad there.

    Under vmap the input is given every running level's batch dimension first (its physical tensor
    expanded), so that the gradients of every sample come out separately, an unbatched input's too."""
    if not isinstance(leaf, Tensor):
        raise ValueError(NOT_A_TENSOR.format(type(leaf)))
    if not (leaf.is_floating_point() or leaf.is_complex()):
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if LEVELS:
        levels = tuple(level.number for level in LEVELS)
        return BatchedTensor(_fresh(aligned(leaf, levels, expand=True)), levels)
    return _fresh(leaf)


# One list per jvp running: the leaves the transforms inside it start their graphs from (see ``made_inside``).
_MADE_INSIDE: list[list] = []


@contextlib.contextmanager
def made_inside():
    """The leaves transforms create while the block runs (a jacrev inside a jvp: ``jacfwd(jacrev(f))``): a
    result whose graph reaches only these is the block's own business, and comes back plain."""
    leaves: list = []
    _MADE_INSIDE.append(leaves)
    try:
        yield leaves
    finally:
        _MADE_INSIDE.remove(leaves)


def _fresh(tensor):
    """A tensor the transform's graph starts from: a view of ``tensor`` if it requires grad, else a new leaf,
    which keeps ``tensor``'s forward-mode tangent (forward-over-reverse: ``jacfwd(jacrev(f))``)."""
    if tensor.requires_grad:
        return tensor.view_as(tensor)
    tangent = _tangent_of(tensor)
    # an inference tensor cannot require grad: its copy stands for it (torch's transforms wrap it so)
    leaf = (tensor.clone() if tensor.is_inference() else tensor.detach()).requires_grad_()
    for leaves in _MADE_INSIDE:
        leaves.append(leaf)
    return leaf if tangent is None else _forward.make_dual_of(leaf, tangent)


def _tangent_of(tensor):
    try:
        return _forward.unpacked(tensor)[1]
    except ImportError:  # no forward mode: no tangents
        return None


def _physical(value):
    return value.physical if isinstance(value, BatchedTensor) else value


def _depends_on_outside(tensors: list, inside: list) -> bool:
    """Whether the graph of ``tensors`` reaches a leaf that is not one of the transform's own."""
    tensors, inside = [_physical(t) for t in tensors], [_physical(t) for t in inside]
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
    if LEVELS:
        recorded = union_of_levels(inputs)
        later = [n for n in union_of_levels(cotangents) if n not in recorded]
        if later:  # vmap(vjp_fn) of a vjp taken outside that vmap: its graph has no batch for those levels
            return per_sample(later, lambda picked: _gradients(outputs, inputs, picked, keep, True), cotangents,
                              "vjp_fn")
        if recorded:
            return _batched_gradients(outputs, inputs, cotangents, keep, retain)
    pairs = [(o, c) for o, c in zip(outputs, cotangents, strict=True) if o.requires_grad]
    if not pairs:
        return [zeros_like(t) for t in inputs]
    found = autograd.grad([o for o, _ in pairs], inputs, [c for _, c in pairs], retain_graph=retain or keep,
                          create_graph=keep, allow_unused=True)
    return [zeros_like(t) if g is None else g for g, t in zip(found, inputs, strict=True)]


def _batched_gradients(outputs: list, inputs: list, cotangents: list, keep: bool, retain: bool) -> list:
    """``_gradients`` under vmap: one backward pass of the physical tensors gives every sample's gradients,
    since the inputs carry every running level (``_track``) and samples do not interact. A scalar output's
    cotangent is 1 for every sample."""
    levels = tuple(level.number for level in LEVELS)
    physical_inputs = [_physical(t) for t in inputs]
    pairs = []
    for output, cotangent in zip(outputs, cotangents, strict=True):
        if not output.requires_grad:
            continue
        physical = aligned(output, levels, expand=True)
        pairs.append((physical, ones_like(physical) if cotangent is None else aligned(cotangent, levels, expand=True)))
    if not pairs:
        found = [None] * len(inputs)
    else:
        found = autograd.grad([o for o, _ in pairs], physical_inputs, [c for _, c in pairs],
                              retain_graph=retain or keep, create_graph=keep, allow_unused=True)
    return [BatchedTensor(zeros_like(t) if g is None else g, levels) for g, t in zip(found, physical_inputs, strict=True)]


# -- the transforms --------------------------------------------------------------------------------------------------
def grad_and_value(func, argnums=0, has_aux: bool = False):
    """``f(*args) -> (gradient of f's scalar value w.r.t. args[argnums], value)``."""
    func = as_dispatcher(func)

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
    func = as_dispatcher(func)
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


def functionalize(func, *, remove: str = "mutations"):
    """``func`` itself: myautograd runs in-place operations and views as they are written, and the results
    (and the mutations of the inputs) are those torch's functionalized program gives."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. "
                           "Valid options are:\n     remove='mutations': all inplace and out= operators will be "
                           "removed from the program, and replaced with their out-of-place equivalents.\n     "
                           "remove='mutations_and_views': In addition to the above, all aliasing operators {view} "
                           "will be replaced with their non-aliasing counterparts, {view}_copy.\n")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


def debug_unwrap(tensor, *, recurse: bool = True):
    """The tensor under vmap's wrapper (every batch dimension in front); a plain tensor itself."""
    if not isinstance(tensor, BatchedTensor):
        return tensor
    return tensor.physical


__all__ = ["debug_unwrap", "functional_call", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev",
           "jvp", "linearize", "rearrange", "replace_all_batch_norm_modules_", "stack_module_state", "vjp", "vmap"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
