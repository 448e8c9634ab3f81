"""myautograd's complex kernels computed as torch's, to the bit where torch's CPU kernel is known:
multiplication (``(ac - bd) + (ad + bc)i`` without fused multiply-add), power with a tensor exponent
(the C library's ``cpow``, ``exp(y * log(x))``: 0 ** 0 is NaN), ``linspace``; and the edges where
myautograd answered otherwise: the forward-mode derivative of ``sgn`` at 0.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import myautograd

DTYPES = ("complex64", "complex128")


def _samples(dtype_name: str, shape: tuple, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype_name)


def _bits_equal(expected: np.ndarray, actual: np.ndarray) -> bool:
    return np.array_equal(expected, actual, equal_nan=True) and np.array_equal(
        np.signbit(expected.real), np.signbit(actual.real))


@pytest.mark.parametrize("dtype_name", DTYPES)
def test_complex_products_are_torchs_to_the_bit(dtype_name: str):
    a, b = _samples(dtype_name, (64,), 1), _samples(dtype_name, (64,), 2)
    expected = (torch.from_numpy(a) * torch.from_numpy(b)).numpy()
    assert _bits_equal(expected, (myautograd.tensor(a) * myautograd.tensor(b)).numpy())
    in_place = myautograd.tensor(a)
    in_place.mul_(myautograd.tensor(b))
    assert _bits_equal(expected, in_place.numpy())


@pytest.mark.parametrize("dtype_name", DTYPES)
def test_complex_powers_are_the_c_librarys(dtype_name: str):
    base = _samples(dtype_name, (40,), 3)
    exponent = _samples(dtype_name, (40,), 4)
    base[:4] = 0
    exponent[:8] = [0, 2, 0.5, 1 + 1j, 2, 3, -1, -2]  # 0 ** 0 is NaN in torch; integral exponents are not multiplied out
    expected = torch.pow(torch.from_numpy(base), torch.from_numpy(exponent)).numpy()
    assert np.isnan(expected[0])
    actual = myautograd.pow(myautograd.tensor(base), myautograd.tensor(exponent)).numpy()
    assert _bits_equal(expected, actual)
    in_place = myautograd.tensor(base)
    in_place.pow_(myautograd.tensor(exponent))
    assert _bits_equal(expected, in_place.numpy())


@pytest.mark.parametrize("dtype_name", DTYPES)
@pytest.mark.parametrize("ends", [(0, 1, 5), (1 + 2j, -3 + 0.5j, 6), (0.1, 0.7j, 4)])
def test_complex_linspace_as_torch(dtype_name: str, ends: tuple):
    start, end, steps = ends
    expected = torch.linspace(start, end, steps, dtype=getattr(torch, dtype_name)).numpy()
    actual = myautograd.linspace(start, end, steps, dtype=getattr(myautograd, dtype_name)).numpy()
    assert actual.dtype == expected.dtype
    np.testing.assert_allclose(actual, expected, rtol=2 * np.finfo(expected.real.dtype).eps, atol=0)


@pytest.mark.parametrize("name", ["sgn", "softsign forward-over-reverse"])
def test_forward_mode_through_sgn_is_zero_at_zero(name: str):
    def tangent_at_zero(lib):
        fw = lib.autograd.forward_ad
        z = lib.tensor([0.0, 1 + 1j], dtype=lib.complex128, requires_grad=name != "sgn")
        with fw.dual_level():
            dual = fw.make_dual(z, lib.tensor([1 + 1j, 0.5j], dtype=lib.complex128))
            if name == "sgn":
                out = dual.sgn()
            else:
                soft = lib.nn.functional.softsign(dual)
                out, = lib.autograd.grad(soft, dual, lib.ones_like(soft), create_graph=True)
            return fw.unpack_dual(out).tangent.detach().numpy()

    expected, actual = tangent_at_zero(torch), tangent_at_zero(myautograd)
    assert expected[0] == 0
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-15)



@pytest.mark.parametrize("dtype_name", DTYPES)
def test_complex_magnitudes_are_torchs_to_the_bit(dtype_name: str):
    """torch's |z| is the correctly rounded hypotenuse of the parts (NumPy's abs of complex values is an
    ulp off for about a third of them), infinities and NaN included; norms read the same magnitudes."""
    z = _samples(dtype_name, (4096,), 3)
    z[:4] = [complex(np.inf, np.nan), complex(np.nan, 1.0), 0j, 1e300 + 1e300j if dtype_name == "complex128" else 3 + 4j]
    expected = torch.from_numpy(z).abs().numpy()
    assert _bits_equal(expected, myautograd.tensor(z).abs().numpy())
    assert _bits_equal(torch.from_numpy(z[4:]).norm(p=float("inf")).numpy(),
                       myautograd.tensor(z[4:]).norm(p=float("inf")).numpy())
    assert _bits_equal(torch.from_numpy(z[:1].copy()).abs().numpy(), myautograd.tensor(z[:1]).abs().numpy())  # 0-d path


@pytest.mark.parametrize("dtype_name", DTYPES)
def test_complex_sign_divides_each_part_by_the_magnitude(dtype_name: str):
    """sgn(z) = z / |z| with each part divided (torch's vectorized loop; NumPy's complex / real
    multiplies by the reciprocal), 0 at 0."""
    z = _samples(dtype_name, (4096,), 4)
    z[0] = 0
    assert _bits_equal(torch.from_numpy(z).sgn().numpy(), myautograd.tensor(z).sgn().numpy())


def test_in_place_abs_of_a_complex_tensor_is_refused_as_torch_refuses_it():
    for namespace in (torch, myautograd):
        with pytest.raises(RuntimeError, match="^In-place abs is not supported for complex tensors.$"):
            namespace.tensor([1 + 1j]).abs_()
