"""myautograd's powers against torch: the bits of a real power (``_autograd/arithmetic.py``'s
``_real_power``), ``float_power``'s casts, and the argument combinations ``pow`` and ``float_power``
refuse, with torch's message.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import myautograd
from tests.support.graphs import graph_names


# Pairs where NumPy's own power (SVML's, on a CPU with AVX-512) is an ulp off the correctly rounded value
# that torch's kernel gives: found in opinfo.pow (float32, sample 4) and opinfo.float_power (float64, sample 4).
@pytest.mark.parametrize(("dtype", "base", "exponent"), [
    ("float32", 6.154739856719971, 7.581039428710938),
    ("float64", 6.740978717803955, 6.572039604187012),
])
def test_a_real_power_has_the_bits_of_torchs(dtype, base, exponent):
    def power(namespace):
        x = namespace.tensor([base] * 16, dtype=getattr(namespace, dtype))
        return np.asarray((x ** namespace.tensor(exponent, dtype=x.dtype)).tolist())

    assert np.array_equal(power(myautograd), power(torch))


@pytest.mark.parametrize("call", [
    lambda t, a, b: t.float_power(a, b),
    lambda t, a, b: t.float_power(a, 2),
    lambda t, a, b: t.float_power(2, b),
    lambda t, a, b: t.float_power(a.double(), b.double()),
    lambda t, a, b: t.float_power(a, t.complex(b, b)),
])
def test_float_power_casts_each_tensor_as_torch_does_and_differentiates_twice(call):
    def run(namespace):
        a = namespace.tensor([0.26, 1.5], requires_grad=True)
        b = namespace.tensor([3.6, -0.7], requires_grad=True)
        out = call(namespace, a, b)
        firsts = namespace.autograd.grad(out, [a, b], namespace.ones_like(out), create_graph=True, allow_unused=True)
        used = [(g, x) for g, x in zip(firsts, (a, b)) if g is not None and g.requires_grad]
        seconds = namespace.autograd.grad([g for g, _ in used], [a, b], [namespace.ones_like(g) for g, _ in used],
                                          allow_unused=True, materialize_grads=True)
        return (str(out.dtype), graph_names(out), [None if g is None else g.tolist() for g in firsts],
                [g.tolist() for g in seconds])

    mine, theirs = run(myautograd), run(torch)
    assert mine[:2] == theirs[:2]
    for mine_values, their_values in zip(mine[2:], theirs[2:]):
        for m, t in zip(mine_values, their_values):
            assert (m is None) == (t is None)
            if t is not None:
                np.testing.assert_allclose(np.asarray(m), np.asarray(t), rtol=1e-12)


def test_a_second_derivative_through_a_cast_of_0_dim_tensors():
    """float32 0-dim operands of float_power: the gradient that reaches ToCopyBackward0 in the second
    backward is a NumPy scalar, which is on the CPU already."""
    def run(namespace):
        a = namespace.tensor(0.26, requires_grad=True)
        b = namespace.tensor(3.6, requires_grad=True)
        ga, gb = namespace.autograd.grad(namespace.float_power(a, b), [a, b], create_graph=True)
        return [g.item() for g in namespace.autograd.grad(ga + gb, [a, b])]

    np.testing.assert_allclose(run(myautograd), run(torch), rtol=1e-6)


@pytest.mark.parametrize("name", ["pow", "float_power"])
@pytest.mark.parametrize("arguments", [(2, 3), (2.5, True), ("x", "tensor"), ("tensor", None), (None, "tensor")])
def test_an_invalid_combination_of_arguments_gets_torchs_message(name, arguments):
    def message(namespace):
        values = [namespace.ones(2) if a == "tensor" else a for a in arguments]
        with pytest.raises(TypeError) as raised:
            getattr(namespace, name)(*values)
        return str(raised.value)

    assert message(myautograd) == message(torch)
