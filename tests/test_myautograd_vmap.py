"""myautograd's ``vmap`` and what is built on it, against torch.func: the same calls on both, the same results
and errors.

Each call runs with ``t`` the library: results are compared as nested structures (tensors by value, shape
and ``requires_grad``), an error by type and message. The batching rules are checked op by op (each call
vmaps one op over a batch, so a rule that mixes samples or drops the batch shows), and then the
transforms built on vmap: grad and vjp under vmap, jacrev, model ensembling.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import myautograd
from myautograd import _batched
from myautograd.func import _vmap


def structure(value):
    if isinstance(value, dict):
        return "dict", {key: structure(item) for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value).__name__ if type(value) in (tuple, list) else "namedtuple", [structure(v) for v in value]
    if isinstance(value, (torch.Tensor, myautograd.Tensor)):
        array = value.detach().numpy() if isinstance(value, torch.Tensor) else np.asarray(value.detach().tolist())
        return "tensor", Values(np.asarray(array, dtype=np.float64).ravel()), tuple(value.shape), value.requires_grad
    return value


class Values:
    """A tensor's values, equal to another's within float32 rounding (NaNs equal where both are NaN)."""

    def __init__(self, array):
        self.array = array

    def __eq__(self, other):
        return isinstance(other, Values) and self.array.shape == other.array.shape and \
            np.allclose(self.array, other.array, rtol=1e-4, atol=1e-5, equal_nan=True)

    def __len__(self):
        return len(self.array)

    def __getitem__(self, index):
        return Values(self.array[index])

    def __repr__(self):
        return repr(self.array.tolist())


def outcome(call, t):
    """What ``call(t)`` returns or raises, and the warnings it gives."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = "returned", structure(call(t))
        except Exception as error:  # noqa: BLE001 - the error itself is what is compared
            result = "raised", type(error).__name__, str(error)
    # torch's fallback warning (ops it has no batching rule for) is compared too, less where torch raised it
    return *result, [f"{w.category.__name__}: {str(w.message).split(' (Triggered internally at')[0]}" for w in caught]


def batch(t, *shape):
    """A batch of distinct values (shape[0] samples), the same on both libraries."""
    count = int(np.prod(shape))
    return t.tensor((np.arange(count, dtype=np.float32).reshape(shape) * 0.37 - 1.3).tolist())


ONE_OP = {
    "exp": lambda t, x: x.exp(),
    "sigmoid, relu": lambda t, x: t.sigmoid(x) + t.relu(x - 0.5),
    "add a constant tensor": lambda t, x: x + t.tensor([1.0, -2.0, 3.0, 0.5]),
    "mul by an unbatched row broadcast": lambda t, x: x * t.tensor([[2.0], [3.0], [-1.0]]),
    "sum over dim 1": lambda t, x: x.sum(1),
    "sum of everything": lambda t, x: x.sum(),
    "mean(-1, keepdim=True)": lambda t, x: x.mean(-1, keepdim=True),
    "var over a tuple of dims": lambda t, x: x.var((0, 1)),
    "max over dim 0 (values and indices)": lambda t, x: x.max(0),
    "max of everything": lambda t, x: x.max(),
    "argmax without dim": lambda t, x: x.argmax(),
    "softmax(-1)": lambda t, x: t.softmax(x, -1),
    "log_softmax(0)": lambda t, x: x.log_softmax(0),
    "cumsum(1)": lambda t, x: x.cumsum(1),
    "transpose(0, 1)": lambda t, x: x.transpose(0, 1),
    "t()": lambda t, x: x.t(),
    "T": lambda t, x: x.T,
    "permute(1, 0)": lambda t, x: x.permute(1, 0),
    "reshape(-1)": lambda t, x: x.reshape(-1),
    "view(2, 6)": lambda t, x: x.view(2, 6),
    "unsqueeze(-1)": lambda t, x: x.unsqueeze(-1),
    "unsqueeze(0) then squeeze()": lambda t, x: x.unsqueeze(0).squeeze(),
    "flatten": lambda t, x: x.flatten(),
    "expand(2, 3, 4)": lambda t, x: x.expand(2, 3, 4),
    "repeat(2, 1)": lambda t, x: x.repeat(2, 1),
    "flip((0, 1))": lambda t, x: x.flip((0, 1)),
    "indexing [1:, ::2]": lambda t, x: x[1:, ::2],
    "indexing [..., 0]": lambda t, x: x[..., 0],
    "indexing [None, 2]": lambda t, x: x[None, 2],
    "select(1, 2)": lambda t, x: x.select(1, 2),
    "narrow(1, 1, 2)": lambda t, x: x.narrow(1, 1, 2),
    "chunk(2, 1)": lambda t, x: x.chunk(2, 1),
    "unbind(0)": lambda t, x: x.unbind(0),
    "split(1)": lambda t, x: x.split(1),
    "cat with an unbatched tensor": lambda t, x: t.cat([x, t.ones(1, 4)]),
    "stack at dim -1": lambda t, x: t.stack([x, x * 2], -1),
    "matmul by an unbatched matrix": lambda t, x: x @ t.ones(4, 2),
    "matmul of an unbatched matrix and the sample": lambda t, x: t.ones(2, 3) @ x,
    "mv": lambda t, x: t.mv(x, t.tensor([1.0, 0.0, -1.0, 2.0])),
    "matmul of the sample by itself transposed": lambda t, x: x @ x.mT,
    "dot of two rows": lambda t, x: t.dot(x[0], x[1]),
    "outer": lambda t, x: t.outer(x[0], x[1]),
    "linear": lambda t, x: t.nn.functional.linear(x, t.ones(2, 4), t.tensor([1.0, -1.0])),
    "where": lambda t, x: t.where(x > 0, x, -x),
    "clamp": lambda t, x: x.clamp(-0.5, 0.5),
    "norm over dim 1": lambda t, x: x.norm(dim=1),
    "logsumexp(1)": lambda t, x: x.logsumexp(1),
    "zeros_like": lambda t, x: t.zeros_like(x) + 1,
    "new_zeros: unbatched": lambda t, x: x.new_zeros(2) + x[0, :2],
    "diagonal": lambda t, x: x.diagonal(),
    "tril": lambda t, x: x.tril(),
    "movedim": lambda t, x: x.movedim(0, 1),
    "layer_norm": lambda t, x: t.nn.functional.layer_norm(x, (4,)),
    "mse_loss via sum": lambda t, x: ((x - 1.0) ** 2).mean(),
    "view_as, expand_as": lambda t, x: x.view_as(x) + x[0].expand_as(x),
    "in-place on a clone": lambda t, x: x.clone().mul_(2).add_(1),
    "setitem on a clone": lambda t, x: _set_first_row(x.clone()),
    "batch_norm without running statistics": lambda t, x: t.nn.functional.batch_norm(x, None, None, training=True),
    "prod()": lambda t, x: (x / 4).prod(),
    "prod(1)": lambda t, x: x.prod(1),
    "mse_loss": lambda t, x: t.nn.functional.mse_loss(x, t.ones(3, 4)),
    "l1_loss, sum": lambda t, x: t.nn.functional.l1_loss(x, t.ones(4), reduction="sum"),
    "smooth_l1_loss, none": lambda t, x: t.nn.functional.smooth_l1_loss(x, x.flip(1), reduction="none"),
    "cross_entropy of rows": lambda t, x: t.nn.functional.cross_entropy(x, t.tensor([0, 2, 1])),
    "nll_loss of one row": lambda t, x: t.nn.functional.nll_loss(x[0].log_softmax(0), t.tensor(2)),
    "conv1d": lambda t, x: t.nn.functional.conv1d(x.unsqueeze(0), t.ones(2, 3, 2) / 5),
    "conv1d of an unbatched sample": lambda t, x: t.nn.functional.conv1d(x, t.ones(2, 3, 2) / 5, padding=1),
    "max_pool2d": lambda t, x: t.nn.functional.max_pool2d(x.unsqueeze(0).unsqueeze(0), 2),
    "avg_pool2d": lambda t, x: t.nn.functional.avg_pool2d(x.unsqueeze(0), 2, stride=1),
    "addmm": lambda t, x: t.addmm(t.ones(3, 2), x, t.ones(4, 2) / 3, beta=0.5),
    "gather": lambda t, x: x.gather(1, t.tensor([[0, 1], [2, 3], [1, 1]])),
    "roll without dims": lambda t, x: x.roll(1),
    "roll(1, 0)": lambda t, x: x.roll(1, 0),
    "trace": lambda t, x: x[:, :3].trace(),
    "cosine_similarity": lambda t, x: t.nn.functional.cosine_similarity(x, x.flip(1), dim=1),
    "unfold": lambda t, x: x.unfold(1, 2, 1),
    "pad": lambda t, x: t.nn.functional.pad(x, (1, 2)),
    "matmul of a vector and a stack of matrices": lambda t, x: x[0, :3] @ t.ones(2, 3, 4),
    "matmul of a stack of matrices and a vector": lambda t, x: t.ones(2, 3, 3) @ x[:, 0],
    "cat with a legacy empty tensor": lambda t, x: t.cat([x, t.ones(0), x], dim=-1),
    "cross_entropy with an ignored target": lambda t, x: t.nn.functional.cross_entropy(x, t.tensor([0, -100, 2])),
    "cross_entropy with probabilities": lambda t, x: t.nn.functional.cross_entropy(x, x.softmax(-1).flip(0)),
    "binary_cross_entropy with a batched weight": lambda t, x: t.nn.functional.binary_cross_entropy(
        x.sigmoid(), t.ones(3, 4) / 2, weight=x.abs()),
    "masked_fill with a batched value": lambda t, x: x.masked_fill(t.tensor([True, False, True, False]), x[0, 0]),
    "norm(p=1)": lambda t, x: x.norm(p=1),
    "norm(p=3, dim=1)": lambda t, x: x.norm(p=3, dim=1),
    "cumsum of a 0-d sample": lambda t, x: x[0, 0].cumsum(0),
    "softmax of a 0-d sample": lambda t, x: t.nn.functional.softmax(x[1, 1], dim=0),
    "scatter_ in place": lambda t, x: x.clone().scatter_(1, t.tensor([[0], [1], [2]]), x[:, 3:]),
    "leaky_relu_ in place": lambda t, x: t.nn.functional.leaky_relu_(x.clone(), 0.5),
    "layer_norm with a batched weight and bias": lambda t, x: t.nn.functional.layer_norm(x, (4,), x[0], x[1]),
    "layer_norm of an unbatched input, batched weight": lambda t, x: t.nn.functional.layer_norm(
        t.ones(2, 4).cumsum(1), (4,), x[0]),
    "group_norm with a batched weight": lambda t, x: t.nn.functional.group_norm(x.reshape(1, 6, 2), 3, x[:2, :3].flatten(),
                                                                                x[2, :2].repeat(3)),
    "one_hot without num_classes refused": lambda t, x: t.nn.functional.one_hot((x > 0).long()),
    "one_hot with num_classes": lambda t, x: t.nn.functional.one_hot((x > 0).long(), 2),
    "batch_norm training with unbatched running stats refused": lambda t, x: t.nn.functional.batch_norm(
        x.reshape(2, 3, 2), t.zeros(3), t.ones(3), training=True),
    "conv1d with a batched weight and bias": lambda t, x: t.nn.functional.conv1d(x.reshape(1, 3, 4), x[:, :2].unsqueeze(0),
                                                                             x[0, :1]),
    "conv1d with a batched weight in groups": lambda t, x: t.nn.functional.conv1d(x.reshape(1, 3, 4),
                                                                              x[:, 1:3].unsqueeze(1), groups=3),
    "conv1d of an unbatched input without its batch dimension": lambda t, x: t.nn.functional.conv1d(
        t.ones(3, 5).cumsum(1), x[:, :2].unsqueeze(0), padding=1),
    "conv_transpose1d with a batched weight": lambda t, x: t.nn.functional.conv_transpose1d(
        x.reshape(1, 3, 4), x[:, :2].unsqueeze(1).expand(3, 2, 2), stride=2),
    "einsum with an unbatched operand": lambda t, x: t.einsum("ij,jk->ik", x, t.ones(4, 2).cumsum(0)),
    "einsum of two batched operands, implicit output": lambda t, x: t.einsum("ij,kj", x, x.flip(0)),
    "einsum with an ellipsis": lambda t, x: t.einsum("...ij->...ji", x.reshape(3, 2, 2)),
    "tensordot dims=1": lambda t, x: t.tensordot(x, x[0], dims=1),
    "tensordot explicit dims": lambda t, x: t.tensordot(x.reshape(3, 2, 2), x[:2, :3], dims=([1, 0], [0, 1])),
    "diag of a vector, above": lambda t, x: t.diag(x[0], 2),
    "diag of a vector, below": lambda t, x: x[1].diag(-1),
    "diag of a matrix": lambda t, x: t.diag(x, 1),
    "embedding from a batched table": lambda t, x: t.nn.functional.embedding(t.tensor([[2, 0], [1, 2]]), x),
    "embedding from a batched table, padding_idx": lambda t, x: t.func.grad(
        lambda w: t.nn.functional.embedding(t.tensor([0, 2, 0]), w, padding_idx=0).sum())(x),
    "pad, reflect": lambda t, x: t.nn.functional.pad(x, (1, 2), mode="reflect"),
    "pad, circular in two dimensions": lambda t, x: t.nn.functional.pad(x.unsqueeze(0), (1, 1, 1, 1), mode="circular"),
    "an index tensor, then a slice": lambda t, x: x[t.tensor([2, 0, 2]), 1:],
    "a slice, then a list": lambda t, x: x[:, [3, 0]],
    "an integer and an index tensor": lambda t, x: x[-1, t.tensor([[0, 1], [3, 3]])],
    "an unbatched mask": lambda t, x: x[t.tensor([True, False, True])],
    "cross_entropy with batched class weights": lambda t, x: t.nn.functional.cross_entropy(
        x, t.tensor([0, 3, 3]), weight=x[0].abs()),
    "cross_entropy with an ignore_index": lambda t, x: t.nn.functional.cross_entropy(x, t.tensor([1, 3, 0]),
                                                                                     ignore_index=1),
    "nll_loss, every target ignored: NaN": lambda t, x: t.nn.functional.nll_loss(x, t.tensor([-100, -100, -100])),
    "nll_loss gradient, every target ignored": lambda t, x: t.func.grad(
        lambda a: t.nn.functional.nll_loss(a, t.tensor([-100, -100, -100])))(x),
    "nll_loss with weights and a spatial dim, none": lambda t, x: t.nn.functional.nll_loss(
        x.reshape(2, 3, 2), t.tensor([[0, 2], [1, 1]]), weight=t.tensor([0.5, 1.0, 2.0]), reduction="none"),
    "max gradient with a NaN and ties": lambda t, x: t.func.grad(lambda a: a.max())(
        t.where(x > 1, t.tensor(float("nan")), x.clamp(max=0.2))),
    "min gradient with ties": lambda t, x: t.func.grad(lambda a: a.min())(x.clamp(min=-0.5)),
    "var gradient of one NaN element": lambda t, x: t.func.grad(lambda a: a.var())(x[:1, 0] * float("nan")),
    "setitem rows by a list": lambda t, x: _assigned(x, [0, 2], x[1, :4] * 2),
    "setitem through an index tensor": lambda t, x: _assigned(x, (t.tensor([2, 0]), 1), x[0, :2]),
    "setitem through an unbatched mask": lambda t, x: _assigned(x, t.tensor([[True, False] * 2] * 3), 0.5),
    "masked_select with an unbatched, broadcast mask": lambda t, x: x.masked_select(t.tensor([True, False, True, True])),
    "dropout that draws nothing": lambda t, x: t.nn.functional.dropout(x, p=0.0) + t.nn.functional.dropout(x, 0.5, False),
    "dropout of every element": lambda t, x: t.dropout(x, 1.0, True),
    "fft with n, its magnitude": lambda t, x: t.fft.fft(x, n=6).abs(),
    "ifft2 of the sample, ortho": lambda t, x: t.view_as_real(t.fft.ifft2(x, norm="ortho")),
    "rfftn with s: the last dims": lambda t, x: t.fft.rfftn(x, s=(5,)).imag,
    "irfft along dim 0": lambda t, x: t.fft.irfft(x, dim=0),
    "fftn along the dims given": lambda t, x: t.fft.fftn(x, dim=(-1, 0)).real,
    "fft gradient": lambda t, x: t.func.grad(lambda a: t.fft.fft(a).abs().sum())(x),
    "fft of a sample of no dimensions refused": lambda t, x: t.fft.fft(x[0, 0]),
    "boolean mask refused": lambda t, x: x[x > 0],
    "nonzero refused": lambda t, x: x.nonzero(),
    "bool() refused": lambda t, x: x.sum() if bool(x.sum() > 0) else x,
}


def _assigned(x, key, value):
    out = x.clone()
    out[key] = value
    return out


def _set_first_row(x):
    x[0] = x[1] * 3
    return x


@pytest.mark.parametrize("name", ONE_OP)
@pytest.mark.parametrize("in_dim", [0, 2])
def test_one_op_under_vmap_matches_torch(name, in_dim):
    op = ONE_OP[name]

    def call(t):
        samples = batch(t, 5, 3, 4).movedim(0, in_dim)
        return t.func.vmap(lambda x: op(t, x), in_dims=in_dim)(samples)

    assert outcome(call, myautograd) == outcome(call, torch)


def test_one_op_under_vmap_is_each_sample_run_alone():
    """The same, against myautograd itself run sample by sample (no torch in the comparison)."""
    samples = batch(myautograd, 5, 3, 4)
    for name, op in ONE_OP.items():
        if name.startswith("batch_norm") or name.endswith("refused"):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a sample's own warnings (the losses' about sizes), compared elsewhere
            together = structure(myautograd.func.vmap(lambda x, op=op: op(myautograd, x))(samples))
            alone = [structure(op(myautograd, samples[i])) for i in range(5)]
        assert _unstacked(together, 5) == alone, name


def _unstacked(value, count):
    kind, payload, *rest = value
    if kind == "tensor":
        size = len(payload) // count
        return [("tensor", payload[i * size:(i + 1) * size], rest[0][1:], rest[1]) for i in range(count)]
    parts = [_unstacked(item, count) for item in payload]
    return [(kind, [part[i] for part in parts]) for i in range(count)]


def mlp_loss(t):
    def loss(params, x, y):
        hidden = t.tanh(x @ params["w1"] + params["b1"])
        return ((hidden @ params["w2"]).squeeze(-1) - y) ** 2

    return loss


CALLS = {
    # in_dims, out_dims, structure
    "in_dims=(0, None)": lambda t: t.func.vmap(t.dot, in_dims=(0, None))(batch(t, 3, 2), t.tensor([1.0, -1.0])),
    "in_dims nested": lambda t: t.func.vmap(lambda d, p: d["x"] * d["s"] + p[0], in_dims=({"x": 0, "s": None},
                                                                                           (1,)))(
        {"x": batch(t, 3, 2), "s": t.tensor([2.0, 3.0])}, (batch(t, 2, 3),)),
    "out_dims per output": lambda t: t.func.vmap(lambda r: (r.sum(), r * 2), out_dims=(0, 1))(batch(t, 3, 2)),
    "an unbatched output with out_dims=0 is expanded": lambda t: t.func.vmap(lambda r: t.ones(2))(batch(t, 3, 2)),
    "out_dims=None for an unbatched output": lambda t: t.func.vmap(lambda r: (r * 2, t.ones(2)), out_dims=(0, None))(
        batch(t, 3, 2)),
    "chunk_size=2": lambda t: t.func.vmap(lambda r: r.sin() * r[0], chunk_size=2)(batch(t, 5, 2)),
    "vmap of vmap": lambda t: t.func.vmap(t.func.vmap(t.mul, in_dims=(None, 0)), in_dims=(0, None))(
        t.tensor([1.0, 2.0, 3.0]), t.tensor([10.0, -1.0])),
    "vmap of vmap over both dims of one tensor": lambda t: t.func.vmap(t.func.vmap(lambda v: v.sum()))(batch(t, 2, 3, 4)),
    "vmap of vmap, in_dims=1 inside": lambda t: t.func.vmap(t.func.vmap(lambda a, b: a * b, in_dims=(1, None)))(
        batch(t, 2, 3, 4), batch(t, 2, 3)),
    # errors
    "mismatched batch sizes": lambda t: t.func.vmap(t.add)(t.ones(2, 3), t.ones(3, 3)),
    "in_dim out of range": lambda t: t.func.vmap(lambda x: x, in_dims=2)(t.ones(2, 3)),
    "in_dims of another structure": lambda t: t.func.vmap(lambda a, b: a, in_dims=(0,))(t.ones(2), t.ones(2)),
    "in_dims of a nested other structure": lambda t: t.func.vmap(lambda a, b: b, in_dims=({"x": 0}, 0))(
        {"x": t.ones(2), "y": t.ones(2)}, t.ones(2)),
    "in_dims a string": lambda t: t.func.vmap(lambda x: x, in_dims="x")(t.ones(2)),
    "in_dims a float": lambda t: t.func.vmap(lambda x: x, in_dims=(1.5,))(t.ones(2)),
    "nothing batched": lambda t: t.func.vmap(lambda x: x, in_dims=(None,))(t.ones(2)),
    "no inputs": lambda t: t.func.vmap(lambda: t.ones(2))(),
    "a number with in_dim 0": lambda t: t.func.vmap(lambda x: x)(3.0),
    "a non-tensor output": lambda t: t.func.vmap(lambda x: "text")(t.ones(2)),
    "out_dims of another structure": lambda t: t.func.vmap(lambda x: x, out_dims=(0, 1))(t.ones(2, 3)),
    "out_dim out of range": lambda t: t.func.vmap(lambda x: x, out_dims=3)(t.ones(2, 3)),
    "a batched output with out_dims=None": lambda t: t.func.vmap(lambda x: x, out_dims=None)(t.ones(2, 3)),
    "chunk_size=0": lambda t: t.func.vmap(lambda x: x, chunk_size=0)(t.ones(2)),
    "item()": lambda t: t.func.vmap(lambda x: x.sum().item())(t.ones(2, 3)),
    "add_ into an unbatched tensor": lambda t: t.func.vmap(lambda a, b: a.add_(b), in_dims=(None, 0))(
        t.zeros(2), batch(t, 3, 2)),
    "copy_ into an unbatched tensor": lambda t: t.func.vmap(lambda a, b: a.copy_(b), in_dims=(None, 0))(
        t.zeros(2), batch(t, 3, 2)),
    "mul_ into an unbatched tensor": lambda t: t.func.vmap(lambda a, b: a.mul_(b), in_dims=(None, 0))(
        t.zeros(2), batch(t, 3, 2)),
    "add_ into a batched tensor": lambda t: t.func.vmap(lambda a, b: a.add_(b), in_dims=(0, None))(
        t.zeros(3, 2), t.tensor([1.0, -1.0])),
    "randomness='error'": lambda t: t.func.vmap(lambda r: r + t.rand(3))(t.zeros(4, 3)),
    "randomness not a mode": lambda t: t.func.vmap(lambda r: r + t.rand(3), randomness="sometimes")(t.zeros(4, 3)),
    # grad and vjp under vmap
    "per-sample gradients of an MLP": lambda t: t.func.vmap(t.func.grad(mlp_loss(t)), in_dims=(None, 0, 0))(
        {"w1": batch(t, 3, 4) / 4, "b1": t.tensor([0.1, -0.2, 0.3, 0.0]), "w2": batch(t, 4, 1) / 3},
        batch(t, 6, 3), t.tensor([1.0, -1.0, 0.5, 2.0, 0.0, 1.5])),
    "vmap(grad) with argnums=(0, 1)": lambda t: t.func.vmap(t.func.grad(lambda a, b: (a * b.sin()).sum(),
                                                                         argnums=(0, 1)))(batch(t, 3, 2),
                                                                                          batch(t, 3, 2) + 1),
    "vmap(grad_and_value) with has_aux": lambda t: t.func.vmap(t.func.grad_and_value(
        lambda a: ((a ** 3).sum(), a.max()), has_aux=True))(batch(t, 4, 3)),
    "vmap(vjp)": lambda t: t.func.vmap(lambda x, v: t.func.vjp(lambda a: a.sin() * a.sum(), x)[1](v))(
        batch(t, 3, 4), batch(t, 3, 4) + 2),
    "vmap(grad(grad))": lambda t: t.func.vmap(t.func.grad(t.func.grad(lambda a: a.sin() * a ** 3)))(
        t.tensor([0.5, 1.0, -2.0])),
    "grad of a vmapped function": lambda t: t.func.grad(lambda w: t.func.vmap(lambda x: (w * x).sin().sum())(
        batch(t, 3, 2)).sum())(t.tensor([1.0, -0.5])),
    "vmap keeps the graph to a tensor requiring grad": lambda t: t.func.vmap(lambda x, w: (x * w).sum(),
                                                                            in_dims=(0, None))(
        batch(t, 3, 2), t.tensor([1.0, 2.0], requires_grad=True)),
    # jacrev
    "jacrev": lambda t: t.func.jacrev(lambda a, b: a.sin() * b.sum() + b[:1])(t.tensor([1.0, 2.0, 3.0]),
                                                                             t.tensor([0.5, -1.0])),
    "jacrev argnums=1": lambda t: t.func.jacrev(lambda a, b: (a.unsqueeze(1) * b).sum(0), argnums=1)(
        t.tensor([1.0, 2.0]), t.tensor([[0.5, -1.0], [2.0, 3.0]])),
    "jacrev argnums=(0, 1)": lambda t: t.func.jacrev(lambda a, b: a * b, argnums=(0, 1))(
        t.tensor([1.0, 2.0]), t.tensor([3.0, -1.0])),
    "jacrev has_aux": lambda t: t.func.jacrev(lambda a: (a ** 2, a.sum()), has_aux=True)(t.tensor([1.0, 2.0])),
    "jacrev chunk_size=1": lambda t: t.func.jacrev(lambda a: a.exp() * a.sum(), chunk_size=1)(t.tensor([1.0, 2.0])),
    "jacrev of two outputs and a dict input": lambda t: t.func.jacrev(lambda d: (d["a"] * d["b"], (d["a"] ** 2).sum()))(
        {"a": t.tensor([1.0, 2.0]), "b": t.tensor([3.0, 4.0])}),
    "jacrev of a matrix function": lambda t: t.func.jacrev(lambda m: m @ m)(t.tensor([[1.0, 2.0], [0.5, -1.0]])),
    "jacrev of jacrev": lambda t: t.func.jacrev(t.func.jacrev(lambda a: (a.sin() * a ** 2).sum()))(
        t.tensor([0.5, 1.0, -2.0])),
    "vmap of jacrev": lambda t: t.func.vmap(t.func.jacrev(lambda a: a.sin() * a.sum()))(batch(t, 3, 2)),
    "jacrev argnum out of range": lambda t: t.func.jacrev(lambda a: a, argnums=2)(t.ones(2)),
}


@pytest.mark.parametrize("name", CALLS)
def test_transform_matches_torch(name):
    assert outcome(CALLS[name], myautograd) == outcome(CALLS[name], torch)


def test_randomness_same_and_different():
    zeros = myautograd.zeros(4, 3)
    same = myautograd.func.vmap(lambda r: r + myautograd.rand(3), randomness="same")(zeros)
    assert all(myautograd.equal(row, same[0]) for row in same)
    different = myautograd.func.vmap(lambda r: r + myautograd.rand(3), randomness="different")(zeros)
    assert tuple(different.shape) == (4, 3)
    assert all(not myautograd.equal(different[i], different[j]) for i in range(4) for j in range(i))
    dropped = myautograd.func.vmap(lambda r: myautograd.nn.functional.dropout(r + 1, 0.5), randomness="different")(
        myautograd.zeros(8, 50))
    assert len({tuple(row.tolist()) for row in dropped}) == 8


def test_an_op_without_a_rule_runs_per_sample_with_torchs_warning():
    x = myautograd.tensor(batch(myautograd, 3, 2, 2).tolist())
    index = [3, 0, 2]
    with pytest.warns(UserWarning, match="^There is a performance drop because we have not yet implemented the "
                                         "batching rule for aten::take. Please file us an issue on GitHub so that "
                                         "we can prioritize its implementation.$"):
        result = myautograd.func.vmap(lambda m: myautograd.take(m, myautograd.tensor(index)))(x)
    with pytest.warns(UserWarning, match="batching rule for aten::take"):  # torch's own fallback too
        expected = torch.func.vmap(lambda m: torch.take(m, torch.tensor(index)))(torch.tensor(x.tolist()))
    assert np.allclose(result.tolist(), expected.tolist())


def test_per_sample_gradients_need_no_fallback():
    params = {"w1": batch(myautograd, 3, 4), "b1": myautograd.zeros(4), "w2": batch(myautograd, 4, 1)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        myautograd.func.vmap(myautograd.func.grad(mlp_loss(myautograd)), in_dims=(None, 0, 0))(
            params, batch(myautograd, 6, 3), myautograd.zeros(6))


def test_the_ops_are_themselves_again_after_vmap():
    """While no vmap runs, nothing stands between a call and its op."""
    add, dot = myautograd.Tensor.add, myautograd.dot
    myautograd.func.vmap(lambda r: r.add(1).dot(r))(myautograd.ones(2, 3))
    assert myautograd.Tensor.add is add and myautograd.dot is dot
    assert not _batched.LEVELS
    with pytest.raises(ValueError):
        myautograd.func.vmap(myautograd.add)(myautograd.ones(2, 3), myautograd.ones(3, 3))
    assert myautograd.Tensor.add is add and not _batched.LEVELS
    with pytest.raises(RuntimeError):  # an error inside the function: the level ends all the same
        myautograd.func.vmap(lambda r: r.add(1).sum().item())(myautograd.ones(2, 3))
    assert myautograd.Tensor.add is add and myautograd.dot is dot and not _batched.LEVELS
    assert all(getattr(owner, name) is original for owner, name, original, _ in _vmap._REPLACED
               if not isinstance(original, property))


def modules(t, count):
    class Affine(t.nn.Module):
        def __init__(self, scale):
            super().__init__()
            self.weight = t.nn.Parameter(t.tensor([1.0, 2.0]) * scale)
            self.register_buffer("shift", t.tensor([0.5, -0.5]) * scale)

        def forward(self, x):
            return self.weight * x + self.shift

    return [Affine(i + 1) for i in range(count)]


MODULE_CALLS = {
    "functional_call, a dict": lambda t: t.func.functional_call(modules(t, 1)[0], {"weight": t.tensor([3.0, 4.0])},
                                                                (t.tensor([1.0, 2.0]),)),
    "functional_call, a tuple of dicts and kwargs": lambda t: t.func.functional_call(
        modules(t, 1)[0], ({"weight": t.tensor([3.0, 4.0])}, {"shift": t.tensor([0.0, 1.0])}), (),
        {"x": t.tensor([1.0, 2.0])}),
    "functional_call, a key in two dicts": lambda t: t.func.functional_call(
        modules(t, 1)[0], ({"weight": t.ones(2)}, {"weight": t.ones(2)}), (t.ones(2),)),
    "functional_call strict, missing and unexpected": lambda t: t.func.functional_call(
        modules(t, 1)[0], {"weight": t.ones(2), "extra": t.ones(2)}, (t.ones(2),), strict=True),
    "functional_call leaves the module as it was": lambda t: _called_then_state(t),
    "stack_module_state": lambda t: t.func.stack_module_state(modules(t, 3)),
    "stack_module_state of nothing": lambda t: t.func.stack_module_state([]),
    "ensemble under vmap": lambda t: _ensemble(t),
    "per-model gradients under vmap": lambda t: _ensemble_gradients(t),
}


def _called_then_state(t):
    (model,) = modules(t, 1)
    t.func.functional_call(model, {"weight": t.tensor([9.0, 9.0])}, (t.ones(2),))
    return model.weight, model.shift


def _ensemble(t):
    models = modules(t, 3)
    params, buffers = t.func.stack_module_state(models)
    return t.func.vmap(lambda p, b, x: t.func.functional_call(models[0], (p, b), (x,)), in_dims=(0, 0, None))(
        params, buffers, t.tensor([1.0, -1.0]))


def _ensemble_gradients(t):
    models = modules(t, 3)
    params, buffers = t.func.stack_module_state(models)

    def loss(p, b, x):
        return (t.func.functional_call(models[0], (p, b), (x,)) ** 2).sum()

    return t.func.vmap(t.func.grad(loss), in_dims=(0, 0, None))(params, buffers, t.tensor([1.0, -1.0]))


@pytest.mark.parametrize("name", MODULE_CALLS)
def test_module_utility_matches_torch(name):
    assert outcome(MODULE_CALLS[name], myautograd) == outcome(MODULE_CALLS[name], torch)


def test_vmap_of_a_vjp_fn_taken_outside_loops_with_the_warning():
    """vjp's graph was recorded without the batch: the cotangents' samples are pulled back one by one (torch
    batches the backward pass itself), after the fallback's warning; the values are torch's."""
    def jacobian_rows(t, cotangents, nested):
        _, vjp_fn = t.func.vjp(lambda a: a.sin() * a.sum(), t.tensor([1.0, 2.0, 3.0]))
        mapped = t.func.vmap(t.func.vmap(vjp_fn)) if nested else t.func.vmap(vjp_fn)
        return mapped(cotangents)[0]

    for nested, cotangents in ((False, [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]]),
                               (True, [[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 0.0, 1.0], [1.0, 1.0, 1.0]]])):
        with pytest.warns(UserWarning, match="^There is a performance drop because we have not yet implemented the "
                                             "batching rule for vjp_fn"):
            mine = jacobian_rows(myautograd, myautograd.tensor(cotangents), nested)
        theirs = jacobian_rows(torch, torch.tensor(cotangents), nested)
        assert tuple(mine.shape) == tuple(theirs.shape)
        assert np.allclose(mine.tolist(), theirs.tolist(), atol=1e-6)


def test_addmm_with_beta_zero_ignores_the_input_under_vmap_too():
    """beta=0 ignores the input, NaNs included, as torch.addmm does for one sample (torch 2.13's own batching
    rule does not: vmap of this call gives NaNs there)."""
    samples = batch(myautograd, 5, 3, 4)
    nan = myautograd.full((3, 2), float("nan"))
    together = myautograd.func.vmap(lambda x: myautograd.addmm(nan, x, myautograd.ones(4, 2), beta=0))(samples)
    alone = [myautograd.addmm(nan, samples[i], myautograd.ones(4, 2), beta=0) for i in range(5)]
    assert structure(together) == structure(myautograd.stack(alone))
    assert not together.isnan().any()


def _warnings_and_values(t, call, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call(t, *args)
    return [str(w.message).split(" (Triggered internally at")[0] for w in caught], np.asarray(result.tolist())


TORCH_LOOPS = {  # where torch 2.13 has no batching rule itself: its fallback warns, and so must myautograd's
    "fmod_": lambda t, x, y: t.func.vmap(lambda a, b: a.clone().fmod_(b))(x, y),
    "clamp_": lambda t, x, y: t.func.vmap(lambda a: a.clone().clamp_(-0.5, 0.5))(x),
    "addcmul_": lambda t, x, y: t.func.vmap(lambda a, b: a.clone().addcmul_(b, b, value=0.5))(x, y),
    "cumsum_": lambda t, x, y: t.func.vmap(lambda a: a.clone().cumsum_(1))(x),
    "tril_": lambda t, x, y: t.func.vmap(lambda a: a.clone().tril_())(x),
    "masked_fill.Tensor": lambda t, x, y: t.func.vmap(lambda a, b: a.masked_fill(a > 0, b.sum()))(x, y),
    "kl_div": lambda t, x, y: t.func.vmap(lambda a, b: t.nn.functional.kl_div(a, b.abs(), reduction="mean"))(x, y),
    "square_ under a gradient (no loop)": lambda t, x, y: t.func.vmap(
        t.func.grad(lambda a: a.clone().square_().sum()))(x),
    "take under a gradient (put in its backward)": lambda t, x, y: t.func.vmap(
        t.func.grad(lambda a: t.take(a, t.tensor([0, 4, 4])).sum()))(x),
    "bilinear under a gradient (_trilinear, and once per input in its backward)": lambda t, x, y: t.func.vmap(
        lambda a, b: sum(t.func.grad(lambda p, q: t.nn.functional.bilinear(p, q, t.ones(2, 3, 3)).sum(),
                                     argnums=(0, 1))(a, b)))(x, y),
    "kl_div under a gradient (no loop)": lambda t, x, y: t.func.vmap(
        t.func.grad(lambda a, b: t.nn.functional.kl_div(a, b.abs(), reduction="sum")))(x, y),
}


@pytest.mark.parametrize("name", TORCH_LOOPS)
def test_torchs_own_fallbacks_warn_alike(name):
    """The same warnings as torch (the fallback's, under torch's overload name, where torch loops; none where
    it has a rule) and the same values, in-place ops writing every sample."""
    x, y = batch(myautograd, 3, 2, 3), batch(myautograd, 3, 2, 3) + 2
    mine = _warnings_and_values(myautograd, TORCH_LOOPS[name], x, y)
    theirs = _warnings_and_values(torch, TORCH_LOOPS[name], torch.tensor(x.tolist()), torch.tensor(y.tolist()))
    assert mine[0] == theirs[0]
    assert np.allclose(mine[1], theirs[1], atol=1e-6)


COMPLEX_VIEWS = {
    "resolve_conj of a conjugate": lambda t, z: t.resolve_conj(z.conj()),
    "resolve_neg": lambda t, z: z.resolve_neg(),
    "conj_physical": lambda t, z: t.conj_physical(z),
    "conj_physical_": lambda t, z: z.clone().conj_physical_(),
    "sgn_": lambda t, z: z.clone().sgn_(),
    "imag of a conjugate refused": lambda t, z: z.conj().imag,
}


@pytest.mark.parametrize("complex_input", [True, False])
@pytest.mark.parametrize("name", COMPLEX_VIEWS)
def test_complex_views_under_vmap_warn_and_refuse_as_torch(name, complex_input):
    """torch batches resolve_conj/resolve_neg, loops over conj_physical (with its fallback's warning) and has no
    rule for the negative view that imag of a conjugate is."""
    op = COMPLEX_VIEWS[name]

    def call(t):
        samples = batch(t, 3, 4)
        samples = t.complex(samples, samples.flip(0)) if complex_input else samples
        return t.func.vmap(lambda z: t.view_as_real(op(t, z)) if complex_input and not name.endswith("refused")
                           else op(t, z))(samples)

    assert outcome(call, myautograd) == outcome(call, torch)

