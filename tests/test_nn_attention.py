"""MultiheadAttention, the Transformer layers and scaled_dot_product_attention against torch: layout
(``repr``, ``state_dict`` names and shapes), forward values, node names and gradients with torch's weights
loaded through ``load_state_dict``, for the options module_db's samples do not reach (batched inputs, kdim/vdim,
need_weights=False, per-head weights, causal and float masks, several layers), torch's warnings and errors.
(module_db's samples themselves are the catalog's ``moduleinfo.MultiheadAttention.*``, ``moduleinfo.Transformer*``.)
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import myautograd as mt
from tests.support.nn_compare import both, outcome

RTOL, ATOL = 1e-9, 1e-10  # float64 throughout


def _layout(module):
    return (repr(module), [(k, tuple(v.shape)) for k, v in module.state_dict().items()],
            [name for name, _ in module.named_parameters()])


MODULES = {
    "mha": lambda nn: nn.MultiheadAttention(4, 2),
    "mha_kdim_vdim": lambda nn: nn.MultiheadAttention(4, 2, kdim=3, vdim=5, bias=False, add_bias_kv=True,
                                                      batch_first=True),
    "encoder_layer": lambda nn: nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, activation="gelu", norm_first=True),
    "decoder_layer": lambda nn: nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0, batch_first=True, bias=False),
    "encoder": lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True),
                                                2, nn.LayerNorm(4), enable_nested_tensor=False),
    "transformer": lambda nn: nn.Transformer(4, 2, 2, 1, 8, dropout=0.0, batch_first=True),
}


def _paired(name):
    """torch's module and myautograd's, float64, with torch's parameters loaded into myautograd's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs, ours = both(lambda torch, nn, optim: MODULES[name](nn).double())
    ours.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    return theirs, ours


@pytest.mark.parametrize("name", MODULES)
def test_layout_matches_torch(name):
    theirs, ours = _paired(name)
    assert _layout(ours) == _layout(theirs)


def _inputs(lib, shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [lib.tensor(rng.standard_normal(shape), requires_grad=True) for shape in shapes]


def _masks(lib, *masks):
    return [None if m is None else lib.tensor(m) for m in masks]


CAUSAL = np.triu(np.full((3, 3), -np.inf), 1)
PADDING = np.array([[False, False, True], [False, True, False]])

CALLS = [  # (module, input shapes, call(module, inputs, lib))
    ("mha", [(3, 2, 4)], lambda m, x, lib: m(x[0], x[0], x[0], need_weights=False)),
    ("mha", [(3, 2, 4), (5, 2, 4)],
     lambda m, x, lib: m(x[0], x[1], x[1], average_attn_weights=False,
                         key_padding_mask=lib.tensor(np.arange(10).reshape(2, 5) % 4 == 3))),
    ("mha", [(3, 2, 4)], lambda m, x, lib: m(x[0], x[0], x[0], attn_mask=lib.tensor(CAUSAL), is_causal=True,
                                              need_weights=False)),
    ("mha", [(3, 2, 4)], lambda m, x, lib: m(x[0], x[0], x[0], attn_mask=lib.tensor(CAUSAL),
                                              key_padding_mask=lib.tensor(np.where(PADDING, -1e9, 0.0)))),
    ("mha_kdim_vdim", [(2, 3, 4), (2, 5, 3), (2, 5, 5)],
     lambda m, x, lib: m(x[0], x[1], x[2], key_padding_mask=lib.tensor(np.arange(10).reshape(2, 5) % 3 == 1))),
    ("encoder_layer", [(3, 2, 4)], lambda m, x, lib: m(x[0], src_mask=lib.tensor(CAUSAL), is_causal=True)),
    ("decoder_layer", [(2, 3, 4), (2, 3, 4)],
     lambda m, x, lib: m(x[0], x[1], tgt_mask=lib.tensor(CAUSAL), memory_key_padding_mask=lib.tensor(PADDING))),
    ("encoder", [(2, 3, 4)], lambda m, x, lib: m(x[0], mask=lib.tensor(CAUSAL))),
    ("transformer", [(2, 3, 4), (2, 3, 4)],
     lambda m, x, lib: m(x[0], x[1], tgt_mask=m.generate_square_subsequent_mask(3, dtype=lib.float64),
                         src_key_padding_mask=lib.tensor(PADDING))),
]


@pytest.mark.parametrize("name, shapes, call", CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CALLS)])
def test_forward_and_gradients_match_torch(name, shapes, call):
    theirs, ours = _paired(name)
    results = []
    for lib, module in ((torch, theirs), (mt, ours)):
        inputs = _inputs(lib, shapes)
        output = call(module, inputs, lib)
        outputs = [o for o in (output if isinstance(output, tuple) else (output,)) if o is not None]
        sum((o * o).sum() for o in outputs).backward()
        grads = [x.grad for x in inputs] + [p.grad for p in module.parameters()]
        results.append((outputs, grads))
    (t_out, t_grads), (m_out, m_grads) = results
    assert [type(o.grad_fn).__name__ for o in m_out] == [type(o.grad_fn).__name__ for o in t_out]
    for mine, theirs_ in zip(m_out + m_grads, t_out + t_grads, strict=True):
        assert tuple(mine.shape) == tuple(theirs_.shape)
        np.testing.assert_allclose(mine.detach().numpy(), theirs_.detach().numpy(), rtol=RTOL, atol=ATOL)


def test_generate_square_subsequent_mask_is_torchs():
    theirs, ours = (lib.nn.Transformer.generate_square_subsequent_mask(4) for lib in (torch, mt))
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("build", [
    lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, norm_first=True), 1),
    lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2), 1),
    lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 1, batch_first=True), 1),
    lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, batch_first=True, activation=lambda x: x), 1),
    lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, batch_first=True), 1),
    lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, batch_first=True, bias=False), 1),
])
def test_encoder_warns_as_torch_about_nested_tensors(build):
    messages = []
    for lib in (torch, mt):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            build(lib.nn)
        messages.append([(w.category.__name__, str(w.message)) for w in caught])
    assert messages[1] == messages[0]


def test_mismatched_mask_types_warn_as_torch():
    messages = []
    for lib in (torch, mt):
        module = lib.nn.MultiheadAttention(4, 2)
        x = lib.zeros(3, 1, 4)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module(x, x, x, key_padding_mask=lib.zeros(1, 3, dtype=lib.bool), attn_mask=lib.zeros(3, 3))
        messages.append([str(w.message) for w in caught])
    assert messages[1] == messages[0] and messages[0]


ERRORS = [
    lambda lib: lib.nn.MultiheadAttention(5, 2),
    lambda lib: lib.nn.MultiheadAttention(0, 2),
    lambda lib: lib.nn.TransformerEncoderLayer(4, 2, activation="tanh"),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 4), lib.zeros(3, 4), lib.zeros(3, 4), is_causal=True),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 1, 4), lib.zeros(3, 4), lib.zeros(3, 4)),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 1, 4), lib.zeros(3, 1, 4), lib.zeros(3, 1, 4),
                                                attn_mask=lib.zeros(2, 3)),
    lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 1, 4), lib.zeros(3, 1, 4), lib.zeros(3, 1, 4),
                                                key_padding_mask=lib.zeros(1, 3, dtype=lib.int64)),
    lambda lib: lib.nn.Transformer(4, 2, 1, 1, 8)(lib.zeros(3, 2, 4), lib.zeros(3, 1, 4)),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(lib.zeros(1, 2, 2), lib.zeros(1, 2, 2),
                                                               lib.zeros(1, 2, 2), attn_mask=lib.zeros(2, 2),
                                                               is_causal=True),
]


@pytest.mark.parametrize("make", ERRORS)
def test_errors_are_torchs(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = outcome(make, torch)
        assert expected is not None
        assert outcome(make, mt) == expected


def test_flash_attention_second_derivatives_are_exact():
    """torch refuses them ("derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward is not
    implemented"); myautograd's formulas give them, checked against finite differences."""
    q, k, v = _inputs(mt, [(1, 2, 3, 2), (1, 2, 4, 2), (1, 2, 4, 2)])
    mask = mt.tensor(np.array([[True, True, False, True]] * 3))
    assert mt.autograd.gradgradcheck(
        lambda q, k, v: mt.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask), (q, k, v))


def test_the_cuda_path_gives_the_cpus_values():
    """Every call above on "cuda" backed by the strict CuPy stand-in (``tests.support.strict_cupy``), against the
    same call on the CPU: no host array may meet a device array on the way."""
    from myautograd import _backend
    from tests.support import strict_cupy

    for name, shapes, call in CALLS:
        _, ours = _paired(name)
        results = []
        for device in ("cpu", "cuda"):
            with strict_cupy.installed(_backend):
                module = ours.to(device)
                module.zero_grad()
                inputs = [x.detach().to(device).requires_grad_() for x in _inputs(mt, shapes)]
                output = call(module, inputs, _OnDevice(device))
                outputs = [o for o in (output if isinstance(output, tuple) else (output,)) if o is not None]
                assert {o.device.type for o in outputs} == {device}
                sum((o * o).sum() for o in outputs).backward()
                results.append([t.detach().cpu().numpy() for t in outputs + [x.grad for x in inputs]])
        for on_cpu, on_cuda in zip(*results, strict=True):
            np.testing.assert_allclose(on_cuda, on_cpu, rtol=1e-12, atol=1e-12)


class _OnDevice:
    """myautograd, with ``tensor`` making its tensors on one device (the calls' masks)."""

    def __init__(self, device):
        self.device = device

    def __getattr__(self, name):
        return getattr(mt, name)

    def tensor(self, data, **kwargs):
        return mt.tensor(data, device=self.device, **kwargs)


def test_forward_mode_through_flash_attention_is_refused_as_torch():
    def attend(lib):
        primal = lib.tensor(np.ones((1, 2, 3, 4)))
        with lib.autograd.forward_ad.dual_level():
            dual = lib.autograd.forward_ad.make_dual(primal, lib.ones_like(primal))
            lib.nn.functional.scaled_dot_product_attention(dual, dual, dual)

    expected = outcome(attend, torch)
    assert expected is not None and outcome(attend, mt) == expected


@pytest.mark.parametrize("shape", [(1, 1, 2, 2), (1, 2, 2)], ids=["flash", "math"])
def test_a_query_whose_keys_are_all_masked_attends_to_nothing(shape):
    """torch's attention gives zeros there (its flash kernel, and ``_safe_softmax`` on its math path), and
    finite gradients; a plain softmax would give NaN."""
    results = []
    for lib in (torch, mt):
        q = lib.tensor(np.arange(np.prod(shape), dtype=np.float64).reshape(shape) / 4, requires_grad=True)
        mask = lib.tensor([[True, True], [False, False]])
        output = lib.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=mask)
        output.sum().backward()
        results.append((output.grad_fn.name(), output.detach().numpy(), q.grad.numpy()))
    (t_name, t_out, t_grad), (m_name, m_out, m_grad) = results
    assert m_name == t_name
    np.testing.assert_array_equal(m_out[..., 1, :], 0.0)
    np.testing.assert_allclose(m_out, t_out, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(m_grad, t_grad, rtol=RTOL, atol=ATOL)
