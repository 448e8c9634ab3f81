"""The forward-mode transforms, on ``myautograd.autograd.forward_ad`` as torch.func builds them: ``jvp``,
``linearize``, ``jacfwd`` and ``hessian``.

``jvp(f, primals, tangents)`` runs ``f`` inside a dual level on dual tensors (``make_dual``) and reads
the outputs' tangents (``unpack_dual``). Under ``vmap`` a primal or tangent may be a BatchedTensor: the
dual tensor is then made of the physical tensors, both given every level either has, and forward mode
carries the tangents of every sample through the physical ops at once.

``jacfwd(f)(x)`` pushes every basis vector of the input space forward in one batched pass (``jvp`` under
``vmap`` over the rows of an identity matrix); ``hessian`` is ``jacfwd(jacrev(f))``.
"""

from __future__ import annotations

import functools

from .._batched import BatchedTensor, aligned, batched, levels_of, union_of_levels
from .._ops.registry import FUNCTIONS
from .._tensor import Tensor
from ._pytree import flatten, spec_repr, unflatten

WHERE = "jvp(f, primals, tangents)"


@functools.cache
def _forward_ad():
    """``myautograd.autograd.forward_ad`` (imported late: the autograd package imports func's users); the
    ImportError of a myautograd without forward mode is raised again at each call, without searching again."""
    try:
        from ..autograd import forward_ad  # noqa: PLC0415
    except ImportError as error:
        return error
    return forward_ad


def _forward_ad_module():
    found = _forward_ad()
    if isinstance(found, ImportError):
        raise ImportError(str(found))
    return found


def dual(primal, tangent):
    make_dual = _forward_ad_module().make_dual
    levels = union_of_levels((primal, tangent))
    if not levels:
        return make_dual(primal, tangent)
    if list(primal.shape) != list(tangent.shape):
        make_dual(primal.physical if levels_of(primal) else primal, tangent.physical if levels_of(tangent) else tangent)
    # a primal expanded over the batch shares memory between samples: each sample's own is laid out alone
    physical = aligned(primal, levels, expand=True).contiguous()
    return batched(make_dual(physical, aligned(tangent, levels, expand=True)), levels)


def unpacked_batched(output):
    unpack_dual = _forward_ad_module().unpack_dual
    if isinstance(output, BatchedTensor):
        primal, tangent = unpack_dual(output.physical)
        return batched(primal, output.levels), None if tangent is None else batched(tangent, output.levels)
    return unpack_dual(output)


def unpacked(tensor):
    """``unpack_dual`` of a plain tensor: (primal, tangent or None); ImportError without forward mode."""
    return _forward_ad_module().unpack_dual(tensor)


def make_dual_of(tensor, tangent):
    return _forward_ad_module().make_dual(tensor, tangent)


def _zeros_like(value):
    if isinstance(value, BatchedTensor):
        return BatchedTensor(FUNCTIONS["zeros_like"](value.physical), value.levels)
    return FUNCTIONS["zeros_like"](value)


def _dispatching(func):
    """``_vmap.as_dispatcher``: an op given itself finds its batching rules when vmap runs it."""
    from ._vmap import as_dispatcher  # noqa: PLC0415 - _vmap imports the package, which imports this module

    return as_dispatcher(func)


def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """``(f(*primals), the Jacobian-vector product for tangents)`` (and ``aux`` with ``has_aux``)."""
    func = _dispatching(func)
    if strict:
        raise RuntimeError("jvp(f, primals, tangents): strict=True is not supported.")
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{WHERE}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    primal_leaves, primal_spec = flatten(primals)
    tangent_leaves, tangent_spec = flatten(tangents)
    if spec_repr(primals) != spec_repr(tangents):
        raise RuntimeError(f"{WHERE}: Expected primals and tangents to have the same python structure. For example, "
                           "if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{spec_repr(primals)} and tangents with structure {spec_repr(tangents)}")
    if not primal_leaves:
        raise RuntimeError(f"{WHERE}: Expected primals to contain at least one Tensor.")
    for leaf in primal_leaves:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"{WHERE}: Expected primals to only contain Tensors, got {type(leaf)}")
    for leaf in tangent_leaves:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"{WHERE}: Expected tangents to only contain Tensors, got {type(leaf)}")
    from . import _plain, made_inside  # noqa: PLC0415 - the package imports this module

    with _forward_ad_module().dual_level(), made_inside() as own_leaves:
        duals = [dual(p, t) for p, t in zip(primal_leaves, tangent_leaves, strict=True)]
        result = func(*unflatten(duals, primal_spec))
        aux = None
        if has_aux:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(f"{WHERE}: output of function f should be a tuple: (output, aux) if has_aux is "
                                   "True")
            result, aux = result
        outputs, output_spec = flatten(result)
        for output in outputs:
            if not isinstance(output, Tensor):
                raise RuntimeError(f"{WHERE}: expected f(*primals) to return only tensors, got unsupported type "
                                   f"{type(output)}")
        pairs = [unpacked_batched(output) for output in outputs]
        values = [primal for primal, _ in pairs]
        pushed = [_zeros_like(primal) if tangent is None else tangent for primal, tangent in pairs]
        if aux is not None:
            aux_leaves, aux_spec = flatten(aux)
            aux = unflatten([unpacked_batched(leaf)[0] if isinstance(leaf, Tensor) else leaf for leaf in aux_leaves],
                            aux_spec)
    # graphs that transforms inside f started (a jacrev in it) end here; graphs reaching tensors from outside
    # (primals or tangents that require grad, tensors f closes over) go on, as torch's do
    values, pushed = _plain(values, own_leaves), _plain(pushed, own_leaves)
    answer = (unflatten(values, output_spec), unflatten(pushed, output_spec))
    return (*answer, aux) if has_aux else answer


def linearize(func, *primals):
    """``(f(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian-vector product at ``primals``."""
    func = _dispatching(func)
    output = func(*primals)
    leaves, _ = flatten(primals)

    def jvp_fn(*tangents):
        given, _ = flatten(tangents)
        for index, (tangent, primal) in enumerate(zip(given, leaves, strict=False)):
            if list(tangent.shape) != list(primal.shape):
                raise RuntimeError(f"tangent:{index} with shape {_size_repr(tangent)} in flattened pytree doesn't "
                                   f"match the shape {_size_repr(primal)} of the corresponding primal.")
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn


def _size_repr(tensor) -> str:
    return f"torch.Size({list(tensor.shape)})"


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """``f(*args) -> the Jacobian of f's outputs w.r.t. args[argnums]``, by forward mode: for each output,
    tensors of shape ``output.shape + input.shape`` in the structure of the inputs (and of ``argnums``)."""
    from ._jacobians import _numbers, basis_rows  # noqa: PLC0415 - the package imports both modules
    from ._vmap import RANDOMNESS_MODES, vmap  # noqa: PLC0415

    func = _dispatching(func)

    if randomness not in RANDOMNESS_MODES:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")

    def wrapper(*args):
        numbers = _numbers(argnums, len(args))
        primals = tuple(args[n] for n in numbers)
        leaves, spec = flatten(primals)
        rows, sizes, total = basis_rows(leaves)

        def at_argnums(*values):
            full = list(args)
            for number, value in zip(numbers, values, strict=True):
                full[number] = value
            return func(*full)

        def push(*tangent_rows):
            tangents = unflatten(list(tangent_rows), spec)
            result = jvp(at_argnums, primals, tangents, has_aux=has_aux)
            return (result[1], result[2]) if has_aux else result[1]

        pushed = vmap(push, randomness=randomness)(*rows)
        pushed, aux = pushed if has_aux else (pushed, None)
        if has_aux:  # the same for every row: the primals' own
            aux_leaves, aux_spec = flatten(aux)
            aux = unflatten([leaf[0] if isinstance(leaf, Tensor) else leaf for leaf in aux_leaves], aux_spec)
        outputs, output_spec = flatten(pushed)
        jacobians = []
        for output in outputs:
            blocks, start = [], 0
            out_shape = list(output.shape[1:])
            for leaf, size in zip(leaves, sizes, strict=True):
                piece = output[start:start + size].movedim(0, -1) if output.dim() > 1 else output[start:start + size]
                blocks.append(piece.reshape(*out_shape, *leaf.shape))
                start += size
            grouped = unflatten(blocks, spec)
            jacobians.append(grouped[0] if isinstance(argnums, int) else grouped)
        jacobian = unflatten(jacobians, output_spec)
        return (jacobian, aux) if has_aux else jacobian

    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a scalar ``f`` w.r.t. ``args[argnums]``: ``jacfwd(jacrev(f, argnums), argnums)``."""
    from ._jacobians import jacrev  # noqa: PLC0415

    return jacfwd(jacrev(func, argnums), argnums)


__all__ = ["hessian", "jacfwd", "jvp", "linearize"]
