"""The convolution and pooling layers beyond Conv1d/2d and the 2d pools: torch's values, gradients,
indices and node names through the functions of every dimension; ConvTranspose's ``output_size``
and its errors. (The planted bugs of the pooling ops are in ``test_moddb.py``: torch's pooling kernels
run here start its thread pool, and a case observed in a forked child after that hangs.)"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import myautograd

POOLS = {
    "max_pool1d": (lambda t, x: t.nn.functional.max_pool1d(x, 3, 2, 1, return_indices=True), (2, 3, 9)),
    "max_pool3d": (lambda t, x: t.nn.functional.max_pool3d(x, (2, 3, 2), (2, 1, 2), 1, return_indices=True),
                   (2, 2, 5, 6, 7)),
    "max_pool3d_unbatched": (lambda t, x: t.nn.functional.max_pool3d(x, 2, dilation=2, ceil_mode=True), (2, 5, 6, 7)),
    "avg_pool1d": (lambda t, x: t.nn.functional.avg_pool1d(x, 3, 2, 1, count_include_pad=False), (2, 3, 9)),
    "avg_pool3d": (lambda t, x: t.nn.functional.avg_pool3d(x, (2, 3, 2), (2, 1, 2), 1, ceil_mode=True),
                   (2, 2, 5, 6, 7)),
    "avg_pool3d_divisor": (lambda t, x: t.nn.functional.avg_pool3d(x, 2, divisor_override=3), (2, 5, 6, 7)),
    "adaptive_avg_pool1d": (lambda t, x: t.nn.functional.adaptive_avg_pool1d(x, 4), (2, 3, 9)),
    "adaptive_avg_pool3d": (lambda t, x: t.nn.functional.adaptive_avg_pool3d(x, (3, None, 4)), (2, 2, 5, 6, 7)),
    "adaptive_max_pool1d": (lambda t, x: t.nn.functional.adaptive_max_pool1d(x, 4, True), (2, 3, 9)),
    "adaptive_max_pool2d": (lambda t, x: t.nn.functional.adaptive_max_pool2d(x, (3, 4), True), (2, 3, 7, 9)),
    "adaptive_max_pool3d": (lambda t, x: t.nn.functional.adaptive_max_pool3d(x, (3, None, 4), True), (3, 5, 7, 9)),
    "lp_pool1d": (lambda t, x: t.nn.functional.lp_pool1d(x, 2, 3, 2), (2, 3, 9)),
    "lp_pool3d": (lambda t, x: t.nn.functional.lp_pool3d(x, 2, 2, ceil_mode=True), (2, 3, 6, 6, 6)),
    "max_unpool1d": (lambda t, x: t.nn.functional.max_unpool1d(*t.nn.functional.max_pool1d(x, 2, return_indices=True),
                                                                2, output_size=[9]), (2, 3, 9)),
    "max_unpool3d": (lambda t, x: t.nn.functional.max_unpool3d(*t.nn.functional.max_pool3d(x, 2, 1, 1,
                                                                                           return_indices=True),
                                                                2, 1, 1), (3, 4, 5, 4)),
    "fractional_max_pool2d": (lambda t, x: t.nn.functional.fractional_max_pool2d(
        x, (2, 3), (4, 5), return_indices=True,
        _random_samples=t.tensor([[[0.1, 0.7], [0.5, 0.2], [0.9, 0.4]]] * 2, dtype=x.dtype)), (2, 3, 9, 11)),
    "fractional_max_pool3d": (lambda t, x: t.nn.functional.fractional_max_pool3d(
        x, (2, 3, 2), output_ratio=(0.5, 0.5, 0.5), return_indices=True,
        _random_samples=t.tensor([[[0.1, 0.7, 0.3], [0.5, 0.2, 0.8]]], dtype=x.dtype)), (2, 9, 11, 8)),
}


def _run(lib, fn, x, g):
    leaf = lib.tensor(x, requires_grad=True)
    out = fn(lib, leaf)
    value = out[0] if isinstance(out, tuple) else out
    (value * lib.tensor(g)).sum().backward()
    indices = out[1].numpy() if isinstance(out, tuple) else None
    return value.detach().numpy(), leaf.grad.numpy(), type(value.grad_fn).__name__, indices


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(POOLS))
def test_pooling_matches_torch(name, dtype):
    fn, shape = POOLS[name]
    rng = np.random.default_rng(len(name))
    x = rng.normal(size=shape).astype(dtype)
    out = fn(torch, torch.tensor(x))
    g = rng.normal(size=tuple((out[0] if isinstance(out, tuple) else out).shape)).astype(dtype)
    theirs, ours = _run(torch, fn, x, g), _run(myautograd, fn, x, g)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6)
    assert ours[2] == theirs[2]
    if theirs[3] is not None:
        np.testing.assert_array_equal(ours[3], theirs[3])


@pytest.mark.parametrize(("ndim", "shape", "output_size"), [(1, (2, 4, 5), [10]), (2, (4, 3, 5), [6, 10]),
                                                            (2, (1, 4, 3, 5), [1, 5, 5, 9]),
                                                            (3, (1, 4, 2, 3, 2), [4, 6, 3])])
def test_conv_transpose_output_size_matches_torch(ndim, shape, output_size):
    x = np.random.default_rng(ndim).normal(size=shape)
    results = []
    for lib in (torch, myautograd):
        layer = getattr(lib.nn, f"ConvTranspose{ndim}d")(4, 5, 3, stride=2, padding=1, dtype=lib.float64)
        with lib.no_grad():
            for p, v in zip(layer.parameters(), (np.linspace(-1, 1, layer.weight.numel()), np.linspace(0, 1, 5))):
                p.copy_(lib.tensor(v.reshape(tuple(p.shape))))
        out = layer(lib.tensor(x), output_size=output_size)
        results.append((out.detach().numpy(), type(out.grad_fn).__name__))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12)
    assert results[1][1] == results[0][1]


@pytest.mark.parametrize(("make", "output_size"), [
    (lambda nn: nn.ConvTranspose2d(4, 5, 3, stride=2, padding=1), [20, 20]),
    (lambda nn: nn.ConvTranspose2d(4, 5, 3, stride=2, padding=1), [8, 12, 3]),
    (lambda nn: nn.ConvTranspose1d(4, 5, 3, padding_mode="reflect"), None),
])
def test_conv_transpose_errors_match_torch(make, output_size):
    def outcome(lib):
        try:
            make(lib.nn)(lib.zeros(1, 4, 3, 5) if output_size else None, output_size=output_size)
        except (ValueError, RuntimeError) as error:
            return type(error).__name__, str(error).replace("myautograd", "torch")
        return None

    assert outcome(myautograd) == outcome(torch) is not None


@pytest.mark.parametrize(("name", "shape"), [("LazyConv1d", (4, 6)), ("LazyConv2d", (2, 4, 5, 6)),
                                             ("LazyConvTranspose3d", (1, 4, 3, 2, 3))])
def test_lazy_convolution_becomes_its_plain_class_with_torch_s_shapes(name, shape):
    seen = []
    for lib in (torch, myautograd):
        layer = getattr(lib.nn, name)(6, 3, groups=2).to(dtype=lib.float64)
        out = layer(lib.zeros(*shape, dtype=lib.float64))
        seen.append((type(layer).__name__, layer.in_channels, tuple(layer.weight.shape), str(layer.weight.dtype),
                     tuple(out.shape)))
    assert seen[1] == seen[0]
    assert seen[1][0] == name.removeprefix("Lazy")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "complex64"])
@pytest.mark.parametrize(("name", "shape", "kwargs"), [
    ("max_pool1d", (1, 1, 4), {}), ("max_pool3d", (1, 1, 4, 4, 4), {}), ("avg_pool1d", (1, 1, 4), {}),
    ("avg_pool3d", (1, 1, 4, 4, 4), {}), ("adaptive_avg_pool3d", (1, 1, 4, 4, 4), {}),
    ("adaptive_max_pool1d", (1, 1, 4), {}), ("adaptive_max_pool3d", (1, 1, 4, 4, 4), {}),
    ("fractional_max_pool2d", (1, 1, 4, 4), {"output_size": 2, "_random_samples": [[[0.5, 0.5]]]}),
    ("fractional_max_pool3d", (1, 1, 4, 4, 4), {"output_size": 2, "_random_samples": [[[0.5, 0.5, 0.5]]]}),
])
def test_pooling_refuses_the_dtypes_torch_refuses(name, shape, kwargs, dtype):
    def outcome(lib):
        x = lib.ones(*shape, dtype=getattr(lib, dtype))
        options = {k: lib.tensor(v, dtype=x.dtype) if k == "_random_samples" else v for k, v in kwargs.items()}
        try:
            getattr(lib.nn.functional, name)(x, 2, **options)
        except NotImplementedError as error:
            return str(error)
        return "computed"

    assert outcome(myautograd) == outcome(torch)


@pytest.mark.parametrize("output_size", [[12, 12], [7, 9, 4], [1, 3, 8, 9]])
def test_max_unpool_output_size_checks_match_torch(output_size):
    def outcome(lib):
        pooled, indices = lib.nn.functional.max_pool2d(lib.ones(1, 3, 8, 9), 2, return_indices=True)
        try:
            return tuple(lib.nn.MaxUnpool2d(2)(pooled, indices, output_size=output_size).shape)
        except ValueError as error:
            return str(error)

    assert outcome(myautograd) == outcome(torch)
