"""The vocabulary of the operator table: operators, their variants, samples and sample inputs.

An operator entry says what to call and on which inputs; ``render`` turns each variant into one
catalog case (``op.<operator>.<variant>``) whose scenario runs every sample of the variant and
records, per sample, the forward value (dtype, shape, node name), the first-order gradients of
every differentiable input, the second-order gradients where torch has them, and the same in
forward mode: the tangents of the outputs for random tangents of the inputs, and, where torch has
second-order gradients, the tangents of the first-order gradients (forward-over-reverse); then
under ``torch.func.vmap``, over a batch of the sample and copies drawn alike, the outputs and the
vector-Jacobian products (``vmap-of-vjp``), each also checked against running every member of the
batch alone. Error samples record the exception an invalid call raises.

Dtypes. Every variant runs in each dtype of its operator's ``dtypes`` (``DTYPES`` by default: float32,
float64, complex64, complex128, float16 and bfloat16), one item per dtype. The default is every dtype
because torch 2.13 on the CPU runs nearly every operator in float16 and bfloat16, and where it refuses
a complex (or reduced) input, what it raises is behaviour too: the item then records torch's exception
and the implementation must raise the same. Which cases torch refuses in which dtype, and how, was
measured once by running each case (``probe_dtypes``) and is written into the table as data
(``dtype_refusals.TORCH_REFUSES``), never probed at run time. An entry narrows ``dtypes`` only where a
dtype says nothing about the operator. In a complex dtype the random float inputs get imaginary parts
(``values.imaginary_parts``), and ``grad_outputs`` and tangents are complex where the tensor they go
with is; int64 and bool inputs (indices, masks, integer targets) stay what they are. In float16 and
bfloat16 the values and first-order gradients are judged against float64 by the rule of
``tolerances``; the second-order gradients, forward mode and vmap steps are left out there (each would
need a float64 computation of its own to be judged fairly).

A sample's ``call`` is a Python expression over its inputs (``"torch.atan2(a, b)"``), or a few
statements that assign ``out`` (``"out = a.clone()\\nout += b"``). Inputs are tensors described
by :class:`Input` (``R``, ``V``, ``I``, ``B``) and rendered as literals; Python numbers,
lists and keyword arguments are written into the call itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..features import check_names
from .tolerances import Tolerance

LAYOUTS = ("contiguous", "transposed", "strided")
#: The dtypes an input may have whatever the item's dtype (``Input.kind``), besides ``"float"``.
EXACT_KINDS = ("int64", "bool", "float32", "float64", "int32", "int16", "int8", "uint8")
#: The dtypes an operator runs in unless its entry says otherwise (see above).
DTYPES = ("float32", "float64", "complex64", "complex128", "float16", "bfloat16")
#: The forward-mode steps of a sample, as named by ``torch_raises``.
FORWARD_STEPS = ("forward-mode", "forward-over-reverse")
#: The steps of a sample under ``torch.func.vmap``, as named by ``torch_raises``.
VMAP_STEPS = ("vmap", "vmap-of-vjp")
#: The steps whose exception is compared where torch raises in them (``torch_raises``).
RAISING_STEPS = FORWARD_STEPS + VMAP_STEPS


@dataclass(frozen=True)
class Input:
    """One tensor argument of a sample.

    Random values are drawn uniformly from ``[low, high]`` (seeded by the case id) and rounded
    to three decimals; ``values`` gives them explicitly instead (convention points such as
    relu at 0); ``signed=True`` draws magnitudes from ``[low, high]`` with random signs (a
    divisor kept away from zero). ``kind`` is ``"float"`` (the case's dtype), ``"int64"`` or ``"bool"``,
    or another dtype of ``EXACT_KINDS`` that the tensor has whatever the case's dtype (samples of
    torch's op_db). ``layout`` makes the tensor non-contiguous: ``"transposed"`` builds it with the last two
    dimensions swapped and transposes it back, ``"strided"`` takes every other element of the
    last dimension (also of explicit values). A float input requires grad unless ``grad=False``; it is then a leaf, also
    when non-contiguous.
    """

    shape: tuple[int, ...] = ()
    low: float = -2.0
    high: float = 2.0
    values: Any = None
    kind: str = "float"
    layout: str = "contiguous"
    grad: bool = True
    signed: bool = False

    def __post_init__(self) -> None:
        if self.kind != "float" and self.kind not in EXACT_KINDS:
            raise ValueError(f"unknown kind {self.kind!r}")
        if self.layout not in LAYOUTS:
            raise ValueError(f"unknown layout {self.layout!r}")
        if self.layout == "transposed" and len(self.shape) < 2:
            raise ValueError("a transposed input needs at least two dimensions")

    @property
    def differentiable(self) -> bool:
        return self.kind == "float" and self.grad

    @property
    def is_float(self) -> bool:
        """Whether the tensor is of a floating dtype (the item's, or float32 or float64 whatever the item's)."""
        return self.kind in ("float", "float32", "float64")

    @property
    def numel(self) -> int:
        if self.values is not None:
            return _count(self.values)
        count = 1
        for size in self.shape:
            count *= size
        return count


def _count(values: Any) -> int:
    if isinstance(values, (list, tuple)):
        return sum(_count(v) for v in values)
    return 1


def R(*shape: int, low: float = -2.0, high: float = 2.0, layout: str = "contiguous", grad: bool = True,
      signed: bool = False) -> Input:
    """A random float tensor of the case's dtype (requires grad unless ``grad=False``)."""
    return Input(tuple(shape), low, high, layout=layout, grad=grad, signed=signed)


def V(values: Any, grad: bool = True) -> Input:
    """A float tensor with explicit values (nested lists; ``float('nan')`` and infinities allowed)."""
    return Input(values=values, grad=grad)


def I(values: Any) -> Input:  # noqa: E743 (the table reads better with one-letter constructors)
    """An int64 tensor with explicit values (indices, targets)."""
    return Input(values=values, kind="int64", grad=False)


def B(values: Any) -> Input:
    """A bool tensor with explicit values (masks, conditions)."""
    return Input(values=values, kind="bool", grad=False)


@dataclass(frozen=True)
class Sample:
    """One call to check: forward value, then gradients (and second-order gradients), forward mode, then vmap.

    ``also`` names expressions recorded after the forward value (``"running_mean"`` after
    batch_norm). ``outputs`` is an expression of ``out`` giving the differentiable output, or a list of them
    (``"out.values"``, ``"list(out)"``). ``grad=False`` checks only the forward value (and that
    it requires grad as torch says). ``gradgrad`` overrides the variant's choice: True for every
    differentiable input's first-order gradient, a tuple of input names for some of them.
    ``torch_raises`` names the steps (of ``RAISING_STEPS``: forward mode and vmap) that torch raises
    in for this sample, in addition to the operator's: its exception is then what those steps compare.
    ``no_vmap`` is the reason the sample is not run under vmap (its steps are left out), where it
    cannot be batched at all: no tensor input, or a call whose meaning a batch changes.
    """

    call: str
    inputs: dict[str, Input] = field(default_factory=dict)
    note: str = ""
    outputs: str = "out"
    grad: bool = True
    gradgrad: bool | tuple[str, ...] | None = None
    also: tuple[str, ...] = ()
    torch_raises: tuple[str, ...] = ()
    no_vmap: str = ""

    def __post_init__(self) -> None:
        check_steps(self.torch_raises)


@dataclass(frozen=True)
class Raises:
    """An invalid call: its exception type and message are checked."""

    call: str
    inputs: dict[str, Input] = field(default_factory=dict)
    note: str = ""


def S(call: str, note: str = "", *, outputs: str = "out", grad: bool = True,
      gradgrad: bool | tuple[str, ...] | None = None, also: tuple[str, ...] = (), torch_raises: tuple[str, ...] = (),
      no_vmap: str = "", **inputs: Input) -> Sample:
    """A sample: ``S("torch.atan2(a, b)", "broadcast", a=R(3, 1), b=R(4))``."""
    return Sample(call, dict(inputs), note, outputs, grad, gradgrad, tuple(also), tuple(torch_raises), no_vmap)


def check_steps(names: tuple[str, ...]) -> None:
    """ValueError naming the first of ``names`` that is not one of ``RAISING_STEPS``."""
    unknown = [name for name in names if name not in RAISING_STEPS]
    if unknown:
        raise ValueError(f"unknown step {unknown[0]!r}; known: {', '.join(RAISING_STEPS)}")


def E(call: str, note: str = "", *, requires_grad: bool = False, **inputs: Input) -> Raises:
    """An error sample: ``E("torch.add(a, b)", "shapes that do not broadcast", a=R(2, 3), b=R(4))``.

    Its inputs do not require grad unless ``requires_grad=True`` (errors about autograd itself).
    """
    if not requires_grad:
        inputs = {name: replace(inp, grad=False) for name, inp in inputs.items()}
    return Raises(call, dict(inputs), note)


@dataclass(frozen=True)
class Variant:
    """A group of samples that becomes one case; ``tolerance``, ``gradgrad`` and ``dtypes`` override the
    operator's (a case has one tolerance class, the loosest that any of its checks needs)."""

    name: str
    samples: tuple[Sample | Raises, ...]
    tolerance: Tolerance | None = None
    gradgrad: bool | tuple[str, ...] | None = None
    dtypes: tuple[str, ...] | None = None


def variant(*samples: Sample | Raises, tolerance: Tolerance | None = None,
            gradgrad: bool | tuple[str, ...] | None = None, dtypes: tuple[str, ...] | None = None) -> Variant:
    """Variant options for :func:`op` (the name comes from the keyword it is given under)."""
    return Variant("", tuple(samples), tolerance, gradgrad, None if dtypes is None else check_dtypes(dtypes))


@dataclass(frozen=True)
class Operator:
    """One operator of the table and the variants (cases) it is checked by.

    ``doc`` is the dotted path of its docstring in torch. ``differentiable=False`` marks an
    operator whose outputs never require grad (comparisons, argmax): only forward values are
    checked. ``gradgrad`` says which first-order gradients are differentiated again: True for
    all, False for none (the gradient is constant or zero, as for add or floor), or a tuple
    of input names. ``torch_raises`` names the steps (of ``RAISING_STEPS``) that torch raises in for
    every sample, the NotImplementedError of an operator without a forward formula (huber_loss's
    backward has none: no forward-over-reverse) or the error of an operator vmap cannot batch: the
    same exception is checked. ``no_vmap`` is the reason none of its samples is run under vmap.
    ``real_gradgrad=False``: in the real dtypes the gradient is constant (angle's and sgn's are zero, and do
    not require grad), so second-order steps are taken in the complex dtypes only.
    ``dtypes`` are the dtypes its variants run in (``DTYPES`` unless narrowed; see the module's docstring).
    ``left_out`` names the forward-mode steps (of ``FORWARD_STEPS``) its samples do not take at all
    (op_db's entries that torch does not support in them). ``prefix`` begins its case ids
    (``op.<name>.<variant>``; ``opinfo`` for the entries of torch's op_db).
    """

    name: str
    doc: str
    tolerance: Tolerance
    variants: tuple[Variant, ...]
    gradgrad: bool | tuple[str, ...] = True
    differentiable: bool = True
    features: tuple[str, ...] = ()
    module: str = ""
    torch_raises: tuple[str, ...] = ()
    no_vmap: str = ""
    dtypes: tuple[str, ...] = DTYPES
    real_gradgrad: bool = True
    dtype_features: dict[str, tuple[str, ...]] = field(default_factory=dict)
    left_out: tuple[str, ...] = ()
    prefix: str = "op"

    def __post_init__(self) -> None:
        check_steps(self.torch_raises)
        unknown = [name for name in self.left_out if name not in FORWARD_STEPS]
        if unknown:
            raise ValueError(f"operator {self.name!r}: cannot leave out {unknown[0]!r}; known: {', '.join(FORWARD_STEPS)}")
        check_dtypes(self.dtypes)
        for dtype, names in self.dtype_features.items():
            if dtype not in self.dtypes:
                raise ValueError(f"operator {self.name!r}: features for {dtype!r}, which it does not run in")
            check_names(names, f"operator {self.name!r} in {dtype}")
        for variant in self.variants:
            for sample in variant.samples:
                if isinstance(sample, Sample) and not sample.inputs and not (sample.no_vmap or self.no_vmap):
                    raise ValueError(f"operator {self.name!r}: sample {one_line(sample.call)!r} has no tensor input "
                                     "to batch: give the reason it is not run under vmap (no_vmap)")


def check_dtypes(dtypes: tuple[str, ...]) -> tuple[str, ...]:
    """The dtypes as a tuple; ValueError where one is not of ``DTYPES`` or float32 or float64 is missing."""
    dtypes = tuple(dtypes)
    unknown = [name for name in dtypes if name not in DTYPES]
    if unknown:
        raise ValueError(f"unknown dtype {unknown[0]!r}; known: {', '.join(DTYPES)}")
    if "float32" not in dtypes or "float64" not in dtypes:
        raise ValueError("every operator runs in float32 and float64")
    return dtypes


def one_line(call: str) -> str:
    """A sample's call on one line, for messages."""
    return "; ".join(line.strip() for line in call.splitlines())


def op(name: str, doc: str, tolerance: Tolerance, *, gradgrad: bool | tuple[str, ...] = True,
       differentiable: bool = True, features: tuple[str, ...] = (), torch_raises: tuple[str, ...] = (),
       no_vmap: str = "", dtypes: tuple[str, ...] = DTYPES, real_gradgrad: bool = True,
       dtype_features: dict[str, tuple[str, ...]] | None = None, **variants: list | tuple | Variant) -> Operator:
    """An operator entry; each keyword names a variant, given as a list of samples or a :func:`variant`.
    ``dtype_features``: features its items need in one dtype only (``{"float16": ("complex32",)}``)."""
    built = []
    for variant_name, given in variants.items():
        if isinstance(given, Variant):
            built.append(replace(given, name=variant_name))
        else:
            built.append(Variant(variant_name, tuple(given)))
    if not built:
        raise ValueError(f"operator {name!r} has no variants")
    return Operator(name, doc, tolerance, tuple(built), gradgrad, differentiable, tuple(features),
                    torch_raises=tuple(torch_raises), no_vmap=no_vmap, dtypes=tuple(dtypes), real_gradgrad=real_gradgrad,
                    dtype_features=dict(dtype_features or {}))
