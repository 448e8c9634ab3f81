"""The layer modules over the convolution, pooling, normalization and embedding functions against
torch.nn: constructor arguments and checks, parameter and buffer shapes, ``state_dict`` keys,
``repr``, the initial distributions (bounds and constants; the numbers come from NumPy's generator,
so they are not torch's), and forward values, gradients and running statistics with torch's initial
weights copied in.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import myautograd as mt
from conformance.normalize import Normalizer
from tests.support.nn_compare import both, close, copy_weights, outcome

NORMALIZE = Normalizer()

LAYERS = [
    lambda nn: nn.Conv1d(2, 3, 3),
    lambda nn: nn.Conv1d(4, 2, 2, stride=2, padding=1, dilation=2, groups=2, bias=False),
    lambda nn: nn.Conv2d(2, 4, (3, 2), stride=2, padding=1, dilation=2, groups=2, bias=False, padding_mode="reflect"),
    lambda nn: nn.Conv2d(1, 2, 3, padding="same"),
    lambda nn: nn.Conv2d(2, 2, 3, padding=1, padding_mode="circular"),
    lambda nn: nn.MaxPool2d(2),
    lambda nn: nn.MaxPool2d(3, stride=1, padding=1, ceil_mode=True),
    lambda nn: nn.AvgPool2d(2),
    lambda nn: nn.AvgPool2d(3, 1, 1, ceil_mode=True, count_include_pad=False, divisor_override=2),
    lambda nn: nn.AdaptiveAvgPool2d((2, 3)),
    lambda nn: nn.AdaptiveAvgPool2d(1),
    lambda nn: nn.BatchNorm1d(3),
    lambda nn: nn.BatchNorm2d(4, eps=1e-3, momentum=None, affine=False, track_running_stats=False),
    lambda nn: nn.BatchNorm2d(2, bias=False),
    lambda nn: nn.LayerNorm(4),
    lambda nn: nn.LayerNorm((2, 3), elementwise_affine=False, bias=False),
    lambda nn: nn.Embedding(5, 3),
    lambda nn: nn.Embedding(5, 3, padding_idx=-2, max_norm=2.0, scale_grad_by_freq=True, sparse=True),
]


def _layout(module):
    return (repr(module), [(k, tuple(v.shape), str(v.dtype)) for k, v in module.state_dict().items()],
            [(name, p.requires_grad) for name, p in module.named_parameters()])


@pytest.mark.parametrize("factory", LAYERS, ids=lambda f: f(torch.nn).__class__.__name__)
def test_layer_layout_matches_torch(factory):
    theirs, ours = both(lambda torch, nn, optim: factory(nn))
    assert _layout(ours) == _layout(theirs)


def test_initial_values_follow_torch_s_distributions():
    mt.manual_seed(0)
    conv = mt.nn.Conv2d(3, 8, 3)
    bound = 1 / np.sqrt(3 * 3 * 3)  # kaiming-uniform with a = sqrt(5): the same bound as the bias's
    weight, bias = conv.weight.detach().numpy(), conv.bias.detach().numpy()
    assert np.abs(weight).max() <= bound and np.abs(weight).max() > 0.8 * bound
    assert np.abs(bias).max() <= bound
    norm = mt.nn.BatchNorm1d(4)
    assert norm.weight.tolist() == [1.0] * 4 and norm.bias.tolist() == [0.0] * 4
    assert norm.running_mean.tolist() == [0.0] * 4 and norm.running_var.tolist() == [1.0] * 4
    assert norm.num_batches_tracked.item() == 0 and norm.num_batches_tracked.dtype is mt.int64
    embedding = mt.nn.Embedding(2000, 5, padding_idx=3).weight.detach().numpy()
    assert np.all(embedding[3] == 0)
    assert abs(embedding.mean()) < 0.05 and abs(embedding.std() - 1) < 0.05  # the standard normal


@pytest.mark.parametrize("args, kwargs", [
    ((3, 2, 3), {"groups": 2}),
    ((2, 3, 3), {"groups": 2}),
    ((2, 2, 3), {"padding": "full"}),
    ((2, 2, 3), {"padding": "same", "stride": 2}),
    ((2, 2, 3), {"padding_mode": "mirror"}),
])
def test_conv_constructor_errors(args, kwargs):
    # A set of valid modes prints in the process's hash order: compared as normalize's set_display rule says.
    ours, theirs = outcome(lambda: mt.nn.Conv2d(*args, **kwargs)), outcome(lambda: torch.nn.Conv2d(*args, **kwargs))
    assert (ours[0], NORMALIZE(ours[1])) == (theirs[0], NORMALIZE(theirs[1]))


def _run(module_pair, shape, seed=1, dtype=np.float32, steps=1, integer_input=None):
    theirs, ours = module_pair
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if integer_input is not None:
            x = rng.integers(0, integer_input, shape)
            tx, mx = torch.tensor(x), mt.tensor(x)
        else:
            x = rng.standard_normal(shape).astype(dtype)
            tx, mx = torch.tensor(x, requires_grad=True), mt.tensor(x, requires_grad=True)
        t_out, m_out = theirs(tx), ours(mx)
        close(m_out, t_out, rtol=1e-5, atol=1e-5)
        assert m_out.grad_fn.name() == t_out.grad_fn.name()
        v = rng.standard_normal(tuple(t_out.shape)).astype(np.float32)
        (t_out * torch.tensor(v)).sum().backward()
        (m_out * mt.tensor(v)).sum().backward()
        if integer_input is None:
            close(mx.grad, tx.grad, rtol=1e-5, atol=1e-5)
    for (_, tp), (_, mp) in zip(theirs.named_parameters(), ours.named_parameters(), strict=True):
        close(mp.grad, tp.grad, rtol=1e-5, atol=1e-5)
    for (name, tb), (_, mb) in zip(theirs.named_buffers(), ours.named_buffers(), strict=True):
        if tb.dtype.is_floating_point:
            close(mb, tb, rtol=1e-5, atol=1e-6)
        else:
            assert mb.tolist() == tb.tolist(), name


def _paired(factory):
    theirs, ours = both(lambda torch, nn, optim: factory(nn))
    copy_weights(theirs, ours)
    return theirs, ours


@pytest.mark.parametrize("factory, shape", [
    (LAYERS[0], (2, 2, 7)),
    (LAYERS[1], (1, 4, 9)),
    (LAYERS[2], (2, 2, 7, 6)),
    (LAYERS[3], (1, 1, 5, 4)),
    (LAYERS[4], (1, 2, 4, 5)),
    (LAYERS[5], (2, 3, 4, 4)),
    (LAYERS[6], (1, 2, 5, 5)),
    (LAYERS[7], (2, 1, 4, 6)),
    (LAYERS[8], (1, 2, 5, 5)),
    (LAYERS[9], (2, 2, 5, 7)),
    (LAYERS[10], (2, 3, 4, 4)),
    (LAYERS[14], (3, 2, 4)),
    (LAYERS[15], (4, 2, 3)),
], ids=lambda value: str(value) if isinstance(value, tuple) else value(torch.nn).__class__.__name__)
def test_layer_forward_and_backward_match_torch(factory, shape):
    _run(_paired(factory), shape)


@pytest.mark.parametrize("factory, shape", [
    (lambda nn: nn.BatchNorm1d(3), (4, 3)),
    (lambda nn: nn.BatchNorm1d(3, momentum=None), (4, 3, 2)),
    (lambda nn: nn.BatchNorm2d(2, affine=False), (3, 2, 2, 2)),
    (lambda nn: nn.BatchNorm2d(4, eps=1e-3, momentum=None, affine=False, track_running_stats=False), (2, 4, 3, 3)),
])
def test_batch_norm_training_then_eval_matches_torch(factory, shape):
    pair = _paired(factory)
    _run(pair, shape, steps=3)
    for module in pair:
        module.eval()
    _run(pair, shape, seed=7)


def test_batch_norm_input_rank_errors():
    for nn in (torch.nn, mt.nn):
        assert outcome(nn.BatchNorm1d(3), torch.zeros(2) if nn is torch.nn else mt.zeros(2)) == \
            outcome(torch.nn.BatchNorm1d(3), torch.zeros(2))
    assert outcome(mt.nn.BatchNorm2d(3), mt.zeros(2, 3)) == outcome(torch.nn.BatchNorm2d(3), torch.zeros(2, 3))


@pytest.mark.parametrize("factory", [lambda nn: nn.Embedding(6, 3), lambda nn: nn.Embedding(6, 3, padding_idx=2),
                                     lambda nn: nn.Embedding(6, 3, max_norm=1.0, scale_grad_by_freq=True)])
def test_embedding_matches_torch(factory):
    pair = _paired(factory)
    _run(pair, (3, 4), integer_input=6)
    close(pair[1].weight, pair[0].weight)  # max_norm renormalises the rows looked up, in place


def test_embedding_from_pretrained():
    weights = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    theirs = torch.nn.Embedding.from_pretrained(torch.tensor(weights))
    ours = mt.nn.Embedding.from_pretrained(mt.tensor(weights))
    assert _layout(ours) == _layout(theirs)
    close(ours(mt.tensor([2, 0])), theirs(torch.tensor([2, 0])))
