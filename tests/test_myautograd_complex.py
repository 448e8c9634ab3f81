"""myautograd on complex numbers against torch, op by op: values, gradients for random complex
``grad_outputs`` (torch's conjugate Wirtinger convention), second derivatives, forward-mode tangents;
the complex operators (angle, polar, vdot, view_as_real, torch.fft...), Python complex scalars, a
real input of a complex op, the lazy conjugate and negative bits, and the printing of complex
tensors.

Inputs are drawn away from the branch cuts and singular points of the functions, where the
gradient depends on the side a rounding error lands on.
"""

from __future__ import annotations

import subprocess
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
import torch

import myautograd

TOLERANCE = {"complex64": (2e-4, 2e-5), "complex128": (1e-9, 1e-11)}


@dataclass
class ComplexOp:
    name: str
    fn: Callable  # (namespace, *complex tensors) -> tensor
    shapes: tuple
    scale: float = 1.0   # inputs: scale * (a + b i), a and b uniform in [-1, 1], plus shift
    shift: complex = 0.0
    second_order: bool = True
    forward: bool = True


def _unary(name: str, shift: complex = 0.0, **options) -> ComplexOp:
    return ComplexOp(name, lambda t, z: getattr(z, name)(), ((5,),), shift=shift, **options)


UNARY = [_unary(name) for name in ("sin", "cos", "tan", "sinh", "cosh", "tanh", "exp", "sigmoid", "neg", "expm1",
                                    "atan", "asin", "acos", "asinh", "atanh", "conj_physical")]
UNARY += [_unary(name, shift=2.0 + 0.5j) for name in ("log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
                                                      "acosh", "abs", "sgn", "angle")]

OPS = UNARY + [
    ComplexOp("square", lambda t, z: z ** 2, ((5,),)),
    ComplexOp("cube", lambda t, z: z ** 3, ((5,),)),
    ComplexOp("pow_half", lambda t, z: z ** 0.5, ((5,),), shift=2.0),
    ComplexOp("pow_complex_exponent", lambda t, z: z ** (0.5 + 1j), ((5,),), shift=2.0),
    ComplexOp("pow_tensors", lambda t, z, w: z ** w, ((5,), (5,)), shift=2.0),
    ComplexOp("mul", lambda t, z, w: z * w, ((3, 4), (3, 4))),
    ComplexOp("mul_broadcast", lambda t, z, w: z * w, ((3, 4), (4,))),
    ComplexOp("div", lambda t, z, w: z / w, ((5,), (5,)), shift=1.5),
    ComplexOp("add_sub", lambda t, z, w: z + w - z * 2, ((5,), (5,))),
    ComplexOp("mul_complex_scalar", lambda t, z: z * (1 + 1j), ((5,),)),
    ComplexOp("complex_scalar_times", lambda t, z: (1 - 2j) * z, ((5,),)),
    ComplexOp("add_imaginary", lambda t, z: (z + 1j) * z, ((5,),)),
    ComplexOp("div_by_complex_scalar", lambda t, z: z / (2 - 1j), ((5,),)),
    ComplexOp("sum", lambda t, z: z.sum() * z, ((5,),)),
    ComplexOp("mean", lambda t, z: z.mean(0) * z, ((3, 4),)),
    ComplexOp("prod", lambda t, z: z.prod(), ((5,),), shift=0.5),
    ComplexOp("prod_dim", lambda t, z: z.prod(1), ((3, 4),), shift=0.5),
    ComplexOp("cumsum", lambda t, z: z.cumsum(0) * z, ((5,),)),
    ComplexOp("cumprod", lambda t, z: z.cumprod(0), ((5,),), shift=0.5),
    ComplexOp("mm", lambda t, a, b: a @ b, ((3, 4), (4, 2))),
    ComplexOp("bmm", lambda t, a, b: t.bmm(a, b), ((2, 3, 4), (2, 4, 2))),
    ComplexOp("matmul", lambda t, a, b: t.matmul(a, b), ((2, 3, 4), (4,))),
    ComplexOp("mv", lambda t, a, v: t.mv(a, v), ((3, 4), (4,))),
    ComplexOp("dot", lambda t, a, b: t.dot(a, b), ((4,), (4,))),
    ComplexOp("vdot", lambda t, a, b: t.vdot(a, b), ((4,), (4,))),
    ComplexOp("addmm", lambda t, c, a, b: t.addmm(c, a, b, beta=0.5, alpha=2), ((3, 2), (3, 4), (4, 2))),
    ComplexOp("real_imag", lambda t, z: z.real * z.imag * z, ((5,),)),
    ComplexOp("view_as_real", lambda t, z: t.view_as_real(z) ** 2, ((3,),)),
    ComplexOp("view_as_complex", lambda t, z: t.view_as_complex(t.view_as_real(z * z)), ((3,),)),
    ComplexOp("abs_squared", lambda t, z: z.abs() ** 2 * z, ((5,),), shift=1.0),
    ComplexOp("var", lambda t, z: z.var(0), ((4, 3),)),
    ComplexOp("norm", lambda t, z: z.norm() * z, ((5,),)),
    ComplexOp("norm_1", lambda t, z: z.norm(p=1) * z, ((5,),), shift=1.5),
    ComplexOp("where", lambda t, z, w: t.where(z.real > 0, z * w, w), ((5,), (5,))),
    ComplexOp("exp_of_product", lambda t, z, w: (z * w).exp().sum(), ((5,), (5,))),
    ComplexOp("fft", lambda t, z: t.fft.fft(z * z), ((6,),), forward=True),
    ComplexOp("ifft_ortho", lambda t, z: t.fft.ifft(z * z, n=8, norm="ortho"), ((6,),)),
    ComplexOp("fft2_forward", lambda t, z: t.fft.fft2(z * z, s=(2, 5), norm="forward"), ((3, 4),)),
    ComplexOp("fftn", lambda t, z: t.fft.fftn(z * z), ((2, 3, 4),)),
    ComplexOp("ifftn", lambda t, z: t.fft.ifftn(z * z, dim=(0, 2)), ((2, 3, 4),)),
    ComplexOp("irfft", lambda t, z: t.fft.irfft(z * z), ((5,),)),
    ComplexOp("irfft_n", lambda t, z: t.fft.irfft(z * z, n=6, dim=0), ((4, 2),)),
    ComplexOp("irfftn", lambda t, z: t.fft.irfftn(z * z, s=(3, 5)), ((3, 4),)),
    ComplexOp("rfft_of_real", lambda t, z: t.fft.rfft(z.real * z.imag, n=7), ((6,),)),
    ComplexOp("fft_of_real", lambda t, z: t.fft.fft(z.abs(), norm="forward"), ((6,),), shift=1.0),
]


def _inputs(op: ComplexOp, dtype_name: str):
    rng = np.random.default_rng(zlib.crc32(op.name.encode()))
    arrays = [op.scale * (rng.uniform(-1, 1, s) + 1j * rng.uniform(-1, 1, s)) + op.shift for s in op.shapes]
    return rng, arrays


def _tensors(namespace, arrays, dtype_name: str):
    return [namespace.tensor(a, dtype=getattr(namespace, dtype_name), requires_grad=True) for a in arrays]


def _random_like(rng, ref) -> np.ndarray:
    shape = tuple(ref.shape)
    values = rng.uniform(-1, 1, shape)
    return values + 1j * rng.uniform(-1, 1, shape) if ref.is_complex() else values


def _close(mine, ref, dtype_name: str, what: str) -> None:
    rtol, atol = TOLERANCE[dtype_name]
    mine_values = np.asarray(mine.detach().resolve_conj().resolve_neg().tolist())
    np.testing.assert_allclose(mine_values, np.asarray(ref.detach().resolve_conj().resolve_neg().tolist()),
                               rtol=rtol, atol=atol, err_msg=what)


@pytest.mark.parametrize("dtype_name", ["complex64", "complex128"])
@pytest.mark.parametrize("op", OPS, ids=lambda o: o.name)
def test_complex_op_matches_torch(op: ComplexOp, dtype_name: str):
    rng, arrays = _inputs(op, dtype_name)
    mine_inputs, ref_inputs = _tensors(myautograd, arrays, dtype_name), _tensors(torch, arrays, dtype_name)
    mine_out, ref_out = op.fn(myautograd, *mine_inputs), op.fn(torch, *ref_inputs)
    assert str(mine_out.dtype) == str(ref_out.dtype)
    assert type(mine_out.grad_fn).__name__ == type(ref_out.grad_fn).__name__
    _close(mine_out, ref_out, dtype_name, "values")

    v = _random_like(rng, ref_out)
    mine_g = myautograd.autograd.grad(mine_out, mine_inputs, myautograd.tensor(v, dtype=mine_out.dtype),
                                      create_graph=True, allow_unused=True)
    ref_g = torch.autograd.grad(ref_out, ref_inputs, torch.tensor(v, dtype=ref_out.dtype), create_graph=True,
                                allow_unused=True)
    for index, (m, r) in enumerate(zip(mine_g, ref_g)):
        assert (m is None) == (r is None), f"gradient {index}: None on one side only"
        if r is not None:
            assert str(m.dtype) == str(r.dtype)
            _close(m, r, dtype_name, f"gradient of input {index}")

    pairs = [(m, r) for m, r in zip(mine_g, ref_g) if r is not None and r.requires_grad]
    if op.second_order and pairs:
        weights = [_random_like(rng, r) for _, r in pairs]
        mine_gg = myautograd.autograd.grad([m for m, _ in pairs], mine_inputs,
                                           [myautograd.tensor(w, dtype=m.dtype) for (m, _), w in zip(pairs, weights)],
                                           allow_unused=True)
        ref_gg = torch.autograd.grad([r for _, r in pairs], ref_inputs,
                                     [torch.tensor(w, dtype=r.dtype) for (_, r), w in zip(pairs, weights)],
                                     allow_unused=True)
        for index, (m, r) in enumerate(zip(mine_gg, ref_gg)):
            if r is None:
                assert m is None or not np.any(np.asarray(m.tolist())), f"second derivative {index}: torch has none"
            else:
                _close(m, r, dtype_name, f"second derivative of input {index}")


def _jvp(namespace, op: ComplexOp, arrays, tangents, dtype_name: str):
    forward_ad = namespace.autograd.forward_ad
    dtype = getattr(namespace, dtype_name)
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(namespace.tensor(a, dtype=dtype), namespace.tensor(t, dtype=dtype))
                 for a, t in zip(arrays, tangents)]
        return forward_ad.unpack_dual(op.fn(namespace, *duals)).tangent


@pytest.mark.parametrize("dtype_name", ["complex64", "complex128"])
@pytest.mark.parametrize("op", [op for op in OPS if op.forward], ids=lambda o: o.name)
def test_complex_op_tangent_matches_torch(op: ComplexOp, dtype_name: str):
    rng, arrays = _inputs(op, dtype_name)
    tangents = [rng.uniform(-1, 1, a.shape) + 1j * rng.uniform(-1, 1, a.shape) for a in arrays]
    ref = _jvp(torch, op, arrays, tangents, dtype_name)
    mine = _jvp(myautograd, op, arrays, tangents, dtype_name)
    assert (mine is None) == (ref is None)
    if ref is not None:
        _close(mine, ref, dtype_name, "tangent")


# -- real inputs of complex ops, constructors ---------------------------------------------------------------------
REAL_INPUT_CASES = {
    "real_times_complex_tensor": lambda t, x, z: x * z,
    "real_times_complex_scalar": lambda t, x, z: x * (2 - 3j) + z,
    "complex_scalar_plus_real": lambda t, x, z: (1j + x) * z,
    "complex_constructor": lambda t, x, z: t.complex(x, x * 2) * z,
    "polar": lambda t, x, z: t.polar(x.abs() + 0.5, x) * z,
    "real_view_back": lambda t, x, z: t.view_as_complex(t.stack([x, x.exp()], -1)) * z,
    "fft_of_real": lambda t, x, z: t.fft.fft(x) * z,
    "ifft_of_real": lambda t, x, z: t.fft.ifft(x, norm="forward") * z,
    "rfft": lambda t, x, z: t.fft.rfft(x, n=8)[:4] * z,
}


@pytest.mark.parametrize("name", sorted(REAL_INPUT_CASES))
def test_a_real_input_gets_the_real_part_of_its_gradient(name: str):
    fn = REAL_INPUT_CASES[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    x, z = rng.uniform(-1, 1, 4), rng.uniform(-1, 1, 4) + 1j * rng.uniform(-1, 1, 4)
    v = rng.uniform(-1, 1, 4) + 1j * rng.uniform(-1, 1, 4)
    results = []
    for t in (myautograd, torch):
        xt = t.tensor(x, dtype=t.float64, requires_grad=True)
        zt = t.tensor(z, dtype=t.complex128, requires_grad=True)
        out = fn(t, xt, zt)
        grads = t.autograd.grad(out, (xt, zt), t.tensor(v, dtype=out.dtype))
        results.append((str(out.dtype), np.asarray(out.detach().tolist()),
                        [(str(g.dtype), np.asarray(g.tolist())) for g in grads]))
    (mine_dtype, mine_out, mine_grads), (ref_dtype, ref_out, ref_grads) = results
    assert mine_dtype == ref_dtype
    np.testing.assert_allclose(mine_out, ref_out, rtol=1e-10, atol=1e-12)
    for (mine_g_dtype, mine_g), (ref_g_dtype, ref_g) in zip(mine_grads, ref_grads):
        assert mine_g_dtype == ref_g_dtype
        np.testing.assert_allclose(mine_g, ref_g, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("expression", ["x * (1 + 1j)", "(1 + 1j) * x", "x + 1j", "1j - x", "x / 2j", "x ** (1 + 0j)"])
@pytest.mark.parametrize("dtype_name", ["float32", "float64", "int64", "complex64"])
def test_python_complex_scalars_promote_as_torch(expression: str, dtype_name: str):
    seen = []
    for t in (myautograd, torch):
        x = t.tensor([1, 2, 3], dtype=getattr(t, dtype_name))
        out = eval(expression, {"x": x})  # noqa: S307 - a fixed list of expressions
        seen.append((str(out.dtype), np.asarray(out.tolist())))
    assert seen[0][0] == seen[1][0]
    np.testing.assert_allclose(seen[0][1], seen[1][1], rtol=1e-6)


# -- errors, bits, printing -------------------------------------------------------------------------------------
def _outcome(fn, t):
    try:
        result = fn(t)
    except Exception as exc:  # noqa: BLE001 - the exception is what is compared
        return type(exc).__name__, str(exc)
    return "value", repr(result) if not isinstance(result, (bool, tuple)) else result


def _written(tensor, name: str):
    """What an in-place op leaves: the values, the node and the version."""
    getattr(tensor, name)()
    return repr(tensor.detach()), type(tensor.grad_fn).__name__, tensor._version


ERROR_AND_BIT_CASES = {
    "rfft_of_complex": lambda t: t.fft.rfft(t.ones(3, dtype=t.complex64)),
    "rfftn_of_complex": lambda t: t.fft.rfftn(t.ones(2, 2, dtype=t.complex128)),
    "bad_norm": lambda t: t.fft.fft(t.ones(3), norm="unitary"),
    "no_points": lambda t: t.fft.fft(t.ones(3), n=0),
    "bad_dim": lambda t: t.fft.fft(t.ones(3), dim=2),
    "irfft_of_one": lambda t: t.fft.irfft(t.ones(1)),
    "fft_of_no_dimensions": lambda t: t.fft.fft(t.tensor(1.0)),
    "fft_of_float16": lambda t: t.fft.fft(t.ones(3, dtype=t.float16), n=0),
    "irfftn_of_bfloat16": lambda t: t.fft.irfftn(t.ones(2, 3, dtype=t.bfloat16), norm="unitary"),
    "rfft_of_float16": lambda t: t.fft.rfft(t.ones(3, dtype=t.float16)),
    "polar_of_integers": lambda t: t.polar(t.ones(2, dtype=t.int64), t.ones(2, dtype=t.int64)),
    "polar_mixed": lambda t: t.polar(t.ones(2, dtype=t.float64), t.ones(2)),
    "vdot_mixed": lambda t: t.vdot(t.ones(2), t.ones(2, dtype=t.float64)),
    "angle_of_reals": lambda t: t.tensor([1.0, -2.0, 0.0]).angle(),
    "angle_of_integers": lambda t: t.tensor([1, -2]).angle(),
    "conj_bits": lambda t: (t.tensor([1 + 2j]).conj().is_conj(), t.tensor([1 + 2j]).conj().conj().is_conj(),
                            t.tensor([1.0]).conj().is_conj(), t.tensor([1 + 2j]).conj_physical().is_conj()),
    "neg_bit_of_imag": lambda t: (t.tensor([1 + 2j]).conj().imag.is_neg(), t.tensor([1 + 2j]).imag.is_neg()),
    "resolved": lambda t: (t.tensor([1 + 2j]).conj().resolve_conj().is_conj(),
                           t.tensor([1 + 2j]).conj().imag.resolve_neg().is_neg()),
    "numpy_of_conj": lambda t: t.tensor([1 + 2j]).conj().numpy(),
    "numpy_of_neg": lambda t: t.tensor([1 + 2j]).conj().imag.numpy(),
    "numpy_of_detached_conj": lambda t: t.tensor([1 + 2j], requires_grad=True).conj().detach().numpy(),
    "resolve_conj_graph": lambda t: type(t.tensor([1 + 2j], requires_grad=True).conj().resolve_conj().grad_fn).__name__,
    "conj_physical_": lambda t: _written(t.tensor([1 + 2j, -3j], requires_grad=True).clone(), "conj_physical_"),
    "conj_physical_of_reals": lambda t: _written(t.tensor([1.0, -2.0], requires_grad=True) * 1, "conj_physical_"),
    "sgn_": lambda t: _written(t.tensor([3 + 4j, 0j], requires_grad=True).clone(), "sgn_"),
    "print_conj": lambda t: t.tensor([1 + 2j, -3.5j]).conj(),
    "print_magnitudes": lambda t: t.tensor([1e-5 + 1j, 123456 + 2j, float("nan") - 2j]),
    "print_double": lambda t: t.tensor([[1 + 2j, 3j], [0.125, 1e10]], dtype=t.complex128),
}


@pytest.mark.parametrize("name", sorted(ERROR_AND_BIT_CASES))
def test_complex_errors_bits_and_printing_as_torch(name: str):
    fn = ERROR_AND_BIT_CASES[name]
    assert _outcome(fn, myautograd) == _outcome(fn, torch)


@pytest.mark.parametrize("dtype_name", ["complex64", "complex128"])
def test_a_complex_leaf_grad_accumulates_as_torch(dtype_name: str):
    """``.grad`` of a complex leaf after two backward passes: stored, then added to, as torch."""
    rng = np.random.default_rng(7)
    z = rng.uniform(-1, 1, 4) + 1j * rng.uniform(-1, 1, 4)
    v = rng.uniform(-1, 1, 4) + 1j * rng.uniform(-1, 1, 4)
    grads = []
    for t in (myautograd, torch):
        leaf = t.tensor(z, dtype=getattr(t, dtype_name), requires_grad=True)
        (leaf.sin() * leaf).backward(t.tensor(v, dtype=leaf.dtype))
        first = leaf.grad.clone()
        (leaf * (2 - 1j)).sum().abs().backward()
        grads.append((first, leaf.grad))
    (mine_first, mine_total), (ref_first, ref_total) = grads
    _close(mine_first, ref_first, dtype_name, ".grad after one backward")
    _close(mine_total, ref_total, dtype_name, ".grad after two")


_CAST_CHILD = """
import warnings, sys
namespace = __import__(sys.argv[1])
z = namespace.tensor([1 + 2j, 3 - 1j], dtype=namespace.complex128)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    values = [z.to(namespace.float64).tolist(), z.sum(dtype=namespace.float64).item(),
              z.cumsum(0, dtype=namespace.float32).tolist(), namespace.zeros(2).copy_(z).tolist(), z.bool().tolist()]
print(values)
print([(w.category.__name__, str(w.message).split(" (Triggered")[0], w.filename) for w in caught])
"""


@pytest.mark.parametrize("namespace", ["torch", "myautograd"])
def test_complex_to_real_casts_warn_once_per_process_at_the_callers_line(namespace, tmp_path):
    """Casting complex to real keeps the real part, and warns once per process (torch's
    TORCH_WARN_ONCE) with torch's message, pointing at the user's line; into bool, no warning."""
    import subprocess
    import sys

    script = tmp_path / "casts.py"
    script.write_text(_CAST_CHILD)
    result = subprocess.run([sys.executable, str(script), namespace], capture_output=True, text=True, check=True)
    values, warned = result.stdout.strip().splitlines()
    assert values == "[[1.0, 3.0], 4.0, [1.0, 4.0], [1.0, 3.0], [True, True]]"
    assert warned == repr([("UserWarning", "Casting complex values to real discards the imaginary part", str(script))])


@pytest.mark.parametrize("exponent", [0, 1, 0.0, 1.0, 0j, 1 + 0j, True, False, 2.0])
@pytest.mark.parametrize("dtype", ["complex128", "float64"])
def test_pow_of_a_number_zero_or_one_is_ones_or_the_base_whatever_the_base(exponent, dtype):
    """torch's pow answers an exponent 0 with ones and 1 with the base itself before any kernel, so
    a complex 0 (whose cpow is NaN) or a NaN base give 1 and the base; the double backward of
    ``z ** 2`` at 0 reads ``z ** 1``."""
    values = [0, 1.5, float("nan")] if dtype == "float64" else [0j, 1 + 1j, complex(float("nan"), 0)]
    if isinstance(exponent, complex) and dtype == "float64":
        values = [complex(v) for v in values]
    results = [(t.tensor(values, dtype=getattr(t, "complex128" if isinstance(exponent, complex) else dtype))
                       .pow(exponent)).tolist() for t in (torch, myautograd)]
    np.testing.assert_equal(results[1], results[0])
    z = myautograd.tensor([0j, 0.5 + 1j], dtype=myautograd.complex128, requires_grad=True)
    (grad,) = myautograd.autograd.grad(z.pow(2.0), [z], myautograd.ones_like(z), create_graph=True)
    (second,) = myautograd.autograd.grad(grad, [z], myautograd.ones_like(z))
    assert np.isfinite(np.asarray(second.tolist())).all()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "complex64", "complex128", "float32", "bool", "uint8", "int64"])
def test_messages_name_a_tensors_type_as_torchs_do(dtype):
    """torch's C++ messages name a type ``CPUComplexFloatType``; its Python layer rewrites that into
    ``torch.FloatTensor`` for the eight dtypes that have a legacy name there (not bool, bfloat16, complex)."""
    messages = []
    for namespace in (torch, myautograd):
        with pytest.raises(RuntimeError) as raised:
            namespace.zeros(2, 4, dtype=getattr(namespace, dtype)).expand(4)
        messages.append(str(raised.value))
    assert messages[1] == messages[0]


_PART_WRITES = {
    "real": lambda t, out, w: out.real.mul_(w),
    "imag": lambda t, out, w: out.imag.mul_(3),
    "view_as_real": lambda t, out, w: t.view_as_real(out)[1:, 0].add_(1),
}


@pytest.mark.parametrize("write", sorted(_PART_WRITES))
def test_an_in_place_write_through_a_real_view_of_a_complex_tensor_keeps_the_other_part_s_gradient(write):
    """CopySlices of a real view of a complex base works among the base's parts: the gradient of
    the part not written passes unchanged (it was lost, or the write refused as overlapping)."""
    results = []
    for t in (torch, myautograd):
        z = t.tensor([-1.049 + 1.908j, 1.84 + 1.376j, 0.5 - 0.2j], dtype=t.complex128, requires_grad=True)
        w = t.tensor([0.5, 2.0, 1.0], dtype=t.float64, requires_grad=True)
        out = z.clone()
        _PART_WRITES[write](t, out, w)
        grads = t.autograd.grad(out, [z, w], t.tensor([1 + 2j, 3 - 1j, 0.5 + 0.5j], dtype=t.complex128),
                                allow_unused=True, materialize_grads=True)
        results.append([g.tolist() for g in grads])
    assert results[1] == results[0]


@pytest.mark.parametrize("bias", [True, False])
def test_a_complex_convolution_is_three_real_ones_as_torchs(bias):
    """torch convolves complex tensors with three real convolutions (Gauss's trick), recorded op by op:
    the result's node is AddBackward0 over SubBackward0 and MulBackward1, and its values and gradients
    are those roundings."""
    results = []
    for t in (torch, myautograd):
        rng = np.random.default_rng(0)

        def drawn(*shape, t=t, rng=rng):
            return t.tensor(rng.standard_normal(shape) + 1j * rng.standard_normal(shape), dtype=t.complex128,
                            requires_grad=True)

        x, w, b = drawn(1, 2, 6), drawn(3, 2, 2), drawn(3)
        out = t.nn.functional.conv1d(x, w, b if bias else None)
        nodes = [out.grad_fn.name(), *(n.name() for n, _ in out.grad_fn.next_functions)]
        grads = t.autograd.grad(out, [x, w], t.ones_like(out) * (0.5 - 1j))
        results.append((nodes, out.tolist(), [g.tolist() for g in grads]))
    assert results[1][0] == results[0][0] == ["AddBackward0", "SubBackward0", "MulBackward1"]
    np.testing.assert_allclose(np.asarray(results[1][1]), np.asarray(results[0][1]), rtol=1e-14, atol=1e-14)
    for mine, theirs in zip(results[1][2], results[0][2]):
        np.testing.assert_allclose(np.asarray(mine), np.asarray(theirs), rtol=1e-14, atol=1e-14)


def test_float16_polar_warns_of_complex_half_then_refuses_as_torch():
    """torch allocates the complex32 output (warning once per process) before it finds no float16 kernel."""
    script = ("import warnings\nwarnings.simplefilter('always')\nimport {m} as torch\n"
              "r = torch.ones(2, dtype=torch.float16)\n"
              "for _ in range(2):\n"
              "    with warnings.catch_warnings(record=True) as seen:\n"
              "        try:\n            torch.polar(r, r)\n"
              "        except NotImplementedError as error:\n            print(repr(str(error)))\n"
              "    print([str(w.message).split(' (Triggered')[0] for w in seen])\n")
    outputs = [subprocess.run([sys.executable, "-c", script.format(m=m)], capture_output=True, text=True, check=True).stdout
               for m in ("torch", "myautograd")]
    assert outputs[0] == outputs[1]
    assert "experimental" in outputs[0]


@pytest.mark.parametrize("build", [lambda t, h: t.complex(h, h), lambda t, h: t.view_as_complex(h.reshape(1, 2))])
def test_complex32_results_are_refused_by_name(build):
    half = myautograd.ones(2, dtype=myautograd.float16)
    with pytest.raises(NotImplementedError, match=r"does not implement torch\.complex32 \(ComplexHalf\)"):
        build(myautograd, half)


def _graph_names(node, depth: int = 4) -> list:
    if node is None or depth == 0:
        return []
    return [node.name(), [_graph_names(child, depth - 1) for child, _ in node.next_functions]]


@pytest.mark.parametrize("call", [lambda a, b: a / b, lambda a, b: 3.0 / b])
def test_complex_division_gradients_record_torchs_graph(call):
    """torch conjugates last in division's and reciprocal's backward (-grad * conj((a / b) / b)); conjugating the
    inputs first gave the same values but another second-order graph (DivBackward0 where torch has ConjBackward0)."""
    graphs = []
    for t in (torch, myautograd):
        a = t.tensor([1 + 2j, -0.5 + 1j], requires_grad=True)
        b = t.tensor([2 - 1j, 0.5 + 0.25j], requires_grad=True)
        (grad_b,) = t.autograd.grad(call(a, b).sum().abs(), [b], create_graph=True)
        graphs.append(_graph_names(grad_b.grad_fn))
    assert graphs[1] == graphs[0]


_CONJUGATE_VIEW_SCRIPT = """
import sys
torch = __import__(sys.argv[1])
z = torch.tensor([1 + 2j, 3 - 1j, -0.5 + 0.25j], requires_grad=True)
out = z.clone()
view = out.conj()
print(view.is_conj(), view._base is out, view.grad_fn.name())
view.mul_(2)
view.add_(z.detach())
print(out, view, out.grad_fn.name(), view.grad_fn.name())
out.mul_(1 - 1j)
print(view, view.grad_fn.name(), [f[0].name() for f in view.grad_fn.next_functions])
again = view.conj()
print(again.is_conj(), again._base is out, again)
again.sub_(1)
print(out, view)
out.sum().abs().backward()
print(z.grad)
"""


def test_a_conjugate_view_shares_memory_both_ways_and_its_gradients_are_torchs():
    """torch's conj() is a view reading the conjugate: a write through it reaches the base conjugated, a write into
    the base shows in it, its grad_fn is regenerated as ConjBackward0; myautograd computed a copy."""
    outputs = [subprocess.run([sys.executable, "-c", _CONJUGATE_VIEW_SCRIPT, name], capture_output=True, text=True,
                              check=True).stdout for name in ("torch", "myautograd")]
    assert outputs[1] == outputs[0]


def test_a_conjugate_view_has_the_conjugate_tangent_and_writes_it_through():
    def run(t):
        fwAD = t.autograd.forward_ad
        with fwAD.dual_level():
            z = fwAD.make_dual(t.tensor([1 + 2j, 3 - 1j]), t.tensor([0.5 - 1j, 2 + 0.25j]))
            out = z.clone()
            view = out.conj()
            first = fwAD.unpack_dual(view).tangent.clone()
            view.mul_(3)
            return first, fwAD.unpack_dual(out).tangent.clone()

    for mine, theirs in zip(run(myautograd), run(torch)):
        np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


_NON_FINITE_SUMS = """
import sys
t = __import__(sys.argv[1])
inf, nan = float("inf"), float("nan")
x = t.tensor([complex(-inf, nan), complex(inf, 1.0), complex(2.0, inf), 1 + 2j], dtype=t.complex128)
z = t.tensor([0j, 1j, 2 + 0j, -1 + 0j], dtype=t.complex128)
y = z.clone(); y.add_(x)
w = z.clone(); w.sub_(x)
print([(z - x).tolist(), (z + x).tolist(), (x + z).tolist(), (0 - x).tolist(), (-x).tolist(), (x - 1).tolist(),
       y.tolist(), w.tolist(), t.rsub(x, z).tolist()])
fwAD = t.autograd.forward_ad
with fwAD.dual_level():
    b = fwAD.make_dual(t.zeros(2, dtype=t.complex128), t.tensor([-0.8 + 0.3j, 1 + 0j], dtype=t.complex128))
    print(fwAD.unpack_dual(t.tensor([0.3 - 0.7j, 1 + 0j], dtype=t.complex128) / b).tangent.tolist())
"""


def test_complex_add_and_sub_scale_their_second_operand_as_torch():
    """torch adds ``alpha * y`` with alpha = 1 multiplied in as a complex number: an infinite part of y makes NaN
    of the other part; NumPy's sum keeps it. Division's tangent subtracts (from zeros) the same way."""
    outputs = [subprocess.run([sys.executable, "-c", _NON_FINITE_SUMS, name], capture_output=True, text=True,
                              check=True).stdout for name in ("torch", "myautograd")]
    assert outputs[1] == outputs[0]


@pytest.mark.parametrize("shape", [(0, 10, 3, 2), (3, 0, 2), (0,), (0, 0, 1)])
def test_an_empty_tensor_has_torchs_row_major_strides_and_views_as_complex(shape):
    """NumPy gives an empty array zero strides, which view_as_complex refuses ("a last dimension with stride 1")."""
    assert myautograd.zeros(shape).stride() == torch.zeros(shape).stride()
    if shape[-1] == 2:
        assert tuple(myautograd.view_as_complex(myautograd.zeros(shape)).shape) == shape[:-1]


def test_torch_complex_of_empty_parts_has_an_empty_tangent():
    def tangent(namespace):
        forward_ad = namespace.autograd.forward_ad
        parts = [namespace.zeros(0, 10, 3, requires_grad=True) for _ in range(2)]
        with forward_ad.dual_level():
            out = namespace.complex(*(forward_ad.make_dual(p, namespace.ones(0, 10, 3)) for p in parts))
            result = forward_ad.unpack_dual(out).tangent
        return str(result.dtype), tuple(result.shape)

    assert tangent(myautograd) == tangent(torch)


@pytest.mark.parametrize("arguments", [("tensor", 2), (2, 3), (None, "tensor")])
def test_torch_complex_refuses_a_part_that_is_not_a_tensor_with_torchs_message(arguments):
    def message(namespace):
        values = [namespace.ones(2) if a == "tensor" else a for a in arguments]
        with pytest.raises(TypeError) as raised:
            namespace.complex(*values)
        return str(raised.value)

    assert message(myautograd) == message(torch)
