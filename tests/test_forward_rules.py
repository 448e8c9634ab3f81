"""The forward-mode rules of the derivative table (``myautograd/_ops/forward_rules*.py``).

* no linear or structural entry is left on the generic fallback (``forward.transposed``, the rule
  ``"transpose"``);
* each of their written-out rules gives the fallback's tangents, which are exact: every operator of
  the operator tests runs inside a dual level with random tangents on its inputs, then its gradient
  with ``create_graph`` and a dual incoming gradient (forward-over-reverse, reaching the backward ops
  recorded under ``create_graph``); each time one of these entries computes a tangent, the fallback
  computes it too, and both must agree. A broken rule is caught (``test_a_broken_rule_is_caught``);
* where the rule deliberately differs from the fallback (max_unpool's repeated indices), and at edges
  (an empty batch), torch's value is checked directly.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import myautograd
from myautograd._autograd import forward
from myautograd._autograd.formulas import NODES
from myautograd._autograd.record import record
from myautograd.autograd import forward_ad as fwAD
from tests.test_ops_against_torch import OPS

LINEAR_AND_STRUCTURAL = """
AdaptiveAvgPool2DBackward0 AdaptiveAvgPool2DBackwardBackward0 AliasBackward0 AsStridedBackward0 AvgPool2DBackward0
AvgPool2DBackwardBackward0 BernoulliBackward0 Col2ImBackward0 ComplexBackward0 ConjBackward0 ConjPhysicalBackward0
ConstantPadNdBackward0 ConvolutionBackward0 ConvolutionBackwardBackward0 CopyBackwards DiagEmbedBackward0
DiagonalBackward0 DiagonalBackward0_copy DiagonalBackwardBackward0 FillBackward2 FillBackward3 Identity
Im2ColBackward0 IndexBackward0 IndexFillBackward1 IndexPutBackward0 IndexPutImplBackward0 MaskedFillBackward1
MaskedSelectBackward0 NativeDropoutBackward0 PermuteBackward0 ReflectionPad1DBackward0 ReflectionPad1DBackwardBackward0
ReflectionPad2DBackward0 ReflectionPad2DBackwardBackward0 ReflectionPad3DBackward0 ReflectionPad3DBackwardBackward0
ReplicationPad1DBackward0 ReplicationPad1DBackwardBackward0 ReplicationPad2DBackward0 ReplicationPad2DBackwardBackward0
ReplicationPad3DBackward0 ReplicationPad3DBackwardBackward0 ReshapeAliasBackward0 RollBackward0 ScatterAddBackward0
ScatterBackward0 ScatterBackward1 SelectBackward0 SelectBackwardBackward0 SliceBackward0 SliceBackwardBackward0
SplitBackward0 SplitWithSizesBackward0 SqueezeBackward0 SqueezeBackward1 SqueezeBackward2 SqueezeBackward4 TBackward0
TakeBackward0 ToCopyBackward0 TransposeBackward0 TrilinearBackward0 UnbindBackward0 UnfoldBackward0
UnsafeViewBackward0 UnsqueezeBackward0 ViewAsComplexBackward0 ViewAsRealBackward0 ViewBackward0 ZeroBackward0
NotImplemented
""".split()

# Entries whose rule differs from the fallback on purpose, each checked against torch below: unpack_dual's
# primal has no tangent; bernoulli's draws have a zero tangent (the fallback gives none); torch refuses
# hardsigmoid_backward; conj and view_as_real, recorded for complex inputs only, are not complex-linear, and
# there the fallback, built on the conjugating backward formulas, gives the conjugate of the tangent.
NOT_THE_FALLBACKS = {"Identity", "BernoulliBackward0", "NotImplemented", "ConjBackward0", "ConjPhysicalBackward0",
                     "ViewAsRealBackward0"}

TABLE_NAMES = {cls: name for name, cls in NODES.items()}


def on_the_fallback() -> set[str]:
    return {name for name, cls in NODES.items() if cls.forward_rule == "transpose"}


def test_no_linear_or_structural_entry_is_left_on_the_fallback():
    assert len(LINEAR_AND_STRUCTURAL) == 72 and set(LINEAR_AND_STRUCTURAL) <= set(NODES)
    assert not set(LINEAR_AND_STRUCTURAL) & on_the_fallback()


def test_no_entry_of_the_table_is_left_on_the_fallback():
    """Every entry has a rule of its own (element-wise, written out, or None as in torch): the
    transposed fallback is only where complex values reach a rule written for real ones."""
    assert on_the_fallback() == set()


class Comparison:
    """Wraps ``forward.output_tangents``: for a watched entry, the fallback's tangents next to the rule's."""

    def __init__(self, watched: set[str]) -> None:
        self.watched = watched
        self.original = forward.output_tangents
        self.checked: dict[str, int] = {}
        self.mismatches: list[str] = []

    def __call__(self, cls, tangents, values, arrays):
        outs = self.original(cls, tangents, values, arrays)
        name = TABLE_NAMES.get(cls)
        if name in self.watched:
            rule, cls.forward_rule = cls.forward_rule, "transpose"
            try:
                expected = self.original(cls, tangents, values, arrays)
            finally:
                cls.forward_rule = rule
            self.checked[name] = self.checked.get(name, 0) + 1
            if not all(same(out, want) for out, want in zip(outs, expected, strict=True)):
                self.mismatches.append(f"{name}: {describe(outs)} != {describe(expected)}")
        return outs


def same(out, expected) -> bool:
    if out is None or expected is None:
        return out is None and expected is None
    got, want = out.detach().numpy(), expected.detach().numpy()
    return got.shape == want.shape and got.dtype == want.dtype and np.allclose(got, want, rtol=1e-10, atol=1e-12)


def describe(tangents) -> str:
    return repr([None if t is None else t.detach().numpy() for t in tangents])


def dual(value: np.ndarray, rng: np.random.Generator, dtype=myautograd.float64):
    primal = myautograd.tensor(value, dtype=dtype, requires_grad=True)
    return fwAD.make_dual(primal, myautograd.tensor(rng.standard_normal(value.shape), dtype=dtype))


def run_forward_and_forward_over_reverse(op) -> str | None:
    """The op on dual inputs, then its gradient for a dual incoming gradient, with create_graph; the
    message of a refusal (an op without a forward formula), else None."""
    rng = np.random.default_rng(zlib.crc32(op.name.encode()))
    with fwAD.dual_level():
        try:
            inputs = [dual(rng.uniform(op.low, op.high, shape), rng) for shape in op.shapes]
            out = op.fn(myautograd, *inputs)
            if out.requires_grad:
                incoming = dual(rng.uniform(-1, 1, tuple(out.shape)), rng, out.dtype)
                myautograd.autograd.grad(out, inputs, incoming, create_graph=True, allow_unused=True)
        except NotImplementedError as refusal:
            return str(refusal)
    return None


def extra_programs():
    """Programs for the entries the operator tests reach only without tangents (in-place writes,
    multi-dim pads, complex views, unfold, diagonal copies)."""
    def complex_views(t, x, y):
        z = t.complex(x, y)
        return t.view_as_complex(t.view_as_real(z.conj()) * 2).abs()

    def writes(t, x, y):
        z = x.clone()
        z.index_put_((t.tensor([0, 2]),), y[:2], accumulate=True)
        z[1:3] = y[2:4]
        z.masked_fill_(x > 0.5, y[0])
        copied, filled, zeroed = x.clone(), x.clone(), x.clone()
        copied.copy_(y[0])
        filled.fill_(y[1])
        zeroed.zero_()
        zeroed.fill_(2.0)
        return z.scatter(0, t.tensor([0, 1]), y[:2]).scatter_add(0, t.tensor([2, 2]), y[2:4]) + copied + filled + zeroed

    def strided(t, x):
        m = x.reshape(4, 4)
        return m.unfold(0, 2, 1).sum() + m.as_strided((2, 2), (1, 2)).sum() + t.diag(m, 1).sum() + m.diagonal().sum()

    def pads(t, x):
        f = t.nn.functional
        x3 = x.reshape(1, 1, 2, 2, 4)
        return (f.pad(x3, (1, 1, 1, 1, 1, 1), mode="replicate").sum() + f.pad(x3, (1, 1, 1, 0, 1, 0),
                                                                             mode="reflect").sum()
                + f.pad(x.reshape(1, 1, 4, 4), (1, 2, 0, 1), mode="reflect").sum()
                + f.pad(x.reshape(1, 4, 4), (2, 1), mode="replicate").sum())

    def cuda_dropout(t, x):  # the node torch's fused CUDA kernel records, on CPU arrays
        mask = t.tensor([1.0, 0.0, 1.0, 1.0], dtype=x.dtype)
        return record(NODES["NativeDropoutBackward0"], x._data * mask._data * 2.0, (x,), {"mask": mask, "scale": 2.0})

    def casts(t, x):
        return x.float().double() * x.to(t.float64, copy=True) + x.to(t.float32).squeeze(0).unsqueeze(1).sum()

    from tests.support.operators import Op
    return [Op("complex_views", complex_views, ((4,), (4,))), Op("writes", writes, ((4,), (4,))),
            Op("strided", strided, ((16,),)), Op("pads", pads, ((16,),)), Op("casts", casts, ((3, 4),)),
            Op("cuda_dropout", cuda_dropout, ((4,),))]


@pytest.fixture(scope="module")
def comparison():
    checking = Comparison(set(LINEAR_AND_STRUCTURAL) - NOT_THE_FALLBACKS)
    forward.output_tangents = checking
    checking.refusals = {}
    try:
        for op in [*OPS, *extra_programs()]:
            if op.name == "unpack_dual_primal":  # enters a dual level of its own
                continue
            refusal = run_forward_and_forward_over_reverse(op)
            if refusal is not None:
                checking.refusals[op.name] = refusal
    finally:
        forward.output_tangents = checking.original
    return checking


def test_each_written_out_rule_gives_the_fallbacks_tangents(comparison):
    assert not comparison.mismatches, "\n".join(comparison.mismatches)


def test_every_rule_is_compared(comparison):
    unchecked = sorted(set(LINEAR_AND_STRUCTURAL) - NOT_THE_FALLBACKS - set(comparison.checked))
    assert not unchecked, f"no program reaches the rules of {', '.join(unchecked)}"


def test_hardsigmoid_backward_is_refused_with_torchs_message(comparison):
    assert comparison.refusals["hardsigmoid"] == ("Trying to use forward AD with aten::hardsigmoid_backward that does "
                                                  "not support it.")
    assert all(message.startswith("Trying to use forward AD with ") for message in comparison.refusals.values())


def tangent_on(lib, program, value, tangent):
    """The tangent of ``program``'s result (None: no tangent) for a dual input, or the refusal's message."""
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        primal = lib.tensor(value, requires_grad=True)
        try:
            out = program(lib, fw.make_dual(primal, lib.tensor(tangent)))
        except NotImplementedError as refusal:
            return str(refusal)
        found = fw.unpack_dual(out).tangent
        return None if found is None else found.detach().numpy().copy()


AGAINST_TORCH = {
    "conj": (lambda t, z: z.conj() * 1, [1 + 2j, 3 - 1j], [0.5 + 0.25j, -1 + 2j]),
    "conj_physical": (lambda t, z: z.conj_physical(), [1 + 2j, 3 - 1j], [0.5 + 0.25j, -1 + 2j]),
    "view_as_real": (lambda t, z: t.view_as_real(z), [1 + 2j, 3 - 1j], [0.5 + 0.25j, -1 + 2j]),
    "view_as_real_of_a_product": (lambda t, z: t.view_as_real(z * 2) * 1, [1 + 2j], [0.5 - 0.75j]),
    "bernoulli": (lambda t, p: t.bernoulli(p), [0.25, 0.5], [1.0, 2.0]),
    "unpack_dual_primal": (lambda t, x: t.autograd.forward_ad.unpack_dual(x).primal * 2, [1.0, 2.0], [1.0, 1.0]),
    "hardsigmoid_backward": (lambda t, x: t.autograd.grad(t.nn.functional.hardsigmoid(x).sum(), x, create_graph=True)[0],
                             [0.5, -1.0], [1.0, 2.0]),
    # max_unpool's tangent is its own placement: where an index repeats, the last element placed wins, not the sum
    "max_unpool_repeated_index": (lambda t, x: t.nn.functional.max_unpool1d(x.reshape(1, 1, 3), t.tensor([[[1, 1, 4]]]),
                                                                             2, output_size=[6]),
                                  [1.0, 2.0, 3.0], [0.5, -1.0, 2.0]),
    # an empty batch: the rule's einsum broadcasts a dim of 0 against one of 1
    "adaptive_avg_pool_empty_batch": (lambda t, x: t.nn.functional.adaptive_avg_pool1d(x.reshape(0, 2, 4), 3), [], []),
}


@pytest.mark.parametrize("name", AGAINST_TORCH)
def test_the_rules_that_are_not_the_fallbacks_give_torchs_tangents(name):
    import torch

    program, value, tangent = AGAINST_TORCH[name]
    expected = tangent_on(torch, program, value, tangent)
    found = tangent_on(myautograd, program, value, tangent)
    if isinstance(expected, np.ndarray):
        assert isinstance(found, np.ndarray) and found.dtype == expected.dtype
        np.testing.assert_array_equal(found, expected)
    else:
        assert found == expected
