"""The batching rules: for each op, how to compute it for every sample of a batch at once.

``RULES`` maps an op's name (a Tensor method, a ``torch.<name>`` function or a ``torch.nn.functional``
one) to its rule, ``rule(op, args, kwargs)``, where ``op`` is the op as the registry made it. A rule
turns the BatchedTensors among the arguments into physical tensors (``_batched.aligned``), calls
``op`` once on them and wraps the physical result (``_batched.batched``). Ops fall into families:

* elementwise ops and everything that acts on the last dimensions of a sample (``matmul`` included,
  with its 1-d cases handled first): the operands aligned, so that broadcasting carries the batch;
* ops that name dimensions (reductions, ``transpose``, ``cat``): the dimensions shifted past the batch
  dimensions, ``dim=None`` replaced by the sample's own dimensions;
* in-place ops: the target must be batched over every level its operands are, as in torch;
* shapes given as sizes (``view``, ``expand``) and indexing: the batch sizes prepended;
* random ops: what ``vmap``'s ``randomness`` says.

An op without a rule runs once per sample (``_per_sample.fallback``), after the warning torch's fallback gives. The
rules of the neural-network ops (normalization, losses, convolution and pooling) are ``_batching_rules_nn``.
"""

from __future__ import annotations

from .._batched import LEVELS, RAW, BatchedTensor, aligned, batched, level_size, levels_of, union_of_levels
from .._dtype import bool_
from .._ops.registry import FUNCTIONS
from .._tensor import Tensor
from ._per_sample import _map_tensors, _tensors, fallback

RULES: dict = {}


def rule(*names):
    def register(fn):
        for name in names:
            RULES[name] = fn
        return fn
    return register


def _shift(dim: int, rank: int, levels: tuple) -> int:
    """A sample's dimension ``dim`` as a dimension of the physical tensor."""
    size = max(rank, 1)
    if not -size <= dim < size:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-size}, {size - 1}], but got {dim})")
    return (dim + rank if dim < 0 else dim) + len(levels)


# -- elementwise, and ops on the last dimensions ---------------------------------------------------------
ELEMENTWISE = """abs absolute acos acosh add addcdiv addcmul arccos arccosh arcsin arcsinh arctan arctan2 arctanh
asin asinh atan atan2 atanh bitwise_and bitwise_not bitwise_or bitwise_xor bool byte cdouble ceil cfloat char clamp
clamp_max clamp_min clip clone conj conj_physical contiguous cos cosh cpu cuda detach div divide double eq erf erfc exp
exp2 expm1 fix float float_power floor floor_divide fmod frac ge greater greater_equal gt half int isclose
isfinite isinf isnan isneginf isposinf le lerp less less_equal log log10 log1p log2 logical_and logical_not
logical_or logical_xor long lt maximum minimum mul multiply nan_to_num ne neg negative not_equal pow real
reciprocal relu remainder resolve_conj resolve_neg round rsqrt rsub sgn short sigmoid sign signbit sin sinh sqrt square
sub subtract tan tanh to true_divide trunc type type_as where xlogy tril triu mT
__abs__ __add__ __and__ __eq__ __floordiv__ __ge__ __gt__ __invert__ __le__ __lt__ __mod__ __mul__ __ne__ __neg__
__or__ __pos__ __pow__ __radd__ __rand__ __rfloordiv__ __rmod__ __rmul__ __ror__ __rpow__ __rsub__ __rtruediv__
__rxor__ __sub__ __truediv__ __xor__
elu gelu hardsigmoid hardswish hardtanh leaky_relu logsigmoid mish relu6 selu celu silu softplus softsign
angle polar complex
""".split()


@rule(*ELEMENTWISE)
def elementwise(op, args, kwargs):
    tensors = _tensors(args, kwargs)
    levels = union_of_levels(tensors)
    rank = max(t.dim() for t in tensors)
    args, kwargs = _map_tensors(lambda t: aligned(t, levels, rank), args, kwargs)
    return batched(op(*args, **kwargs), levels)


NEG_VIEW_REFUSED = ("Batching rule not implemented for aten::_neg_view; the fallback path doesn't work on out= or "
                    "view ops.")


@rule("imag")
def imaginary_part(op, args, kwargs):
    """The imaginary part; of a conjugate view it is a view with the negative bit (``_neg_view``), which torch has
    no batching rule for and, being a view, cannot loop over: it raises."""
    x = args[0]
    if isinstance(x, BatchedTensor) and x.physical.is_conj():
        raise RuntimeError(NEG_VIEW_REFUSED)
    return elementwise(op, args, kwargs)


INPLACE = """abs_ acos_ add_ addcdiv_ addcmul_ asin_ atan_ ceil_ clamp_ clamp_max_ clamp_min_ copy_ cos_ cosh_ div_
divide_ erf_ erfc_ exp2_ exp_ expm1_ fill_ floor_ fmod_ frac_ lerp_ log10_ log1p_ log2_ log_ masked_fill_ mul_
multiply_ neg_ pow_ reciprocal_ relu_ remainder_ round_ rsqrt_ sgn_ sigmoid_ sign_ sin_ sinh_ sqrt_ square_ sub_
subtract_ tan_ tanh_ tril_ triu_ true_divide_ trunc_ zero_ requires_grad_ elu_ leaky_relu_ hardtanh_ relu6_ selu_ celu_
__iadd__ __imod__ __imul__ __ipow__ __isub__ __itruediv__""".split()

INPLACE_ERROR = ("vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a Tensor `other` in "
                 "extra_args that has more elements than `self`. This happened due to `other` being vmapped over but "
                 "`self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of inplace "
                 "arithmetic. If said operator is being called inside the PyTorch framework, please file a bug report "
                 "instead.")
BROADCAST_CHECKED = {"add_", "sub_", "subtract_", "__iadd__", "__isub__"}  # torch reports these as a broadcast error


@rule(*INPLACE)
def inplace(op, args, kwargs):
    target = args[0]
    levels = union_of_levels(_tensors(args, kwargs))
    own = levels_of(target)
    if own != levels:
        shape = list(target.shape)
        others = [t for t in _tensors(args[1:], kwargs) if levels_of(t)]
        if op.__name__ in BROADCAST_CHECKED and others:
            full = [level_size(n) for n in levels] + _broadcast(shape, list(others[0].shape))
            raise RuntimeError(f"output with shape {shape} doesn't match the broadcast shape {full}")
        raise RuntimeError(INPLACE_ERROR)
    rank = target.dim()
    physical = target.physical
    rest, kwargs = _map_tensors(lambda t: aligned(t, levels, rank), args[1:], kwargs)
    op(physical, *rest, **kwargs)
    return target


def _broadcast(a: list, b: list) -> list:
    a, b = [1] * (len(b) - len(a)) + a, [1] * (len(a) - len(b)) + b
    return [max(x, y) for x, y in zip(a, b, strict=True)]


# -- products ------------------------------------------------------------------------------------------------
@rule("matmul", "__matmul__", "mm", "bmm", "mv", "dot")
def matmul(op, args, kwargs):
    a, b = args[0], args[1]
    levels = union_of_levels((a, b))
    if a.dim() == 1 and b.dim() == 1:
        return batched(RAW["sum"](RAW["mul"](aligned(a, levels, 1), aligned(b, levels, 1)), -1), levels)
    if a.dim() == 1:  # a row vector, padded to b's batch dimensions
        return batched(RAW["squeeze"](RAW["matmul"](RAW["unsqueeze"](aligned(a, levels, b.dim() - 1), -2),
                                                    aligned(b, levels, b.dim())), -2), levels)
    if b.dim() == 1:
        return batched(RAW["squeeze"](RAW["matmul"](aligned(a, levels, a.dim()),
                                                    RAW["unsqueeze"](aligned(b, levels, a.dim() - 1), -1)), -1), levels)
    rank = max(a.dim(), b.dim())
    return batched(RAW["matmul"](aligned(a, levels, rank), aligned(b, levels, rank)), levels)


@rule("vdot")
def vdot(op, args, kwargs):
    """The conjugate of the first vector times the second, summed over each sample's elements."""
    a, b = args[0], args[1]
    levels = union_of_levels((a, b))
    return batched(RAW["sum"](RAW["mul"](RAW["conj_physical"](aligned(a, levels, 1)), aligned(b, levels, 1)), -1), levels)


@rule("__rmatmul__")
def rmatmul(op, args, kwargs):
    return matmul(op, (args[1], args[0]), kwargs)


@rule("linear")
def linear(op, args, kwargs):
    x, weight = args[0], args[1]
    bias = args[2] if len(args) > 2 else kwargs.get("bias")
    out = matmul(op, (x, weight.mT if weight.dim() == 2 else weight), {})
    return out if bias is None else out + bias


@rule("outer", "ger")
def outer(op, args, kwargs):
    return elementwise(RAW["mul"], (args[0].unsqueeze(-1), args[1].unsqueeze(-2)), {})


# -- ops that name dimensions --------------------------------------------------------------------------------
REDUCTIONS = {"sum": 1, "mean": 1, "amax": 1, "amin": 1, "std": 1, "var": 1, "logsumexp": 1, "all": 1, "any": 1,
              "count_nonzero": 1, "norm": 2, "vector_norm": 2, "std_mean": 1, "var_mean": 1, "nansum": 1}


@rule(*REDUCTIONS)
def reduction(op, args, kwargs):
    """``dim`` (at its position or as a keyword) shifted; none means every dimension of the sample."""
    position = REDUCTIONS[op.__name__] if op.__name__ in REDUCTIONS else 1
    x = args[0]
    if op.__name__ in ("var", "std", "var_mean", "std_mean") and _whole_without_freedom(x, args, kwargs):
        # torch's closed-form gradient of a whole-tensor var/std with no degree of freedom (inf, not NaN)
        # holds for a whole sample only: each sample (of one element, or so) alone, with no warning, as torch
        return fallback(op, args, kwargs, warn=False, one_sample_warns=True)
    levels, rank = x.levels, x.dim()
    args = list(args)
    if rank == 0:  # a sample of one element: reduced over a dimension of one (an empty dims tuple means all)
        x = BatchedTensor(RAW["unsqueeze"](x.physical, -1), levels)
        rank = 1
        if len(args) > position and args[position] is not None:
            args[position] = 0 if isinstance(args[position], int) else (0,)
        elif kwargs.get("dim") is not None:
            kwargs = dict(kwargs, dim=0)
    key = "dim"
    dim = args[position] if len(args) > position else kwargs.get(key)
    if isinstance(dim, (list, tuple)):
        shifted = tuple(_shift(d, rank, levels) for d in dim) if dim else tuple(range(len(levels), len(levels) + rank))
    elif dim is None:
        shifted = tuple(range(len(levels), len(levels) + rank))
    else:
        shifted = _shift(dim, rank, levels)
    if len(args) > position:
        args[position] = shifted
    else:
        kwargs = dict(kwargs, dim=shifted)
    args[0] = x.physical
    return batched(op(*args, **kwargs), levels)


def _whole_without_freedom(x, args, kwargs) -> bool:
    """A var/std (or var_mean/std_mean) over every dimension of the sample, whose correction leaves no
    degree of freedom."""
    dim = args[1] if len(args) > 1 and not isinstance(args[1], (bool, float)) else kwargs.get("dim")
    unbiased = args[1] if len(args) > 1 and isinstance(args[1], bool) else kwargs.get("unbiased", True)
    correction = kwargs.get("correction", 1 if unbiased else 0)
    return dim is None and x.numel() - (correction if correction is not None else 1) <= 0


ONE_DIM = {"cumsum": [1], "cumprod": [1], "softmax": [1], "log_softmax": [1], "transpose": [1, 2], "swapaxes": [1, 2],
           "swapdims": [1, 2], "select": [1], "narrow": [1], "chunk": [2], "split": [2], "tensor_split": [2],
           "unbind": [1], "unflatten": [1], "diagonal": [2, 3], "index_select": [1], "movedim": [1, 2],
           "moveaxis": [1, 2], "normalize": [2], "squeeze": [1]}
DIM_KEYWORDS = {"dim", "dim0", "dim1", "dim2", "source", "destination"}


@rule(*ONE_DIM)
def with_dims(op, args, kwargs):
    """Ops whose dimensions are integers at known positions (or keywords); a sample of no dimensions is given
    one for the op, and the result loses it again."""
    x = args[0]
    if op.__name__ == "index_select" and levels_of(args[2] if len(args) > 2 else kwargs.get("index")):
        return fallback(op, args, kwargs)
    if x.dim() == 0 and op.__name__ not in ("squeeze", "unbind", "chunk", "split", "tensor_split"):
        lifted = BatchedTensor(RAW["unsqueeze"](x.physical, -1), x.levels)
        result = with_dims(op, (lifted, *args[1:]), kwargs)
        return batched(RAW["squeeze"](result.physical, -1), x.levels) if result.dim() == 1 else result
    levels, rank = x.levels, x.dim()
    defaults = {"chunk": 0, "split": 0, "tensor_split": 0, "unbind": 0, "normalize": 1}
    args = list(args)
    if op.__name__ == "squeeze" and len(args) == 1 and "dim" not in kwargs:
        dims = tuple(i for i, size in enumerate(x.shape) if size == 1)
        return batched(op(x.physical, tuple(d + len(levels) for d in dims)) if dims else x.physical, levels)
    kwargs = {key: _shift_any(value, rank, levels) if key in DIM_KEYWORDS else value for key, value in kwargs.items()}
    for position in ONE_DIM[op.__name__]:
        if len(args) > position:
            args[position] = _shift_any(args[position], rank, levels)
        elif op.__name__ == "diagonal":
            kwargs.setdefault("dim1", _shift(0, rank, levels))
            kwargs.setdefault("dim2", _shift(1, rank, levels))
        elif op.__name__ in defaults and not (kwargs.keys() & DIM_KEYWORDS):
            kwargs["dim"] = _shift(defaults[op.__name__], rank, levels)
    args[0] = x.physical
    return batched(op(*args, **kwargs), levels)


def _shift_any(dim, rank, levels):
    if isinstance(dim, (list, tuple)):
        return type(dim)(_shift(d, rank, levels) for d in dim)
    return _shift(dim, rank, levels)


# the methods that take no tensor but self: called on a plain tensor, they never meet a batched value
SELF_ONLY = (set(REDUCTIONS) | set(ONE_DIM) | {"unsqueeze", "flip", "permute", "flatten", "view", "reshape", "expand",
                                                "repeat", "tile", "t", "max", "min", "argmax", "argmin", "prod",
                                                "float", "double", "half", "long", "int", "bool", "short", "char",
                                                "byte", "cpu", "cuda", "contiguous", "detach", "requires_grad_",
                                                "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor",
                                                "tril", "triu", "roll", "unfold"}) - {"index_select", "max", "min"}


@rule("unsqueeze")
def unsqueeze(op, args, kwargs):
    x = args[0]
    dim = args[1] if len(args) > 1 else kwargs["dim"]
    return batched(op(x.physical, _shift(dim, x.dim() + 1, x.levels)), x.levels)


@rule("flip", "permute")
def with_dim_list(op, args, kwargs):
    x = args[0]
    dims = args[1] if len(args) == 2 and isinstance(args[1], (list, tuple)) else args[1:] or kwargs.get("dims")
    shifted = tuple(_shift(d, x.dim(), x.levels) for d in dims)
    if op.__name__ == "permute":
        shifted = tuple(range(len(x.levels))) + shifted
    return batched(op(x.physical, shifted), x.levels)


@rule("flatten")
def flatten(op, args, kwargs):
    x = args[0]
    start = args[1] if len(args) > 1 else kwargs.get("start_dim", 0)
    end = args[2] if len(args) > 2 else kwargs.get("end_dim", -1)
    if x.dim() == 0:
        return batched(RAW["unsqueeze"](x.physical, -1), x.levels)
    return batched(op(x.physical, _shift(start, x.dim(), x.levels), _shift(end, x.dim(), x.levels)), x.levels)


@rule("max", "min", "argmax", "argmin", "prod")
def extremum(op, args, kwargs):
    """With a dimension: as ``with_dims``; with another tensor: elementwise; with neither: of the flattened sample."""
    x = args[0]
    other = args[1] if len(args) > 1 else kwargs.get("other")
    if isinstance(other, Tensor):
        return elementwise(op, args, kwargs)
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
    rest = {key: value for key, value in kwargs.items() if key not in ("dim", "keepdim")}
    levels = x.levels
    if dim is None:
        flat = RAW["reshape"](x.physical, [level_size(n) for n in levels] + [-1])
        if op.__name__ in ("max", "min"):
            return batched(_whole_extremum(op.__name__, flat), levels)
        return batched(op(flat, -1, **rest), levels)
    return batched(op(x.physical, _shift(dim, x.dim(), levels), keepdim, **rest), levels)


def _whole_extremum(name: str, flat):
    """The max/min of each row, with the gradient of a full max/min: split evenly among the ties, or among the
    NaNs of a row holding any (amax's gradient would be NaN there). Rows with a NaN take the NaN branch, a
    masked sum of the NaNs over their count; the others amax/amin, given zeros for the NaN rows so that no
    branch's gradient turns NaN."""
    nans = RAW["isnan"](flat)
    nan_rows = RAW["any"](nans, -1)
    count = RAW["clamp_min"](RAW["sum"](nans, -1), 1).to(flat.dtype)
    nan_branch = RAW["div"](RAW["sum"](FUNCTIONS["where"](nans, flat, 0.0), -1), count)
    safe = FUNCTIONS["where"](RAW["unsqueeze"](nan_rows, -1), 0.0, flat)
    extreme = RAW["amax" if name == "max" else "amin"](safe, -1)
    return FUNCTIONS["where"](nan_rows, nan_branch, extreme)


@rule("cat", "concat", "concatenate", "stack", "hstack", "vstack")
def joined(op, args, kwargs):
    tensors = list(args[0])
    dim = args[1] if len(args) > 1 else kwargs.get("dim", 0)
    if op.__name__ != "stack" and any(t.dim() > 1 for t in tensors):  # torch's legacy: 1-d empty tensors are skipped
        tensors = [t for t in tensors if not (t.dim() == 1 and t.shape[0] == 0)]
    levels = union_of_levels(tensors)
    rank = max(t.dim() for t in tensors)
    if op.__name__ in ("hstack", "vstack"):
        return fallback(op, args, kwargs)
    new_rank = rank + 1 if op.__name__ == "stack" else rank
    physical = [aligned(t, levels, expand=True) for t in tensors]
    return batched(op(physical, _shift(dim, new_rank, levels)), levels)


# -- shapes given as sizes, and indexing ----------------------------------------------------------------------
def _sizes(args) -> list:
    return list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)


@rule("view", "reshape")
def reshaped(op, args, kwargs):
    x = args[0]
    sizes = _sizes(args[1:]) if len(args) > 1 else list(kwargs.get("shape", kwargs.get("size")))
    batch = list(x.physical.shape[:len(x.levels)])
    physical = x.physical if op.__name__ == "reshape" or x.physical.is_contiguous() else RAW["contiguous"](x.physical)
    return batched(op(physical, batch + sizes), x.levels)


@rule("view_as", "reshape_as", "expand_as")
def like_other(op, args, kwargs):
    name = {"view_as": "view", "reshape_as": "reshape", "expand_as": "expand"}[op.__name__]
    return RULES[name](RAW[name], (args[0], list(args[1].shape)), {})


@rule("expand", "broadcast_to")
def expanded(op, args, kwargs):
    x = args[0]
    sizes = _sizes(args[1:]) if len(args) > 1 else list(kwargs.get("size", kwargs.get("sizes", ())))
    physical = aligned(x, x.levels, len(sizes))
    return batched(RAW["expand"](physical, list(physical.shape[:len(x.levels)]) + sizes), x.levels)


@rule("repeat", "tile")
def repeated(op, args, kwargs):
    x = args[0]
    counts = _sizes(args[1:])
    physical = aligned(x, x.levels, len(counts))
    counts = [1] * (physical.dim() - len(x.levels) - len(counts)) + counts
    return batched(RAW["repeat"](physical, [1] * len(x.levels) + counts), x.levels)


@rule("t")
def transposed(op, args, kwargs):
    x = args[0]
    return x if x.dim() < 2 else batched(RAW["transpose"](x.physical, -2, -1), x.levels)


@rule("T")
def reversed_dims(op, args, kwargs):
    x = args[0]
    n = len(x.levels)
    return batched(RAW["permute"](x.physical, list(range(n)) + list(range(x.physical.dim() - 1, n - 1, -1))), x.levels)


@rule("__getitem__")
def getitem(op, args, kwargs):
    x, key = args
    key = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, BatchedTensor) and k.dtype is bool_ for k in key):
        raise RuntimeError("vmap: We do not support batching operators that can support dynamic shape. Attempting to "
                           "batch over indexing with a boolean mask.")
    advanced = [i for i, k in enumerate(key) if isinstance(k, (Tensor, list, range))]
    if any(levels_of(k) for k in key) or (advanced and not _adjacent(key, advanced)):
        return fallback(op, args, kwargs)
    levels = union_of_levels((x,))
    return batched(op(x.physical, (slice(None),) * len(levels) + key), levels)


@rule("einsum")
def einsum(op, args, kwargs):
    """Each operand's batch dimensions named by letters the equation does not use, and kept in the output."""
    equation, operands = args[0], list(args[1]) if len(args) == 2 and isinstance(args[1], (list, tuple)) else list(args[1:])
    equation = equation.replace(" ", "")
    levels = union_of_levels(operands)
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in equation][:len(levels)]
    letter = dict(zip(levels, spare))
    inputs, _, output = equation.partition("->")
    specs = inputs.split(",")
    if "->" not in equation:  # the implicit output: the letters seen once, in order, after any ellipsis
        letters = "".join(specs).replace(".", "")
        output = ("..." if "..." in inputs else "") + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    specs = ["".join(letter[n] for n in levels_of(t)) + spec for t, spec in zip(operands, specs)]
    output = "".join(spare) + output
    physical = [t.physical if levels_of(t) else t for t in operands]
    return batched(op(",".join(specs) + "->" + output, *physical), levels)


@rule("tensordot")
def tensordot(op, args, kwargs):
    """As the einsum that contracts the same dimensions."""
    a, b = args[0], args[1]
    dims = args[2] if len(args) > 2 else kwargs.get("dims", 2)
    if isinstance(dims, int):
        dims = (list(range(a.dim() - dims, a.dim())), list(range(dims)))
    first = [d % max(a.dim(), 1) for d in dims[0]]
    second = [d % max(b.dim(), 1) for d in dims[1]]
    names = iter("abcdefghijklmnopqrstuvwxyz")
    a_spec = [next(names) for _ in range(a.dim())]
    b_spec = [a_spec[first[second.index(d)]] if d in second else next(names) for d in range(b.dim())]
    output = [c for i, c in enumerate(a_spec) if i not in first] + [c for i, c in enumerate(b_spec) if i not in second]
    return einsum(FUNCTIONS["einsum"], (f"{''.join(a_spec)},{''.join(b_spec)}->{''.join(output)}", a, b), {})


@rule("diag")
def diag(op, args, kwargs):
    """A matrix's diagonal is ``diagonal`` of its last two dimensions; a vector's matrix is the vector on the
    diagonal of an identity, moved to the offset's diagonal by products with shifted identities."""
    x = args[0]
    offset = args[1] if len(args) > 1 else kwargs.get("diagonal", 0)
    if x.dim() != 1:
        return with_dims(RAW["diagonal"], (x, offset, -2, -1), {}) if x.dim() == 2 else fallback(op, args, kwargs)
    n = x.shape[0]
    size = n + abs(offset)
    eye = FUNCTIONS["eye"]
    on_diagonal = RAW["mul"](RAW["unsqueeze"](x.physical, -1), eye(n, dtype=x.dtype, device=x.device))
    identity = eye(size, dtype=x.dtype, device=x.device)
    rows = RAW["__getitem__"](identity, (slice(None), slice(max(-offset, 0), max(-offset, 0) + n)))
    columns = RAW["__getitem__"](identity, slice(max(offset, 0), max(offset, 0) + n))
    return batched(RAW["matmul"](RAW["matmul"](rows, on_diagonal), columns), x.levels)


def _adjacent(key: tuple, advanced: list) -> bool:
    """Whether the index tensors (with any integers among them, which index alike) stand side by side, so that
    their result's dimensions take their place, after the batch dimensions, as in the sample."""
    first, last = advanced[0], advanced[-1]
    return all(isinstance(k, (Tensor, list, range, int)) for k in key[first:last + 1])


@rule("__setitem__")
def setitem(op, args, kwargs):
    x, key, value = args
    key = key if isinstance(key, tuple) else (key,)
    advanced = [i for i, k in enumerate(key) if isinstance(k, (Tensor, list, range))]
    if not set(levels_of(value)) <= set(levels_of(x)) or any(levels_of(k) for k in key) or \
            (advanced and not _adjacent(key, advanced)):
        raise RuntimeError(INPLACE_ERROR)
    levels = levels_of(x)
    target = op if levels else None
    if target is None:
        raise RuntimeError(INPLACE_ERROR)
    index = (slice(None),) * len(levels) + key
    selected = RAW["__getitem__"](x.physical, index)
    rank = selected.dim() - len(levels)
    op(x.physical, index, aligned(value, levels, rank) if isinstance(value, Tensor) else value)
    return None


# -- creation from a sample -------------------------------------------------------------------------------------
@rule("zeros_like", "ones_like", "empty_like", "full_like")
def like(op, args, kwargs):
    x = args[0]
    return batched(op(x.physical, *args[1:], **kwargs), x.levels)


@rule("new_zeros", "new_ones", "new_empty", "new_full", "new_tensor")
def new_unbatched(op, args, kwargs):
    return op(args[0].physical, *args[1:], **kwargs)


# -- random ops ------------------------------------------------------------------------------------------------
RANDOMNESS_ERROR = ("vmap: called random operation while in randomness error mode. Please either use the 'same' or "
                    "'different' randomness flags on vmap or perform the randomness operation out of vmap")
RANDOM = {"rand", "randn", "randint", "randperm", "rand_like", "randn_like", "normal", "bernoulli", "multinomial",
          "dropout", "normal_", "uniform_", "random_"}


def random_op(op, args, kwargs):
    """Random values: refused in ``randomness='error'``; with ``'same'`` one draw for every sample; with
    ``'different'``, one per sample of every level (tensors created at the sample's size get the batch sizes).
    A dropout that draws nothing (not training, or ``p`` 0 or 1) is no random op."""
    mode = LEVELS[-1].randomness
    name = op.__name__
    if name == "dropout" and _draws_nothing(args, kwargs):
        return batched(op(args[0].physical if levels_of(args[0]) else args[0], *args[1:], **kwargs), levels_of(args[0]))
    if mode == "error":
        raise RuntimeError(RANDOMNESS_ERROR)
    tensors = _tensors(args, kwargs)
    if mode == "same":
        if not any(levels_of(t) for t in tensors):
            return op(*args, **kwargs)
        if name in ("rand_like", "randn_like"):
            return op(RAW["__getitem__"](args[0].physical, (0,) * len(args[0].levels)), *args[1:], **kwargs)
        return fallback(op, args, kwargs, warn=False)
    levels = tuple(level.number for level in LEVELS)
    sizes = [level.size for level in LEVELS]
    if name in ("rand", "randn"):
        shape = _sizes(args) if args else list(kwargs.pop("size"))
        return batched(op(*(sizes + shape), **kwargs), levels)
    if name in ("rand_like", "randn_like", "bernoulli", "dropout", "normal_", "uniform_", "random_"):
        x = args[0]
        if name.endswith("_") and levels_of(x) != levels:
            raise RuntimeError(INPLACE_ERROR)
        result = op(aligned(x, levels, expand=True), *args[1:], **kwargs)
        return args[0] if name.endswith("_") else batched(result, levels)
    return fallback(op, args, kwargs, warn=False)


def _draws_nothing(args, kwargs) -> bool:
    p = args[1] if len(args) > 1 else kwargs.get("p", 0.5)
    training = args[2] if len(args) > 2 else kwargs.get("training", kwargs.get("train", True))
    return not training or p in (0, 1)


for _name in RANDOM:
    RULES[_name] = random_op


__all__ = ["RULES", "BatchedTensor"]
