"""The operators the fuzzer draws from, read off the operator catalog's table.

An operator of the table's elementwise families qualifies through each sample whose call is a
plain call of its float inputs (``torch.atan2(a, b)``, ``x.sin()``, ``F.leaky_relu(x, 0.25)``)
and whose random inputs all have one shape: the sample shows that the call is valid on inputs
drawn from those ranges, and the output of an elementwise call has the inputs' broadcast
shape. The fuzzer then builds fresh inputs for it from the sample's ranges (``domains``), and
also feeds it tensors the program already holds (values out of the domain give NaN or raise,
identically on both sides when the implementation behaves).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from ..operators.spec import Input

ELEMENTWISE_FAMILIES = ("pointwise", "unary", "activations")
_PLAIN = re.compile(r"^(?:[\w.]+\(\{0\}(?:, \{1\})?(?:, [\w=.\-'\" ]+)*\)|\{0\}\.\w+\(\))$")


@dataclass(frozen=True)
class ElementwiseOp:
    name: str
    template: str                      # "torch.atan2({0}, {1})"
    domains: tuple[tuple[float, float], ...]

    @property
    def arity(self) -> int:
        return len(self.domains)

    def call(self, *names: str) -> str:
        return self.template.format(*names)


@lru_cache(maxsize=1)
def elementwise_ops() -> tuple[ElementwiseOp, ...]:
    from ..operators import operators
    from ..operators.spec import Sample

    found: dict[str, ElementwiseOp] = {}
    for operator in operators():
        if operator.module.rsplit(".", 1)[-1] not in ELEMENTWISE_FAMILIES or not operator.differentiable:
            continue
        for variant in operator.variants:
            for sample in variant.samples:
                if not isinstance(sample, Sample) or sample.outputs != "out":
                    continue
                op = _as_elementwise(operator.name, sample)
                if op is not None and op.template not in found:
                    found[op.template] = op
    return tuple(found.values())


def _as_elementwise(name: str, sample) -> ElementwiseOp | None:
    inputs = sample.inputs
    if not 1 <= len(inputs) <= 2 or "\n" in sample.call:
        return None
    if any(i.kind != "float" or i.values is not None or i.layout != "contiguous" for i in inputs.values()):
        return None
    if len({i.shape for i in inputs.values()}) != 1:
        return None
    names = list(inputs)
    template = sample.call.replace("{", "{{").replace("}", "}}")
    for index, input_name in enumerate(names):
        template = re.sub(rf"\b{re.escape(input_name)}\b", f"{{{index}}}", template)
    if not _PLAIN.match(template):
        return None
    domains = tuple((inputs[n].low, inputs[n].high) for n in names)
    return ElementwiseOp(name, template, domains)


# -- any operator of the table: its sample calls, on inputs like the sample's -----------------------
@dataclass(frozen=True)
class TableOp:
    """One sample call of the operator table (``F.mse_loss(x, t)``) and the inputs it takes.

    The fuzzer binds the sample's input names to tensors of the program (a float input: a
    program tensor of the same shape, or a fresh leaf drawn from the input's range or given by
    its explicit values; an int64 or bool input: its explicit values), then makes the call. The
    result's shape is not tracked (it is whatever the operator returns). ``features``: what the
    sample needs (``sample_features``), so that a profile that lacks one never draws it.
    """

    name: str
    call: str
    inputs: tuple[tuple[str, Input], ...]
    features: frozenset[str] = frozenset()


# operators whose result shares its input's memory: torch's view operations ("Tensor Views" in its
# documentation), those that may return their input itself, and those whose result torch makes as a
# view of an intermediate (tests/test_fuzz_profile.py checks every sample of the table against torch)
VIEW_OPERATORS = frozenset({
    "adjoint", "alias", "as_strided", "chunk", "contiguous", "detach", "diagonal", "dsplit", "expand", "expand_as",
    "flatten", "getitem", "H", "hsplit", "imag", "indices", "mH", "movedim", "moveaxis", "mT", "narrow", "permute",
    "real", "reshape", "reshape_as", "select", "slice", "split", "split_with_sizes", "squeeze", "swapaxes",
    "swapdims", "t", "T", "tensor_split", "to", "transpose", "unbind", "unflatten", "unfold", "unsqueeze", "values",
    "view", "view_as", "view_as_complex", "view_as_real", "vsplit",
    "bilinear", "einsum", "linear", "tensordot",
    "fft_ifft",  # of a real input: the conjugate view of a forward transform (is_conj())
})


def sample_features(operator, variant, sample) -> frozenset[str]:
    """The features one sample call needs: as its operator case declares them (``render.features_of``,
    on that sample alone), with ``nn`` for ``F.`` and ``views`` for a view operation."""
    from ..operators.render import features_of

    found = set(features_of(operator, replace(variant, samples=(sample,)), sample.call))
    if "F." in sample.call:
        found.add("nn")
    if operator.name in VIEW_OPERATORS:
        found.add("views")
    return frozenset(found)


@lru_cache(maxsize=1)
def table_ops() -> dict[str, tuple[TableOp, ...]]:
    """Every differentiable operator of the table, with its samples that are one plain call
    whose inputs are all contiguous; keyed by operator name. Variants torch refuses in real dtypes,
    which programs are drawn in (a complex-only operator: ``imag``), are left out."""
    from ..operators import operators, refused_in_dtype
    from ..operators.spec import Sample

    found: dict[str, list[TableOp]] = {}
    for operator in operators():
        if not operator.differentiable:
            continue
        for variant in operator.variants:
            if refused_in_dtype(f"op.{operator.name}.{variant.name}", "float64"):
                continue
            for sample in variant.samples:
                if (not isinstance(sample, Sample) or sample.outputs != "out" or "\n" in sample.call
                        or "out" in re.findall(r"\w+", sample.call) or not sample.inputs
                        or any(i.layout != "contiguous" for i in sample.inputs.values())):
                    continue
                found.setdefault(operator.name, []).append(TableOp(
                    operator.name, sample.call, tuple(sample.inputs.items()), sample_features(operator, variant, sample)))
    return {name: tuple(samples) for name, samples in found.items()}


def restricted_to(names: tuple[str, ...]) -> tuple[tuple[ElementwiseOp, ...], dict[str, tuple[TableOp, ...]]]:
    """The elementwise operators and the table's operators that programs draw, only those named when
    ``names`` is given (``fuzz --operators``); ValueError, in one line, for a name the table does not
    have or for names among which no operator is elementwise (chains and pure functions need one)."""
    elementwise, table = elementwise_ops(), table_ops()
    if not names:
        return elementwise, table
    unknown = sorted(set(names) - set(table))
    if unknown:
        raise ValueError(f"not differentiable operators of the table: {', '.join(unknown)} "
                         "(python -m conformance list -k op. lists the operator cases)")
    elementwise = tuple(op for op in elementwise if op.name in names)
    if not elementwise:
        raise ValueError(f"none of {', '.join(names)} is elementwise; name at least one (sin, mul, ...): "
                         "programs chain elementwise operators")
    return elementwise, {name: samples for name, samples in table.items() if name in names}
