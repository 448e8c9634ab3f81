"""myautograd's operators against torch: values, dtypes, node names, first and second derivatives.

Each op runs on the same inputs on both libraries, in float32 and float64. First derivatives are
vector-Jacobian products with a fixed random vector; second derivatives differentiate the first
ones again (create_graph), which exercises the tensor form of every derivative formula.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
import torch

import myautograd
from tests.support.graphs import graph_names
from tests.support.operators import (
    ACTIVATION_OPS,
    COMPLEX_OPS,
    INDEXING_OPS,
    LINALG_OPS,
    LOSS_OPS,
    NN_OPS,
    POINTWISE_OPS,
    REDUCTION_OPS,
    SHAPE_OPS,
    Op,
)

TOLERANCE = {"float32": (2e-5, 2e-5), "float64": (1e-7, 1e-7)}


OPS = [
    Op("neg", lambda t, x: -x, ((3, 4),)),
    Op("exp", lambda t, x: x.exp(), ((3, 4),)),
    Op("log", lambda t, x: x.log(), ((3, 4),), 0.5, 3.0),
    Op("log1p", lambda t, x: x.log1p(), ((5,),), 0.1, 2.0),
    Op("expm1", lambda t, x: x.expm1(), ((5,),)),
    Op("sin", lambda t, x: x.sin(), ((3, 4),)),
    Op("cos", lambda t, x: x.cos(), ((3, 4),)),
    Op("tan", lambda t, x: x.tan(), ((4,),), -1.0, 1.0),
    Op("tanh", lambda t, x: x.tanh(), ((3, 4),)),
    Op("sinh", lambda t, x: x.sinh(), ((4,),)),
    Op("cosh", lambda t, x: x.cosh(), ((4,),)),
    Op("asin", lambda t, x: x.asin(), ((4,),), -0.9, 0.9),
    Op("acos", lambda t, x: x.acos(), ((4,),), -0.9, 0.9),
    Op("atan", lambda t, x: x.atan(), ((4,),)),
    Op("sigmoid", lambda t, x: x.sigmoid(), ((3, 4),)),
    Op("relu", lambda t, x: x.relu(), ((3, 4),)),
    Op("abs", lambda t, x: x.abs(), ((3, 4),)),
    Op("sqrt", lambda t, x: x.sqrt(), ((3, 4),), 0.5, 3.0),
    Op("rsqrt", lambda t, x: x.rsqrt(), ((3, 4),), 0.5, 3.0),
    Op("reciprocal", lambda t, x: x.reciprocal(), ((3, 4),), 0.5, 3.0),
    Op("erf", lambda t, x: x.erf(), ((5,),)),
    Op("square", lambda t, x: x.square(), ((3,),)),
    Op("pow_scalar", lambda t, x: x ** 3, ((3, 4),)),
    Op("pow_fractional", lambda t, x: x ** 2.5, ((3,),), 0.5, 2.0),
    Op("pow_tensor", lambda t, x, y: x ** y, ((3,), (3,)), 0.5, 2.0),
    Op("rpow", lambda t, x: 2 ** x, ((3,),)),
    Op("add", lambda t, x, y: x + y, ((3, 4), (3, 4))),
    Op("add_broadcast", lambda t, x, y: x + y, ((3, 1), (1, 4))),
    Op("add_alpha", lambda t, x, y: t.add(x, y, alpha=2.5), ((3,), (3,))),
    Op("sub", lambda t, x, y: x - y, ((3, 4), (4,))),
    Op("rsub", lambda t, x: 2 - x, ((3,),)),
    Op("mul", lambda t, x, y: x * y, ((3, 4), (3, 4))),
    Op("mul_scalar", lambda t, x: x * 2.5, ((3, 4),)),
    Op("div", lambda t, x, y: x / y, ((3, 4), (3, 4)), 0.5, 2.0),
    Op("rdiv", lambda t, x: 2 / x, ((3,),), 0.5, 2.0),
    Op("maximum", lambda t, x, y: t.maximum(x, y), ((5,), (5,))),
    Op("minimum", lambda t, x, y: t.minimum(x, y), ((5,), (5,))),
    Op("atan2", lambda t, x, y: t.atan2(x, y), ((4,), (4,)), 0.5, 2.0),
    Op("clamp", lambda t, x: x.clamp(-0.5, 0.5), ((3, 4),)),
    Op("where", lambda t, x, y: t.where(x > 0, x, y), ((3, 4), (3, 4))),
    Op("lerp", lambda t, x, y: t.lerp(x, y, 0.3), ((4,), (4,))),
    Op("addcmul", lambda t, x, y, z: t.addcmul(x, y, z, value=0.5), ((3,), (3,), (3,))),
    Op("mm", lambda t, x, y: x @ y, ((3, 4), (4, 2))),
    Op("mv", lambda t, x, y: x @ y, ((3, 4), (4,))),
    Op("dot", lambda t, x, y: x @ y, ((4,), (4,))),
    Op("vec_mat", lambda t, x, y: x @ y, ((4,), (4, 2))),
    Op("bmm", lambda t, x, y: x @ y, ((2, 3, 4), (2, 4, 2))),
    Op("batched_matrix", lambda t, x, y: x @ y, ((2, 3, 4), (4, 2))),
    Op("broadcast_batched", lambda t, x, y: x @ y, ((2, 1, 3, 4), (3, 4, 2))),
    Op("addmm", lambda t, b, x, y: t.addmm(b, x, y), ((2,), (3, 4), (4, 2))),
    Op("baddbmm", lambda t, b, x, y: t.baddbmm(b, x, y, beta=0.5, alpha=2.0), ((1, 3, 2), (2, 3, 4), (2, 4, 2))),
    Op("sum", lambda t, x: x.sum(), ((3, 4),)),
    Op("sum_dim", lambda t, x: x.sum(1), ((3, 4),)),
    Op("sum_dims_keepdim", lambda t, x: x.sum((0, 2), keepdim=True), ((2, 3, 4),)),
    Op("mean", lambda t, x: x.mean(), ((3, 4),)),
    Op("mean_dim", lambda t, x: x.mean(-1), ((3, 4),)),
    Op("max", lambda t, x: x.max(), ((3, 4),)),
    Op("max_dim", lambda t, x: x.max(1)[0], ((3, 4),)),
    Op("min_dim_keepdim", lambda t, x: x.min(0, keepdim=True)[0], ((3, 4),)),
    Op("amax", lambda t, x: x.amax(1), ((3, 4),)),
    Op("prod", lambda t, x: x.prod(), ((4,),), 0.5, 2.0),
    Op("var", lambda t, x: x.var(), ((3, 4),)),
    Op("var_dim", lambda t, x: x.var(1), ((3, 4),)),
    Op("std_dim", lambda t, x: x.std(0, keepdim=True), ((3, 4),)),
    Op("norm", lambda t, x: x.norm(), ((3, 4),)),
    Op("norm_dim", lambda t, x: x.norm(dim=1), ((3, 4),)),
    Op("logsumexp", lambda t, x: x.logsumexp(1), ((3, 4),)),
    Op("softmax", lambda t, x: t.softmax(x, 1), ((3, 4),)),
    Op("safe_softmax", lambda t, x: t._safe_softmax(x, -1), ((3, 4),)),
    Op("log_softmax", lambda t, x: t.log_softmax(x, -1), ((3, 4),)),
    Op("cumsum", lambda t, x: x.cumsum(1), ((3, 4),)),
    Op("view", lambda t, x: x.view(4, 3), ((3, 4),)),
    Op("reshape_copy", lambda t, x: x.t().reshape(12), ((3, 4),)),
    Op("transpose", lambda t, x: x.transpose(0, 2), ((2, 3, 4),)),
    Op("permute", lambda t, x: x.permute(2, 0, 1), ((2, 3, 4),)),
    Op("t", lambda t, x: x.t(), ((3, 4),)),
    Op("squeeze", lambda t, x: x.squeeze(1), ((3, 1, 4),)),
    Op("unsqueeze", lambda t, x: x.unsqueeze(1), ((3, 4),)),
    Op("expand", lambda t, x: x.expand(2, 3, 4), ((3, 1),)),
    Op("select", lambda t, x: x[1], ((3, 4),)),
    Op("slice", lambda t, x: x[:, 1:3], ((3, 4),)),
    Op("step_slice", lambda t, x: x[::2, ::3], ((5, 7),)),
    Op("index", lambda t, x: x[[0, 2, 2]], ((3, 4),)),
    Op("mask_index", lambda t, x: x[x > 0], ((3, 4),)),
    Op("narrow", lambda t, x: x.narrow(1, 1, 2), ((3, 4),)),
    Op("diagonal", lambda t, x: x.diagonal(), ((3, 4),)),
    Op("diagonal_offset", lambda t, x: x.diagonal(1), ((3, 4),)),
    # trace's gradient, recorded when the gradient reaching it requires grad: zeros.index_fill_(...).view
    Op("trace_after_asinh", lambda t, x: t.asinh(x.trace()), ((3, 4),)),
    Op("unbind", lambda t, x: x.unbind(1)[1] * x.unbind(1)[2], ((3, 4),)),
    Op("split", lambda t, x: x.split(2, 1)[1], ((3, 5),)),
    Op("chunk", lambda t, x: x.chunk(2)[0], ((4, 2),)),
    Op("cat", lambda t, x, y: t.cat([x, y], 1), ((3, 2), (3, 4))),
    Op("stack", lambda t, x, y: t.stack([x, y], 1), ((3, 4), (3, 4))),
    Op("clone", lambda t, x: x.clone(), ((3, 4),)),
    Op("repeat", lambda t, x: x.repeat(2, 3), ((2, 2),)),
    Op("flip", lambda t, x: x.flip(0), ((3, 4),)),
    Op("tril", lambda t, x: x.tril(), ((3, 3),)),
    Op("triu", lambda t, x: x.triu(1), ((3, 3),)),
    Op("index_select", lambda t, x: x.index_select(1, t.tensor([0, 2, 0], device=x.device)), ((3, 4),)),
    Op("gather", lambda t, x: x.gather(1, t.tensor([[0, 1], [2, 0], [3, 3]], device=x.device)), ((3, 4),)),
    Op("masked_fill", lambda t, x: x.masked_fill(x > 0, 0.5), ((3, 4),)),
    Op("to_double", lambda t, x: x.to(t.float64) * x.to(t.float64), ((3,),)),
    Op("setitem", lambda t, x: _setitem(x), ((4,),)),
    Op("inplace_exp", lambda t, x: (x * 1).exp_(), ((3,),)),
    Op("inplace_mul", lambda t, x, y: (x * 1).mul_(y), ((3,), (3,))),
    Op("mse_loss", lambda t, x, y: t.nn.functional.mse_loss(x, y), ((3, 4), (3, 4))),
    Op("cross_entropy", lambda t, x: t.nn.functional.cross_entropy(x, t.tensor([0, 3, 1], device=x.device)), ((3, 4),)),
    Op("bce", lambda t, x, y: t.nn.functional.binary_cross_entropy(x.sigmoid(), y.sigmoid()), ((4,), (4,))),
    Op("bce_logits", lambda t, x, y: t.nn.functional.binary_cross_entropy_with_logits(x, y.sigmoid()), ((4,), (4,))),
    Op("gelu", lambda t, x: t.nn.functional.gelu(x), ((5,),)),
    Op("silu", lambda t, x: t.nn.functional.silu(x), ((5,),)),
    Op("leaky_relu", lambda t, x: t.nn.functional.leaky_relu(x, 0.1), ((5,),)),
    Op("elu", lambda t, x: t.nn.functional.elu(x), ((5,),)),
    Op("softplus", lambda t, x: t.nn.functional.softplus(x), ((5,),)),
    Op("hardtanh", lambda t, x: t.nn.functional.hardtanh(x, -0.5, 0.5), ((5,),)),
    # Ops whose node class no other operator test produced (tests/test_derivative_table.py)
    Op("exp2", lambda t, x: x.exp2(), ((4,),)),
    Op("log2", lambda t, x: x.log2(), ((4,),), 0.5, 3.0),
    Op("log10", lambda t, x: x.log10(), ((4,),), 0.5, 3.0),
    Op("frac", lambda t, x: x.frac(), ((5,),)),
    Op("round", lambda t, x: x.round(), ((5,),)),
    Op("floor", lambda t, x: x.floor(), ((5,),)),
    Op("ceil", lambda t, x: x.ceil(), ((5,),)),
    Op("trunc", lambda t, x: x.trunc(), ((5,),)),
    Op("sign", lambda t, x: x.sign(), ((5,),)),
    Op("nan_to_num", lambda t, x: (x.log() * 0).nan_to_num(), ((5,),)),
    Op("clamp_min", lambda t, x: x.clamp_min(-0.5), ((5,),)),
    Op("clamp_max", lambda t, x: x.clamp_max(0.5), ((5,),)),
    Op("clamp_min_tensor", lambda t, x, y: t.clamp_min(x, y), ((5,), (5,))),
    Op("clamp_max_tensor_broadcast", lambda t, x, y: t.clamp_max(x, y), ((3, 4), (4,))),
    Op("min", lambda t, x: x.min(), ((3, 4),)),
    Op("amin", lambda t, x: x.amin(0), ((3, 4),)),
    Op("rsub_tensor", lambda t, x, y: t.rsub(x, y, alpha=2), ((3,), (3,))),
    Op("split_with_sizes", lambda t, x: x.split([2, 3], 1)[1], ((3, 5),)),
    Op("squeeze_all", lambda t, x: x.squeeze(), ((3, 1, 4, 1),)),
    Op("squeeze_dims", lambda t, x: x.squeeze((1, 3)), ((3, 1, 4, 1),)),
    Op("unfold", lambda t, x: x.unfold(1, 2, 1), ((3, 4),)),
    Op("alias", lambda t, x: x[...], ((3, 4),)),
    Op("complex", lambda t, x, y: t.complex(x, y), ((3,), (3,))),
    Op("conj", lambda t, x, y: t.complex(x, y).conj(), ((3,), (3,))),
    Op("conj_physical", lambda t, x, y: t.complex(x, y).conj_physical(), ((3,), (3,))),
    Op("real", lambda t, x, y: t.complex(x, y).real * 2, ((3,), (3,))),
    Op("imag", lambda t, x, y: t.complex(x, y).imag, ((3,), (3,))),
    Op("view_as_real", lambda t, x, y: t.view_as_real(t.complex(x, y)), ((3,), (3,))),
    Op("view_as_complex", lambda t, x: t.view_as_complex(x), ((3, 2),)),
    Op("fill", lambda t, x: (x * 1).fill_(2.0), ((3,),)),
    Op("fill_tensor", lambda t, x, y: (x * 1).fill_(y.sum()), ((3,), (2,))),
    Op("zero", lambda t, x: (x * 1).zero_(), ((3,),)),
    Op("index_put", lambda t, x, y: _index_put(t, x, y), ((4,), (2,))),
    # calls of torch's op_db samples (opinfo.*): reflected operators with a tensor on the left, a norm over
    # dim 0 of a 0-dim tensor, tensordot over contracted dimensions of size one and down to one element
    Op("rmod_tensor", lambda t, x, y: x.__rmod__(y * 3), ((3,), (3,)), 0.5, 2.0),
    Op("rpow_tensor", lambda t, x, y: x.__rpow__(y), ((3,), (3,)), 0.5, 2.0),
    Op("norm_0dim_dim0", lambda t, x: t.norm(x, 2, 0), ((),), 0.5, 2.0),
    Op("tensordot_broadcast", lambda t, x, y: t.tensordot(x, y, dims=([0, 1], [2, 0])), ((1, 1, 1), (2, 1, 2))),
    Op("tensordot_one_element", lambda t, x, y: t.tensordot(x, y, dims=1), ((1, 3), (3, 1))),
    Op("round_decimals_0", lambda t, x: t.round(x * 3, decimals=0), ((5,),)),  # round.decimals: RoundBackward1
    # the nuclear norm: the sum of the singular values (LinalgSvdBackward0); wide, tall, batched and kept dims
    Op("norm_nuc", lambda t, x: t.norm(x, "nuc"), ((3, 4),)),
    Op("norm_nuc_tall_keepdim", lambda t, x: t.norm(x, "nuc", None, True), ((5, 3),)),
    Op("norm_nuc_batched", lambda t, x: t.norm(x, "nuc", [2, 0]), ((3, 2, 4),)),
    # the infinity norm's gradient: the whole grad at the largest difference (NaN from the p-norm formula)
    Op("cdist_inf", lambda t, a, b: t.cdist(a, b, p=float("inf")), ((1, 1, 2), (2, 1, 2, 2)), second_order=False),
    *POINTWISE_OPS,
    *COMPLEX_OPS,
    *ACTIVATION_OPS,
    *REDUCTION_OPS,
    *SHAPE_OPS,
    *INDEXING_OPS,
    *LOSS_OPS,
    *NN_OPS,
    *LINALG_OPS,
]


def _index_put(t, x, y):
    z = x * 1
    z[t.tensor([0, 2], device=x.device)] = y * 3
    return z


def _setitem(x):
    y = x * 1
    y[1:3] = x[:2] * 2
    return y


def _run(namespace, op: Op, arrays, dtype_name: str, device: str = "cpu"):
    dtype = getattr(namespace, dtype_name)
    inputs = [namespace.tensor(a, dtype=dtype, requires_grad=True, device=device) for a in arrays]
    out = op.fn(namespace, *inputs)
    return inputs, out


def _close(mine, ref, dtype_name: str, what: str) -> None:
    rtol, atol = TOLERANCE[dtype_name]
    np.testing.assert_allclose(np.asarray(mine.tolist()), _values(ref), rtol=rtol, atol=atol, err_msg=what)


def _values(ref) -> np.ndarray:
    """Torch may answer with a ZeroTensor, which has no storage to read."""
    if ref._is_zerotensor():
        return np.zeros(tuple(ref.shape))
    return np.asarray(ref.tolist())


def _grads(namespace, out, inputs, v, create_graph):
    return namespace.autograd.grad(out, inputs, v, create_graph=create_graph, allow_unused=True)


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("op", OPS, ids=lambda o: o.name)
def test_op_matches_torch(op: Op, dtype_name: str, mydevice: str):
    device = mydevice
    rng = np.random.default_rng(zlib.crc32(op.name.encode()))  # the same inputs in every process
    arrays = [rng.uniform(op.low, op.high, shape) for shape in op.shapes]
    mine_inputs, mine_out = _run(myautograd, op, arrays, dtype_name, device)
    assert mine_out.device.type == device
    ref_inputs, ref_out = _run(torch, op, arrays, dtype_name)
    assert str(mine_out.dtype) == str(ref_out.dtype)
    assert tuple(mine_out.shape) == tuple(ref_out.shape)
    assert type(mine_out.grad_fn).__name__ == type(ref_out.grad_fn).__name__
    _close(mine_out, ref_out, dtype_name, "forward values")

    v = rng.uniform(-1, 1, tuple(ref_out.shape))
    mine_g = _grads(myautograd, mine_out, mine_inputs, myautograd.tensor(v, dtype=mine_out.dtype, device=device), True)
    ref_g = _grads(torch, ref_out, ref_inputs, torch.tensor(v, dtype=ref_out.dtype), True)
    for index, (m, r) in enumerate(zip(mine_g, ref_g)):
        assert (m is None) == (r is None), f"gradient {index}: None on one side only"
        if r is not None:
            _close(m, r, dtype_name, f"first derivative of input {index}")
            assert m.requires_grad == r.requires_grad, f"gradient {index}: requires_grad"

    if not op.second_order:
        return
    pairs = [(m, r) for m, r in zip(mine_g, ref_g) if r is not None and r.requires_grad]
    if not pairs:
        return
    weights = [rng.uniform(-1, 1, tuple(r.shape)) for _, r in pairs]
    mine_total = sum((m * myautograd.tensor(w, dtype=m.dtype, device=device)).sum() for (m, _), w in zip(pairs, weights))
    ref_total = sum((r * torch.tensor(w, dtype=r.dtype)).sum() for (_, r), w in zip(pairs, weights))
    mine_gg = myautograd.autograd.grad(mine_total, mine_inputs, allow_unused=True)
    ref_gg = torch.autograd.grad(ref_total, ref_inputs, allow_unused=True)
    for index, (m, r) in enumerate(zip(mine_gg, ref_gg)):
        if r is None:
            assert m is None or not np.any(np.asarray(m.tolist())), f"second derivative {index}: torch has none"
        else:
            assert m is not None, f"second derivative {index}: missing"
            _close(m, r, dtype_name, f"second derivative of input {index}")


# -- random ops: torch's node, and the gradient read back from our own output -----------------------------
@dataclass
class RandomOp:
    """An op whose values are random (NumPy's generator is not torch's): its node must be torch's,
    and its gradient what the derivative read from the output says."""

    name: str
    fn: Callable
    derivative: Callable  # (x, out) -> d out / d x, elementwise, as arrays
    cuda_node: str  # torch's node on CUDA, where its kernel differs from the CPU's


RANDOM_OPS = [
    RandomOp("bernoulli", lambda t, x: t.bernoulli(x), lambda x, out: np.zeros_like(x), "BernoulliBackward0"),
    RandomOp("dropout", lambda t, x: t.nn.functional.dropout(x, 0.4), lambda x, out: out / x,
             "NativeDropoutBackward0"),
]


@pytest.mark.parametrize("op", RANDOM_OPS, ids=lambda o: o.name)
def test_random_op_node_and_gradient(op: RandomOp, mydevice: str):
    rng = np.random.default_rng(zlib.crc32(op.name.encode()))
    values = rng.uniform(0.2, 0.8, (50,))
    x = myautograd.tensor(values, requires_grad=True, device=mydevice)
    out = op.fn(myautograd, x)
    if mydevice == "cpu":
        expected = type(op.fn(torch, torch.tensor(values, requires_grad=True)).grad_fn).__name__
    else:
        expected = op.cuda_node
    assert type(out.grad_fn).__name__ == expected
    v = rng.uniform(-1, 1, values.shape)
    (grad,) = myautograd.autograd.grad(out, x, myautograd.tensor(v, device=mydevice))
    np.testing.assert_allclose(grad.tolist(), v * op.derivative(values, np.asarray(out.tolist())), rtol=1e-12)


@pytest.mark.parametrize("name", ["relu", "relu6", "hardtanh"])
def test_a_nan_input_passes_its_gradient_through_as_torchs_threshold_backward_does(name: str):
    """torch zeroes the gradient where the input is at or beyond the threshold (``x <= 0``): a NaN is
    neither, so its gradient passes (found by the fuzzer: ``torch.func.grad`` of ``relu(std_mean(empty))``)."""
    values = [float("nan"), 0.0, 6.0, -1.0, 1.0, 0.5]
    gradients = []
    for library in (torch, myautograd):
        x = library.tensor(values, requires_grad=True)
        gradient, = library.autograd.grad(getattr(library.nn.functional, name)(x).sum(), [x])
        gradients.append(gradient.tolist())
    assert gradients[1] == gradients[0]



@pytest.mark.parametrize(("call", "shapes"), [
    (lambda t, x, y: t.matmul(x, y), ((5, 5, 4), (1, 4, 3))),  # a batch of one that requires grad is squeezed
    (lambda t, x, y: t.matmul(x, y), ((1, 5, 4), (5, 4, 3))),
    (lambda t, x, y: t.matmul(x, y), ((1, 5, 4), (1, 4, 3))),  # both of one: bmm
    (lambda t, x, y: t.matmul(x, y.detach()), ((5, 5, 4), (1, 4, 3))),  # not requiring grad: bmm
    (lambda t, x, y: x.squeeze() * y, ((3, 1, 4, 1), (3, 4))),
    (lambda t, x, y: x.squeeze(-1) * y, ((3, 1, 4, 1), (3, 1, 4))),
    (lambda t, x, y: x.squeeze(0) * y, ((3, 1, 4, 1), (3, 1, 4, 1))),  # not of size one: no unsqueeze
    (lambda t, x, y: x.squeeze((1, 3)) * y, ((3, 1, 4, 1), (3, 4))),
])
def test_the_graphs_of_gradients_through_squeezes_and_matmul_are_torchs(call, shapes):
    """A squeeze's gradient is torch's ``unsqueeze_to`` (one UnsqueezeBackward0 per dimension of size one
    put back, as the second-order graphs of op_db's matmul samples show), and matmul squeezes a batch of
    one beside a longer batch where it requires grad (its gradient one mm)."""
    def graphs(namespace):
        inputs = [namespace.ones(shape, dtype=namespace.float64, requires_grad=True) for shape in shapes]
        out = call(namespace, *inputs)
        grads = namespace.autograd.grad(out, inputs, namespace.ones_like(out, requires_grad=True), create_graph=True,
                                        allow_unused=True)
        return [graph_names(out)] + [None if g is None else graph_names(g) for g in grads]

    assert graphs(myautograd) == graphs(torch)


@pytest.mark.parametrize(("shape", "dim"), [((3, 4), None), ((5, 3), None), ((3, 2, 4), [2, 0]), ((4, 4), None)])
def test_the_nuclear_norm_s_forward_mode_tangents_are_torchs(shape, dim):
    """The SVD's forward rule (svd_math.svd_jvp): the tangent of the norm (through dS), and of its gradient
    (forward-over-reverse, through dU and dVh), for wide, tall, batched and square matrices."""
    rng = np.random.default_rng(len(shape) * 10 + shape[0])
    values, tangent, grad = rng.uniform(-2, 2, shape), rng.uniform(-1, 1, shape), rng.uniform(-1, 1)

    def tangents(namespace):
        forward_ad = namespace.autograd.forward_ad
        x = namespace.tensor(values, dtype=namespace.float64, requires_grad=True)
        with forward_ad.dual_level():
            dual = forward_ad.make_dual(x, namespace.tensor(tangent, dtype=namespace.float64))
            out = namespace.norm(dual, "nuc", dim)
            gradient, = namespace.autograd.grad(out, dual, namespace.full_like(out, grad), create_graph=True)
            return (forward_ad.unpack_dual(out).tangent.tolist(), forward_ad.unpack_dual(gradient).tangent.tolist())

    for mine, theirs in zip(tangents(myautograd), tangents(torch)):
        np.testing.assert_allclose(np.asarray(mine), np.asarray(theirs), rtol=1e-9, atol=1e-12)
