"""myautograd refuses an op in a dtype exactly where torch does (myautograd/_ops/dtype_refusals.py):
the same exception type and message, reached as a function, a Tensor method, an operator or through
``nn.functional``; and computes the cases torch computes (complex silu without autograd, real inputs).
"""

from __future__ import annotations

import types

import pytest
import torch

import myautograd
from myautograd import _ops
from myautograd._ops import dtype_refusals

CALLS = {
    "sign": lambda t, F, x: t.sign(x),
    "floor_method": lambda t, F, x: x.floor(),
    "round": lambda t, F, x: t.round(x),
    "clip": lambda t, F, x: t.clip(x, -0.5, 0.5),
    "relu": lambda t, F, x: F.relu(x),
    "hardtanh": lambda t, F, x: F.hardtanh(x),
    "gt_operator": lambda t, F, x: x > 0,
    "greater_alias": lambda t, F, x: t.greater(x, x),
    "max_all": lambda t, F, x: x.max(),
    "max_dim": lambda t, F, x: t.max(x, 1),
    "max_pair": lambda t, F, x: t.max(x, x),
    "argmin": lambda t, F, x: x.argmin(),
    "div_floor": lambda t, F, x: t.div(x, x, rounding_mode="floor"),
    "div_trunc": lambda t, F, x: x.div(x, rounding_mode="trunc"),
    "div_plain": lambda t, F, x: t.div(x, x),
    "selu": lambda t, F, x: F.selu(x),
    "silu_no_grad": lambda t, F, x: F.silu(x),
    "silu_grad": lambda t, F, x: F.silu(x.detach().requires_grad_()),
    "log_softmax": lambda t, F, x: F.log_softmax(x, dim=1),
    "kl_div": lambda t, F, x: F.kl_div(x, x, reduction="batchmean"),
    "cosine_similarity": lambda t, F, x: F.cosine_similarity(x, x),
    "arange": lambda t, F, x: t.arange(3, dtype=x.dtype),
    "complex": lambda t, F, x: t.complex(x, x),
    "sgn": lambda t, F, x: t.sgn(x),
}


def _outcome(fn):
    try:
        result = fn()
    except Exception as error:  # noqa: BLE001 - the exception is what is compared
        return type(error).__name__, str(error).splitlines()[0]
    return "computed", str(result.dtype).replace("torch.", "") if hasattr(result, "dtype") else type(result).__name__


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float32"])
@pytest.mark.parametrize("call", sorted(CALLS))
def test_refuses_where_torch_does(call, dtype):
    values = [[0.5 + 1j, -1.5 - 0.25j, 2.0 + 0j], [0.25j, 1.0 - 1j, -0.75 + 2j]]
    if dtype == "float32":
        values = [[v.real for v in row] for row in values]

    def run(t, F):
        return _outcome(lambda: CALLS[call](t, F, t.tensor(values, dtype=getattr(t, dtype))))

    assert run(myautograd, myautograd.nn.functional) == run(torch, torch.nn.functional)


@pytest.mark.parametrize("call", ["fft", "rfft", "irfft", "polar"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_reduced_precision_refusals(call, dtype):
    def run(t):
        x = t.ones(4, dtype=getattr(t, dtype))
        op = t.polar if call == "polar" else getattr(t.fft, call)
        return _outcome(lambda: op(x, x) if call == "polar" else op(x))

    assert run(myautograd) == run(torch)


@pytest.mark.parametrize("decimals", [None, 0, 2])
@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool", "complex64", "float32", "float16"])
def test_round_refuses_by_its_decimals_as_torch_does(dtype, decimals):
    """Without decimals, an integer is returned as it is; with decimals 0 torch's round kernel (round_vml_cpu)
    refuses it, with others round_cpu; complex numbers and bool are refused by the one or the other."""
    def run(t):
        x = t.tensor([1, 0, 3], dtype=getattr(t, dtype))
        return _outcome(lambda: t.round(x) if decimals is None else x.round(decimals=decimals))

    assert run(myautograd) == run(torch)


def test_every_refused_name_is_an_op():
    """A name in the table that no op module holds is an error when the table is installed."""
    dtype_refusals.REFUSALS["no_such_op"] = dtype_refusals.REFUSALS["sign"]
    try:
        with pytest.raises(LookupError, match="no op named 'no_such_op'"):
            dtype_refusals.install([m for m in vars(_ops).values() if isinstance(m, types.ModuleType)], [{}])
    finally:
        del dtype_refusals.REFUSALS["no_such_op"]
