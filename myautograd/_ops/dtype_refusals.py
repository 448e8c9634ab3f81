"""Where torch refuses an op for a dtype its kernels lack (complex clamp, comparisons, activations, losses;
float16/bfloat16 FFTs), as one table: op name -> the refusals, each an exception type and torch's message,
with ``{dtype}`` for the dtype's C++ ScalarType name (``ComplexFloat``, ``Half``).

``install`` puts a check in front of every op named here, wherever the op is reached: the Tensor
methods, the ``torch.<name>`` functions and the op modules' own names (through which
``nn.functional`` and the other ops call it). The check raises before anything is computed, as torch's
dispatcher does.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import NamedTuple

from .. import _dtype
from .._grad_mode import STATE
from .._tensor import Tensor
from .._user_warnings import warn_once

COMPLEX = ("complex64", "complex128")
REDUCED = ("float16", "bfloat16")
INTEGRAL = ("uint8", "int8", "int16", "int32", "int64")


class Refusal(NamedTuple):
    error: type
    message: str  # ``{dtype}``: the refused dtype's C++ ScalarType name
    dtypes: tuple[str, ...] = COMPLEX
    when: Callable[[tuple, dict], bool] | None = None  # the arguments this refusal is for; None: all
    differentiable_only: bool = False  # torch refuses only when autograd records the op
    warning: str = ""  # what torch warns (once per process) before it refuses, as it allocates the output


def _kernel(name: str, dtypes: tuple[str, ...] = COMPLEX, when=None) -> Refusal:
    """A kernel registered without the dtype: torch's dispatch macro's message."""
    return Refusal(NotImplementedError, f'"{name}" not implemented for ' + "'{dtype}'", dtypes, when)


def _no_complex_autograd(name: str) -> Refusal:
    return Refusal(RuntimeError, f"{name} does not support automatic differentiation for outputs with complex dtype.",
                   differentiable_only=True)


def _argument(args: tuple, kwargs: dict, position: int, name: str):
    return args[position] if len(args) > position else kwargs.get(name)


def _rounding(mode: str):
    return lambda args, kwargs: kwargs.get("rounding_mode") == mode


def _decimals(zero: bool):
    """Calls of round with ``decimals=0`` (``zero``), or with decimals other than 0."""
    return lambda args, kwargs: (kwargs.get("decimals") == 0) if zero else kwargs.get("decimals") not in (None, 0)


def _reduces_all(args, kwargs) -> bool:
    return _argument(args, kwargs, 1, "dim") is None


def _reduces_dim(args, kwargs) -> bool:
    return not isinstance(_argument(args, kwargs, 1, "dim"), (Tensor, type(None)))


def _pairs_tensors(args, kwargs) -> bool:
    return isinstance(_argument(args, kwargs, 1, "other"), Tensor)


def _order(n: int):
    """Calls of polygamma of order ``n`` (2: 2 and above), through torch.polygamma(n, x) or x.polygamma(n)."""
    def of_order(args, kwargs) -> bool:
        order = next((a for a in (*args, kwargs.get("n")) if isinstance(a, int) and not isinstance(a, bool)), None)
        return order is not None and (order == n if n < 2 else order >= n)

    return of_order


_CLAMP = Refusal(NotImplementedError, "clamp is not supported for complex types")


def _not_for_complex(name: str) -> Refusal:
    return Refusal(NotImplementedError, f"{name} is not supported for complex inputs")


def _extremes(name: str) -> tuple[Refusal, ...]:
    return (_kernel(f"{name}_all", when=_reduces_all),
            Refusal(RuntimeError, f"{name}(): does not support complex input", when=_reduces_dim),
            Refusal(RuntimeError, f"{name}imum not implemented for complex tensors.", when=_pairs_tensors))


_FFT_REDUCED = Refusal(RuntimeError, "Unsupported dtype {dtype}", REDUCED)

REFUSALS: dict[str, tuple[Refusal, ...]] = {
    "sign": (Refusal(NotImplementedError, "Unlike NumPy, torch.sign is not intended to support complex numbers. "
                                          "Please use torch.sgn instead."),),
    "floor": (_not_for_complex("floor"),),
    "ceil": (_not_for_complex("ceil"),),
    "trunc": (_not_for_complex("trunc"),),
    # with decimals other than 0 torch rounds in a kernel of its own; with 0, and without, in round's
    "round": (_kernel("round_cpu", (*COMPLEX, *INTEGRAL, "bool"), when=_decimals(zero=False)),
              _kernel("round_vml_cpu", (*COMPLEX, "bool")), _kernel("round_vml_cpu", INTEGRAL, when=_decimals(zero=True))),
    "frac": (_kernel("frac_cpu"),),
    "div": (_kernel("div_trunc_cpu", when=_rounding("trunc")), _kernel("div_floor_cpu", when=_rounding("floor"))),
    "atan2": (_kernel("atan2_cpu"),),
    "erf": (_kernel("erf_vml_cpu"),),
    "lgamma": (_kernel("lgamma_vml_cpu"),),
    "digamma": (_kernel("digamma"),),
    "polygamma": (_kernel("digamma", when=_order(0)), _kernel("trigamma", when=_order(1)),
                  _kernel("polygamma", when=_order(2))),
    "mvlgamma": (_kernel("arange_cpu"),),
    "erfinv": (_kernel("erfinv_vml_cpu"),),
    "i0": (_kernel("i0_vml_cpu"),),
    **{name: (_kernel(f"{name}_cpu"),) for name in ("entr", "log_ndtr", "erfcx", "i0e", "i1", "i1e", "xlog1py")},
    "erfc": (_kernel("erfc_vml_cpu"),),
    **{name: (_kernel(f"{name}_cpu"),) for name in ("gt", "lt", "ge", "le")},
    **{name: (_CLAMP,) for name in ("clamp", "clip", "clamp_min", "clamp_max", "relu", "relu6", "hardtanh")},
    # (torch's argument parser refuses a number ``other`` first, whatever the dtype)
    "maximum": (Refusal(RuntimeError, "maximum not implemented for complex tensors.", when=_pairs_tensors),),
    "minimum": (Refusal(RuntimeError, "minimum not implemented for complex tensors.", when=_pairs_tensors),),
    "max": _extremes("max"),
    "min": _extremes("min"),
    "amax": (_kernel("max_values_cpu"),),
    "amin": (_kernel("min_values_cpu"),),
    "argmax": (Refusal(RuntimeError, "argmax(): does not support complex input"),),
    "argmin": (Refusal(RuntimeError, "argmin(): does not support complex input"),),
    "softmax": (_kernel("softmax_lastdim_kernel_impl"),),
    "log_softmax": (_kernel("log_softmax_lastdim_kernel_impl"),),
    "arange": (_kernel("arange_cpu"),),
    "leaky_relu": (_kernel("leaky_relu_cpu"),),
    "elu": (_kernel("elu_cpu"),),
    "selu": (_kernel("elu_cpu"),),
    "celu": (_kernel("elu_cpu"),),
    "gelu": (_kernel("GeluKernelImpl"),),
    "silu": (_no_complex_autograd("silu"),),
    "mish": (_kernel("mish_cpu"),),
    "softplus": (_kernel("softplus_cpu"),),
    "hardsigmoid": (_kernel("hardsigmoid_cpu"),),
    "hardswish": (_kernel("hardswish_cpu"),),
    "logsigmoid": (_kernel("log_sigmoid_cpu"),),
    "bilinear": (_no_complex_autograd("_trilinear"),),
    "embedding": (_no_complex_autograd("embedding"),),
    "cosine_similarity": (Refusal(RuntimeError, "expected common dtype to be floating point, yet common dtype is {dtype}"),),
    "mse_loss": (_kernel("mse_cpu"),),
    "smooth_l1_loss": (_kernel("smooth_l1_cpu"),),
    "huber_loss": (_kernel("huber_cpu"),),
    "nll_loss": (_kernel("nll_loss_out_frame"),),
    "binary_cross_entropy": (_kernel("binary_cross_entropy"),),
    "binary_cross_entropy_with_logits": (_kernel("log_sigmoid_cpu"),),
    "kl_div": (Refusal(RuntimeError, "kl_div: Complex inputs not supported."),),
    "max_pool2d": (_kernel("max_pool2d"),),
    "avg_pool2d": (_kernel("avg_pool2d"),),
    "adaptive_avg_pool2d": (_kernel("adaptive_avg_pool2d"),),
    "max_pool1d": (_kernel("max_pool1d_impl"),),
    "max_pool3d": (_kernel("max_pool3d"),),
    "avg_pool3d": (_kernel("avg_pool3d_out_frame", COMPLEX + REDUCED),),
    "adaptive_avg_pool3d": (_kernel("adaptive_avg_pool3d_cpu"),),
    "adaptive_max_pool2d": (_kernel("adaptive_max_pool2d"),),
    "adaptive_max_pool3d": (_kernel("adaptive_max_pool3d_cpu"),),
    "fractional_max_pool": tuple(_kernel(f"fractional_max_pool{n}d_out_frame", when=lambda args, kwargs, n=n:
                                         kwargs.get("ndim") == n) for n in (2, 3)),
    "layer_norm": (_kernel("LayerNormKernelImpl"),),
    "batch_norm": (_kernel("batch_norm"),),
    "group_norm": (_kernel("GroupNormKernelImpl"),),
    # torch allocates the complex32 output first, with its warning, then finds no float16 kernel
    "polar": (_kernel("polar_cpu", ("float16",))._replace(warning=_dtype.COMPLEX_HALF_WARNING),),
    **{name: (_FFT_REDUCED,) for name in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "rfft2", "rfftn",
                                          "irfft", "irfft2", "irfftn")},
}


def _tensors(args: tuple, kwargs: dict):
    for value in (*args, *kwargs.values()):
        if isinstance(value, Tensor):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from (item for item in value if isinstance(item, Tensor))


def _refused_dtype(refusal: Refusal, args: tuple, kwargs: dict):
    """The dtype among the arguments (the tensors, then ``dtype=``) that ``refusal`` is for, or None."""
    tensors = list(_tensors(args, kwargs))
    if refusal.differentiable_only and not (STATE.grad_enabled and any(t.requires_grad for t in tensors)):
        return None
    requested = kwargs.get("dtype")
    for dtype in (*(t.dtype for t in tensors), requested):
        if dtype is not None and getattr(dtype, "name", None) in refusal.dtypes:
            return dtype
    return None


def check(name: str, args: tuple, kwargs: dict) -> None:
    """Raise torch's refusal of op ``name`` for these arguments, if torch refuses them."""
    for refusal in REFUSALS[name]:
        if refusal.when is not None and not refusal.when(args, kwargs):
            continue
        dtype = _refused_dtype(refusal, args, kwargs)
        if dtype is not None:
            if refusal.warning:
                warn_once(refusal.warning, stacklevel=None)
            raise refusal.error(refusal.message.format(dtype=dtype.scalar_type_name))


def _may_refuse(args: tuple, kwargs: dict, refused: frozenset) -> bool:
    """Whether ``check`` can raise: a tensor argument's NumPy dtype is in ``refused`` (the dtypes the
    op's refusals name), or an argument ``check`` reads is not a plain tensor or value (a list, a
    tuple, ``dtype=``). Most calls are none of these, and skip ``check``."""
    for value in (*args, *kwargs.values()) if kwargs else args:
        if isinstance(value, Tensor):
            if value._data.dtype in refused:
                return True
        elif value.__class__ is list or value.__class__ is tuple:
            return True
    return "dtype" in kwargs


def _guarded(name: str, op: Callable) -> Callable:
    refused = frozenset(_dtype.BY_NAME[dtype].np for refusal in REFUSALS[name] for dtype in refusal.dtypes)

    @functools.wraps(op)
    def refusing(*args, **kwargs):
        if _may_refuse(args, kwargs, refused):
            check(name, args, kwargs)
        return op(*args, **kwargs)

    refusing.refused_as = name
    return refusing


def _underlying(fn):
    """``fn`` without the registry's keepdims alias (``functools.wraps`` keeps the op as ``__wrapped__``)."""
    return getattr(fn, "__wrapped__", fn)


def install(modules: list[types.ModuleType], registries: list[dict]) -> None:
    """Put the check in front of each op in ``REFUSALS``: in ``modules`` (the op modules, under every name
    that holds the op) and in ``registries`` (``FUNCTIONS``, ``METHODS``: aliases and operators included)."""
    ops = {}
    for name in REFUSALS:
        found = [getattr(m, name) for m in modules if callable(getattr(m, name, None))]
        if not found:
            raise LookupError(f"dtype_refusals: no op named {name!r}")
        for op in found:
            ops[id(_underlying(op))] = (name, _underlying(op))
    guards = {key: _guarded(name, op) for key, (name, op) in ops.items()}
    for namespace in [vars(m) for m in modules] + registries:
        for attribute, value in list(namespace.items()):
            if id(value) in guards:
                namespace[attribute] = guards[id(value)]
            elif callable(value) and id(_underlying(value)) in guards and getattr(value, "refused_as", None) is None:
                name, _ = ops[id(_underlying(value))]
                namespace[attribute] = _guarded(name, value)
