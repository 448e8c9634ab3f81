"""Operator table: reductions, scans and softmax.

Samples reduce over every dim, over one (leading, non-leading, negative) or several dims, with
and without keepdim, over empty and 0-dim tensors, and at the conventions of selections: ties
in max/min/amax (the gradient is shared evenly, or goes to the index returned), zeros in prod
and cumprod, a zero vector in norm.
"""

from __future__ import annotations

from .spec import E, I, R, S, V, op
from .tolerances import CHAINED, COMPOSITE, EXACT, SUMMED

NAN = float("nan")
INF = float("inf")


def _bad_dims(call: str) -> list:
    return [
        E(call.format(dim="2"), "a dim out of range", x=R(2, 3)),
        E(call.format(dim="(0, 0)"), "a dim listed twice", x=R(2, 3)),
    ]


def _over_dims(method: str, extra: str = "") -> list:
    """The dim/keepdim samples shared by sum-like reductions, ``x.<method>(dim...)``."""
    more = f", {extra}" if extra else ""
    return [
        S(f"torch.{method}(x, 1{more})", "one dim", x=R(3, 4)),
        S(f"x.{method}(dim=0, keepdim=True{more})", "keepdim", x=R(3, 4)),
        S(f"x.{method}(-1{more})", "a negative dim, transposed input", x=R(3, 4, layout="transposed")),
        S(f"x.{method}(1{more})", "a non-leading dim of a 3-D tensor, keepdim=False", x=R(2, 3, 4)),
        S(f"x.{method}((0, 2){more})", "several dims", x=R(2, 3, 4)),
        S(f"x.{method}(dim=(-1, 0), keepdim=True{more})", "several negative dims, keepdim", x=R(2, 3, 4)),
        S(f"x.{method}(0{more})", "over an empty dim", x=R(0, 3)),
    ]


OPERATORS = [
    op("sum", "torch.sum", SUMMED, gradgrad=False,
       full=[
           S("x.sum()", "all elements", x=R(3, 4)),
           S("torch.sum(x)", "transposed input", x=R(3, 4, layout="transposed")),
           S("x.sum()", "0-dim", x=R()),
           S("x.sum()", "empty: zero", x=R(0, 3)),
           S("x.sum(dtype=torch.float64)", "accumulated in float64", x=R(2, 3)),
       ],
       many=[
           S("x.sum()", "many positive terms: how the sum accumulates shows in the reduced dtypes",
             x=R(512, low=0.5, high=2.0)),
           S("torch.sum(x, 0)", "along a long dimension", x=R(256, 2)),
       ],
       dim=[*_over_dims("sum"), *_bad_dims("x.sum({dim})")]),
    op("mean", "torch.mean", SUMMED, gradgrad=False,
       full=[
           S("x.mean()", "all elements", x=R(3, 4)),
           S("torch.mean(x)", "strided input", x=R(3, 4, layout="strided")),
           S("x.mean()", "0-dim", x=R()),
           S("x.mean()", "empty: NaN", x=R(0, 3)),
           E("i.mean()", "an int64 tensor", i=I([1, 2, 3])),
       ],
       dim=[*_over_dims("mean"), *_bad_dims("x.mean({dim})")]),
    op("prod", "torch.prod", CHAINED,
       default=[
           S("x.prod()", "all elements", x=R(2, 3, low=0.5, high=1.5, signed=True)),
           S("torch.prod(x, 1)", "one dim", x=R(3, 4, low=0.5, high=1.5, signed=True)),
           S("x.prod(dim=0, keepdim=True)", "keepdim, transposed", x=R(3, 2, low=0.5, high=1.5, layout="transposed")),
           S("x.prod(-1)", "a negative dim, empty", x=R(2, 0)),
           S("x.prod()", "one zero: the gradient is the product of the others there", x=V([2.0, 0.0, 3.0, -1.5])),
           S("x.prod(1)", "two zeros in a row: all gradients of that row are zero",
             x=V([[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]])),
           E("x.prod(2)", "a dim out of range", x=R(2, 3)),
       ]),
    op("max", "torch.max", EXACT, gradgrad=False,
       full=[
           S("x.max()", "all elements", x=R(3, 4)),
           S("torch.max(x)", "ties share the gradient evenly", x=V([1.0, 3.0, 3.0, 2.0])),
           S("x.max()", "three ties", x=V([[5.0, 5.0], [5.0, -1.0]])),
           S("x.max()", "NaN wins", x=V([1.0, NAN, 3.0])),
           S("torch.max(a, b)", "two tensors: maximum", a=R(2, 3), b=R(2, 3)),
           E("x.max()", "an empty tensor", x=R(0, 3)),
       ],
       dim=[
           S("torch.max(x, 1)", "one dim: values and indices", x=R(3, 4), outputs="out.values"),
           S("x.max(dim=0, keepdim=True)", "keepdim", x=R(3, 4, layout="transposed"), outputs="out.values"),
           S("x.max(-1)", "a negative dim of a 3-D tensor", x=R(2, 3, 4), outputs="out.values"),
           S("x.max(1)", "ties: the gradient goes to the index returned", x=V([[2.0, 2.0, 1.0], [0.0, 4.0, 4.0]]),
             outputs="out.values"),
           S("x.max(0)", "a dim of size 1", x=R(1, 3), outputs="out.values"),
           E("x.max(2)", "a dim out of range", x=R(2, 3)),
           E("x.max(0)", "a reduction over an empty dim", x=R(0, 3)),
       ]),
    op("min", "torch.min", EXACT, gradgrad=False,
       full=[
           S("x.min()", "all elements", x=R(3, 4)),
           S("torch.min(x)", "ties share the gradient evenly", x=V([1.0, -3.0, -3.0, 2.0])),
           S("torch.min(a, b)", "two tensors: minimum", a=R(2, 3), b=R(2, 3)),
       ],
       dim=[
           S("torch.min(x, 1)", "one dim: values and indices", x=R(3, 4), outputs="out.values"),
           S("x.min(dim=-2, keepdim=True)", "a negative dim, keepdim", x=R(3, 4), outputs="out.values"),
           S("x.min(1)", "ties: the gradient goes to the index returned", x=V([[1.0, 1.0, 2.0], [0.0, -4.0, -4.0]]),
             outputs="out.values"),
       ]),
    op("amax", "torch.amax", EXACT, gradgrad=False,
       default=[
           S("x.amax()", "all dims", x=R(3, 4)),
           S("torch.amax(x, 1)", "one dim", x=R(3, 4)),
           S("x.amax(dim=(0, 2), keepdim=True)", "several dims, keepdim", x=R(2, 3, 4)),
           S("x.amax(-1)", "ties share the gradient evenly", x=V([[3.0, 3.0, 3.0], [1.0, 2.0, 2.0]])),
           S("x.amax()", "0-dim: the gradient keeps the dtype (found by the fuzzer)", x=V(0.5)),
           S("x.amax(1)", "a NaN in a row: no element equals the result, its gradient is NaN (found by the fuzzer)",
             x=V([[NAN, 1.0, 2.0], [1.0, 1.0, -1.0]])),
           E("x.amax(3)", "a dim out of range", x=R(2, 3)),
           E("x.amax()", "an empty tensor without a dim (found by the fuzzer)", x=R(0)),
           E("x.amax(0)", "an empty dim", x=R(0, 3)),
           E("x.amax(dim=(0, -1), keepdim=True)", "an empty dim, negative: shown as given (found by the fuzzer)",
             x=R(2, 0)),
       ]),
    op("amin", "torch.amin", EXACT, gradgrad=False,
       default=[
           S("x.amin()", "all dims", x=R(3, 4)),
           S("torch.amin(x, 0)", "one dim, transposed", x=R(3, 4, layout="transposed")),
           S("x.amin(1)", "ties share the gradient evenly", x=V([[-3.0, -3.0, 0.0], [1.0, 1.0, 1.0]])),
           E("torch.amin(x)", "an empty tensor without a dim", x=R(2, 0)),
       ]),
    op("argmax", "torch.argmax", EXACT, differentiable=False,
       default=[
           S("x.argmax()", "flattened index", x=R(3, 4)),
           S("torch.argmax(x, 1)", "one dim", x=R(3, 4)),
           S("x.argmax(dim=0, keepdim=True)", "keepdim", x=R(3, 4)),
           S("x.argmax(1)", "ties: the first index", x=V([[2.0, 2.0, 1.0], [0.0, 4.0, 4.0]])),
           S("x.argmax()", "NaN is the largest", x=V([1.0, NAN, 3.0])),
           E("x.argmax()", "an empty tensor", x=R(0)),
       ]),
    op("argmin", "torch.argmin", EXACT, differentiable=False,
       default=[
           S("x.argmin()", "flattened index", x=R(3, 4)),
           S("torch.argmin(x, -1, keepdim=True)", "a negative dim, keepdim", x=R(3, 4)),
           S("x.argmin(1)", "ties: the first index", x=V([[1.0, 1.0, 2.0], [0.0, -4.0, -4.0]])),
       ]),
    op("var", "torch.var", COMPOSITE,
       default=[
           S("x.var()", "all elements, correction 1", x=R(3, 4)),
           S("torch.var(x, 1)", "one dim", x=R(3, 4)),
           S("x.var(dim=0, keepdim=True)", "keepdim, transposed", x=R(3, 4, layout="transposed")),
           S("x.var(1, correction=0)", "correction 0, a non-leading dim of a 3-D tensor", x=R(2, 3, 4)),
           S("torch.var(x, dim=(0, 1), correction=2)", "correction 2 over several dims", x=R(2, 3, 2)),
           S("x.var(unbiased=False)", "unbiased=False", x=R(5)),
           S("x.var(0)", "one element with correction 1: NaN and a warning", x=R(1, 3), gradgrad=False),
           S("x.var(0)", "an empty result: its reduction counts 0 elements, and warns (found by the fuzzer)",
             x=R(2, 0), gradgrad=False),
           S("x.var()", "a 0-dim input: no degree of freedom, the gradient is NaN (the value equals the mean)",
             x=R(), gradgrad=False),
           S("x.var()", "one NaN element: the gradient is inf (NaN differs from the mean)", x=V([NAN]),
             gradgrad=False),
           E("x.var(2)", "a dim out of range", x=R(2, 3)),
       ]),
    op("std", "torch.std", COMPOSITE,
       default=[
           S("x.std()", "all elements, correction 1", x=R(3, 4)),
           S("torch.std(x, -1)", "a negative dim", x=R(3, 4)),
           S("x.std(dim=1, keepdim=True, correction=0)", "keepdim, correction 0", x=R(2, 3, 4)),
           S("x.std(0)", "a non-leading reduction of a transposed input", x=R(3, 4, layout="transposed")),
           S("x.std()", "constant input: std 0, gradient 0", x=V([1.5, 1.5, 1.5]), gradgrad=False),
       ]),
    op("var_mean", "torch.var_mean", COMPOSITE,
       default=[
           S("torch.var_mean(x)", "all elements: one node, two outputs", x=R(3, 4), outputs="list(out)"),
           S("torch.var_mean(x, 1, keepdim=True)", "one dim, keepdim", x=R(3, 4), outputs="list(out)"),
           S("torch.var_mean(x, 0)", "one element with correction 1: NaN and a warning naming var_mean",
             x=R(1, 3), outputs="list(out)", gradgrad=False),
       ]),
    op("std_mean", "torch.std_mean", COMPOSITE,
       default=[
           S("torch.std_mean(x, dim=-1, correction=0)", "a negative dim, correction 0", x=R(2, 3),
             outputs="list(out)"),
           S("torch.std_mean(x)", "one element: NaN and a warning naming std_mean", x=R(1), outputs="list(out)",
             gradgrad=False),
       ]),
    op("norm", "torch.norm", COMPOSITE,
       default=[
           S("x.norm()", "the 2-norm of all elements", x=R(3, 4)),
           S("torch.norm(x, p=1)", "p=1", x=R(3, 4), gradgrad=False),
           S("x.norm(p=float('inf'))", "p=inf", x=R(5), gradgrad=False),
           S("x.norm(p=3, dim=1)", "p=3 over one dim", x=R(3, 4)),
           S("x.norm(dim=0, keepdim=True)", "keepdim, transposed", x=R(3, 4, layout="transposed")),
           S("torch.norm(x, p='fro', dim=(0, 1))", "Frobenius over two dims", x=R(2, 3, 2)),
           S("x.norm()", "the zero vector: gradient 0", x=V([0.0, 0.0, 0.0]), gradgrad=False),
           S("x.norm(p=0)", "p=0 counts the non-zero elements (the count is not differentiated)",
             x=V([0.0, 1.5, -2.0]), grad=False),
       ]),
    op("logsumexp", "torch.logsumexp", COMPOSITE,
       default=[
           S("torch.logsumexp(x, 1)", "one dim", x=R(3, 4)),
           S("x.logsumexp(dim=0, keepdim=True)", "keepdim, transposed", x=R(3, 4, layout="transposed")),
           S("x.logsumexp((0, 2))", "several dims", x=R(2, 3, 2)),
           S("x.logsumexp(-1)", "large values, where a naive formula overflows", x=V([[100.0, 101.0], [-100.0, -99.0]])),
           S("x.logsumexp(0)", "a -inf entry", x=V([-INF, 0.0, 1.0]), gradgrad=False),
           S("x.logsumexp(-1)", "0-dim", x=R()),
           E("x.logsumexp(2)", "a dim out of range", x=R(2, 3)),
       ]),
    op("cumsum", "torch.cumsum", SUMMED, gradgrad=False,
       default=[
           S("torch.cumsum(x, 0)", "dim 0", x=R(3, 4)),
           S("x.cumsum(1)", "dim 1, transposed", x=R(3, 4, layout="transposed")),
           S("x.cumsum(-1)", "a negative dim of a 3-D tensor", x=R(2, 3, 4)),
           S("x.cumsum(0)", "0-dim", x=R()),
           S("x.cumsum(0, dtype=torch.float64)", "accumulated in float64", x=R(4)),
           S("x.clone().cumsum_(0)", "in-place on a non-leaf", x=R(4)),
           E("x.cumsum(2)", "a dim out of range", x=R(2, 3)),
       ]),
    op("cumprod", "torch.cumprod", CHAINED,
       default=[
           S("torch.cumprod(x, 0)", "dim 0", x=R(3, 4, low=0.5, high=1.5, signed=True)),
           S("x.cumprod(-1)", "a negative dim", x=R(3, 4, low=0.5, high=1.5, signed=True)),
           S("x.cumprod(0)", "one zero", x=V([2.0, 0.0, 3.0, -1.5])),
           S("x.cumprod(1)", "two zeros", x=V([[0.0, 2.0, 0.0, 1.5], [1.0, 0.0, 3.0, 0.0]])),
       ]),
    op("softmax", "torch.nn.functional.softmax", COMPOSITE,
       default=[
           S("F.softmax(x, dim=1)", "dim 1", x=R(3, 4)),
           S("torch.softmax(x, -1)", "a negative dim of a 3-D tensor", x=R(2, 3, 4)),
           S("x.softmax(0)", "dim 0, transposed", x=R(3, 4, layout="transposed")),
           S("F.softmax(x, dim=1)", "large values", x=V([[100.0, 101.0, 102.0], [-100.0, 0.0, 100.0]])),
           S("F.softmax(x, dim=0, dtype=torch.float64)", "computed in float64", x=R(4)),
           S("F.softmax(x, dim=0)", "0-dim", x=R()),
           E("F.softmax(x, dim=2)", "a dim out of range", x=R(2, 3)),
       ]),
    op("log_softmax", "torch.nn.functional.log_softmax", COMPOSITE,
       default=[
           S("F.log_softmax(x, dim=1)", "dim 1", x=R(3, 4)),
           S("torch.log_softmax(x, -1)", "a negative dim of a 3-D tensor", x=R(2, 3, 4)),
           S("x.log_softmax(0)", "dim 0, transposed", x=R(3, 4, layout="transposed")),
           S("F.log_softmax(x, dim=1)", "large values", x=V([[100.0, 101.0, 102.0], [-100.0, 0.0, 100.0]])),
           E("F.log_softmax(x, dim=-3)", "a dim out of range", x=R(2, 3)),
       ]),
]

