"""myautograd in float16 and bfloat16 against torch's CPU kernels, bit for bit.

torch computes most float16 and bfloat16 operations in float32 and rounds the result once;
its reductions, sums and matrix products accumulate in float32; a Python number beside a
reduced-precision tensor enters the computation unrounded. Each operator below runs on the same
inputs (random values rounded to the dtype) in both engines; its value, and the gradient of
every input for a random ``grad_output`` in the dtype, must have the same dtype and the same bits
(NaNs equal). ``NEAR`` lists the few where a difference was measured that no rule removes, with
the largest difference allowed, in units in the last place of the dtype.

Also: bfloat16 as a dtype (names, casts, promotion, ``finfo``, printing).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import myautograd

DTYPES = ("float16", "bfloat16")
SHAPE = (4, 5)


def _unary(name, low=-2.0, high=2.0):
    return name, (lambda t, x: getattr(t, name)(x)), ((low, high),)


def _binary(name, call, low=-2.0, high=2.0, low2=None, high2=None):
    return name, call, ((low, high), (low2 if low2 is not None else low, high2 if high2 is not None else high))


F = "nn.functional"

#: name, call(torch module, *inputs), one (low, high) range per input.
OPS = [
    _unary("exp", -3, 3), _unary("exp2", -3, 3), _unary("expm1"), _unary("log", 0.1, 4), _unary("log2", 0.1, 4),
    _unary("log10", 0.1, 4), _unary("log1p", -0.9, 3), _unary("sqrt", 0.05, 4), _unary("rsqrt", 0.1, 4),
    _unary("square"), _unary("sin", -3, 3), _unary("cos", -3, 3), _unary("tan", -1.3, 1.3),
    _unary("asin", -0.9, 0.9), _unary("acos", -0.9, 0.9), _unary("atan", -3, 3), _unary("sinh"), _unary("cosh"),
    _unary("tanh"), _unary("asinh", -3, 3), _unary("acosh", 1.1, 3), _unary("atanh", -0.9, 0.9),
    _unary("sigmoid", -4, 4), _unary("erf"), _unary("erfc"), _unary("reciprocal", 0.5, 3), _unary("neg"),
    _unary("abs"), _unary("sign"), _unary("floor", -3, 3), _unary("ceil", -3, 3), _unary("round", -3, 3),
    _unary("trunc", -3, 3), _unary("frac", -3, 3),
    _binary("add", lambda t, a, b: a + b), _binary("sub", lambda t, a, b: a - b),
    _binary("mul", lambda t, a, b: a * b), _binary("div", lambda t, a, b: a / b, low2=0.5, high2=3),
    _binary("pow", lambda t, a, b: a ** b, 0.5, 2), _binary("atan2", lambda t, a, b: t.atan2(a, b)),
    _binary("maximum", lambda t, a, b: t.maximum(a, b)), _binary("minimum", lambda t, a, b: t.minimum(a, b)),
    _binary("remainder", lambda t, a, b: t.remainder(a, b), low2=0.5, high2=2),
    _binary("fmod", lambda t, a, b: t.fmod(a, b), low2=0.5, high2=2),
    ("add_alpha", lambda t, a, b: t.add(a, b, alpha=0.3), ((-2, 2), (-2, 2))),
    ("mul_number", lambda t, x: x * 0.1, ((-2, 2),)), ("add_number", lambda t, x: x + 0.1, ((-2, 2),)),
    ("div_number", lambda t, x: x / 3, ((-2, 2),)), ("rsub_number", lambda t, x: 1.1 - x, ((-2, 2),)),
    ("pow_number", lambda t, x: x ** 2.5, ((0.1, 2),)), ("number_pow", lambda t, x: 2.5 ** x, ((-2, 2),)),
    ("clamp", lambda t, x: t.clamp(x, -0.5, 0.7), ((-2, 2),)),
    ("lerp", lambda t, a, b: t.lerp(a, b, 0.3), ((-2, 2), (-2, 2))),
    ("addcmul", lambda t, a, b, c: t.addcmul(a, b, c, value=0.5), ((-2, 2),) * 3),
    ("addcdiv", lambda t, a, b, c: t.addcdiv(a, b, c, value=0.5), ((-2, 2), (-2, 2), (0.5, 2))),
    ("sum", lambda t, x: x.sum(), ((-2, 2),)), ("sum_dim", lambda t, x: x.sum(1), ((-2, 2),)),
    ("mean", lambda t, x: x.mean(), ((-2, 2),)), ("mean_dim", lambda t, x: x.mean(0), ((-2, 2),)),
    ("prod", lambda t, x: x.prod(1), ((0.5, 1.5),)), ("amax", lambda t, x: x.amax(1), ((-2, 2),)),
    ("var", lambda t, x: x.var(1), ((-2, 2),)), ("std", lambda t, x: x.std(), ((-2, 2),)),
    ("norm", lambda t, x: x.norm(), ((-2, 2),)), ("logsumexp", lambda t, x: x.logsumexp(1), ((-2, 2),)),
    ("cumsum", lambda t, x: x.cumsum(1), ((-2, 2),)), ("cumprod", lambda t, x: x.cumprod(1), ((0.5, 1.5),)),
    ("softmax", lambda t, x: getattr(t, "nn").functional.softmax(x, 1), ((-2, 2),)),
    ("log_softmax", lambda t, x: getattr(t, "nn").functional.log_softmax(x, 1), ((-2, 2),)),
    ("matmul", lambda t, a, b: a @ b.T, ((-2, 2), (-2, 2))),
    ("mv", lambda t, a, b: t.mv(a, b[0]), ((-2, 2), (-2, 2))),
    ("dot", lambda t, a, b: t.dot(a[0], b[0]), ((-2, 2), (-2, 2))),
    ("outer", lambda t, a, b: t.outer(a[0], b[1]), ((-2, 2), (-2, 2))),
    ("relu", lambda t, x: t.nn.functional.relu(x), ((-2, 2),)),
    ("gelu", lambda t, x: t.nn.functional.gelu(x), ((-3, 3),)),
    ("silu", lambda t, x: t.nn.functional.silu(x), ((-3, 3),)),
    ("softplus", lambda t, x: t.nn.functional.softplus(x), ((-3, 3),)),
    ("elu", lambda t, x: t.nn.functional.elu(x), ((-3, 3),)),
    ("leaky_relu", lambda t, x: t.nn.functional.leaky_relu(x, 0.1), ((-3, 3),)),
    ("hardtanh", lambda t, x: t.nn.functional.hardtanh(x), ((-3, 3),)),
    ("logsigmoid", lambda t, x: t.nn.functional.logsigmoid(x), ((-3, 3),)),
    ("mse_loss", lambda t, a, b: t.nn.functional.mse_loss(a, b), ((-2, 2), (-2, 2))),
]

#: Measured differences no rule removes: (operator, dtype) -> the largest difference allowed, in ulps
#: of the dtype at the value (for the values, and for the gradients).
NEAR: dict[tuple[str, str], int] = {}


def _inputs(ranges, seed):
    rng = np.random.default_rng(seed)
    return [np.round(rng.uniform(low, high, SHAPE), 3) for low, high in ranges]


def _run(module, call, arrays, dtype_name, grad_seed):
    dtype = getattr(module, dtype_name)
    leaves = [module.tensor(a.tolist(), dtype=torch.float32 if module is torch else module.float32).to(dtype)
              .requires_grad_() for a in arrays]
    out = call(module, *leaves)
    grad_output = np.random.default_rng(grad_seed).uniform(-1, 1, tuple(out.shape))
    seed_grad = module.tensor(grad_output.tolist(), dtype=torch.float32 if module is torch else module.float32)
    grads = module.autograd.grad(out, leaves, seed_grad.to(dtype), allow_unused=True)
    return out.detach(), [g.detach() if g is not None else None for g in grads]


def _bits(tensor) -> np.ndarray:
    """The float32 values of a reduced-precision tensor of either engine (exact), NaNs made equal."""
    values = np.asarray(tensor.float().tolist(), dtype=np.float32)
    return np.where(np.isnan(values), np.float32("nan"), values)


def _differ(expected, actual, ulps: int) -> str | None:
    if str(expected.dtype) != str(actual.dtype):
        return f"dtype {actual.dtype}, torch {expected.dtype}"
    e, a = _bits(expected), _bits(actual)
    if e.shape != a.shape:
        return f"shape {a.shape}, torch {e.shape}"
    same = (e == a) | (np.isnan(e) & np.isnan(a))
    if ulps:
        spacing = np.abs(np.asarray(expected.float().tolist(), dtype=np.float32)) * (2.0 ** -10 if
                                                                                   expected.dtype == torch.float16
                                                                                   else 2.0 ** -7)
        same |= np.abs(e - a) <= ulps * np.maximum(spacing, 1e-6)
    if same.all():
        return None
    index = np.argwhere(~same)[0]
    return f"{int((~same).sum())} of {same.size} differ, first at {tuple(index)}: {a[tuple(index)]!r}, torch {e[tuple(index)]!r}"


@pytest.mark.parametrize("dtype_name", DTYPES)
@pytest.mark.parametrize("name,call,ranges", OPS, ids=[entry[0] for entry in OPS])
def test_values_and_gradients_as_torch(name, call, ranges, dtype_name):
    arrays = _inputs(ranges, seed=len(name) * 7919 + len(ranges))
    expected, expected_grads = _run(torch, call, arrays, dtype_name, grad_seed=3)
    actual, actual_grads = _run(myautograd, call, arrays, dtype_name, grad_seed=3)
    ulps = NEAR.get((name, dtype_name), 0)
    problems = []
    if (problem := _differ(expected, actual, ulps)) is not None:
        problems.append(f"value: {problem}")
    for i, (e, a) in enumerate(zip(expected_grads, actual_grads)):
        if (e is None) != (a is None):
            problems.append(f"gradient {i}: {'None' if a is None else 'a tensor'}, torch {'None' if e is None else 'a tensor'}")
        elif e is not None and (problem := _differ(e, a, ulps)) is not None:
            problems.append(f"gradient {i}: {problem}")
    assert not problems, f"{name} in {dtype_name}: " + "; ".join(problems)
