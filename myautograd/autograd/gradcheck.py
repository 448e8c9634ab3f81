"""``gradcheck`` and ``gradgradcheck``: derivatives checked against finite differences, as torch's.

``gradcheck(func, inputs)`` compares, for every output and every input that requires grad, the
Jacobian the engine computes (one vector-Jacobian product per output element) with the one
central differences give, ``(f(x + eps) - f(x - eps)) / (2 eps)`` element by element (with
``fast_mode``: one random projection ``u^T J v`` of each instead). It also checks that backward is
reentrant (the same gradients twice) and that zero output gradients give zero input gradients.
``gradgradcheck`` runs ``gradcheck`` on the function that computes the first derivatives with
``create_graph=True``, so it checks the second derivatives.

Inputs should be float64: in float32 the finite differences are too coarse (a warning says so).
A failure raises ``GradcheckError`` with torch's message, or returns False with
``raise_exception=False``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np

from .. import _backend
from .._missing import missing_attribute as _missing_attribute
from .._tensor import Tensor, make_tensor

NONDETERMINISM_HINT = (
    " Gradcheck with nondeterministic gradients may fail; set nondet_tol to the largest difference you "
    "tolerate between two runs of the same backward.")


class GradcheckError(RuntimeError):
    """A derivative that does not match its finite differences."""


GradcheckError.__module__ = "torch.autograd.gradcheck"


def _tuple(value) -> tuple:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def _differentiable_outputs(outputs) -> tuple[Tensor, ...]:
    return tuple(o for o in _tuple(outputs) if isinstance(o, Tensor) and o.requires_grad)


def _all_outputs(outputs) -> tuple[Tensor, ...]:
    return tuple(o for o in _tuple(outputs) if isinstance(o, Tensor))


def _checked_inputs(inputs: tuple) -> list[tuple[int, Tensor]]:
    checked = [(i, x) for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not checked:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")
    for index, x in checked:
        if x.dtype.name not in ("float64", "complex128"):
            warnings.warn(f"Input #{index} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating point "
                          "or complex. ", UserWarning, stacklevel=3)
    return checked


def _evaluate(func: Callable, inputs: tuple) -> list[np.ndarray]:
    """The outputs of ``func`` as float64 host arrays. Not under no_grad: ``func`` may differentiate
    (gradgradcheck's does)."""
    return [_backend.to_numpy(o._data).astype(np.float64) for o in _all_outputs(func(*inputs))]


def _numerical_jacobians(func, inputs: tuple, checked, eps: float) -> list[list[np.ndarray]]:
    """[input][output] -> (input numel, output numel): central differences, one element at a time,
    each perturbed in place in the input's own array, so that ``func`` sees it."""
    sizes = [o.size for o in _evaluate(func, inputs)]
    jacobians = []
    for _, x in checked:
        data = x._data
        columns: list[list[np.ndarray]] = []
        for position in np.ndindex(*data.shape):
            original = data[position].item()
            data[position] = original + eps
            plus = _evaluate(func, inputs)
            data[position] = original - eps
            minus = _evaluate(func, inputs)
            data[position] = original
            columns.append([((p - m) / (2 * eps)).reshape(-1) for p, m in zip(plus, minus)])
        jacobians.append([np.stack([c[k] for c in columns]) if columns else np.zeros((0, size))
                          for k, size in enumerate(sizes)])
    return jacobians


def _vjp(outputs: tuple[Tensor, ...], wrt: list[Tensor], grad_outputs: list[Tensor]) -> list:
    from . import grad

    return list(grad(outputs, wrt, grad_outputs, retain_graph=True, allow_unused=True))


def _analytical_jacobians(func, inputs: tuple, checked, nondet_tol: float) -> list[list[np.ndarray]]:
    """[input][output] -> (input numel, output numel): one vector-Jacobian product per output element,
    each computed twice to check that backward is reentrant."""
    outputs = _all_outputs(func(*inputs))
    wrt = [x for _, x in checked]
    jacobians = [[np.zeros((x.numel(), o.numel())) for o in outputs] for x in wrt]
    for k, out in enumerate(outputs):
        if not out.requires_grad:
            continue
        for position in range(out.numel()):
            unit = np.zeros(out.numel())
            unit[position] = 1.0
            grad_outputs = [make_tensor(_backend.host_value(unit.reshape(o.shape), o._data, o._data.dtype))
                            if i == k else o.new_zeros(o.shape) for i, o in enumerate(outputs)]
            differentiable = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
            first = _vjp(tuple(o for o, _ in differentiable), wrt, [g for _, g in differentiable])
            second = _vjp(tuple(o for o, _ in differentiable), wrt, [g for _, g in differentiable])
            for j, (a, b) in enumerate(zip(first, second)):
                a_values = _values(a, wrt[j])
                b_values = _values(b, wrt[j])
                if np.max(np.abs(a_values - b_values), initial=0.0) > nondet_tol:
                    raise GradcheckError(
                        "Backward is not reentrant, i.e., running backward with same input and grad_output multiple "
                        "times gives different values, although analytical gradient matches numerical gradient."
                        f"The tolerance for nondeterminism was {nondet_tol}." + NONDETERMINISM_HINT)
                jacobians[j][k][:, position] = a_values
    return jacobians


def _values(gradient, like: Tensor) -> np.ndarray:
    if gradient is None:
        return np.zeros(like.numel())
    return _backend.to_numpy(gradient._data).astype(np.float64).reshape(-1)


def _tensor(matrix: np.ndarray) -> Tensor:
    return make_tensor(matrix.astype(np.float64))


def _mismatch(output: int, input: int, numerical: np.ndarray, analytical: np.ndarray) -> str:
    return (f"Jacobian mismatch for output {output:d} with respect to input {input:d},\n"
            f"numerical:{_tensor(numerical)}\nanalytical:{_tensor(analytical)}\n")


def _check_undefined_grad(func, inputs: tuple, checked) -> None:
    """Zero gradients for every output must give input gradients that are None or zero."""
    outputs = _differentiable_outputs(func(*inputs))
    if not outputs:
        return
    wrt = [x for _, x in checked]
    try:
        grads = _vjp(outputs, wrt, [o.new_zeros(o.shape) for o in outputs])
    except RuntimeError as exc:
        raise GradcheckError("Expected backward function to handle undefined output grads. Please look at \"Notes "
                             "about undefined output gradients\" in \"tools/autograd/derivatives.yaml\"") from exc
    for g in grads:
        if g is not None and np.any(_backend.to_numpy(g._data) != 0):
            raise GradcheckError("Expected all input grads to be undefined or zero when all output grads are undefined "
                                 "or zero. Please look at \"Notes about undefined output gradients\" in "
                                 "\"tools/autograd/derivatives.yaml\"")


def _slow_check(func, inputs, checked, eps, atol, rtol, nondet_tol) -> None:
    numerical = _numerical_jacobians(func, inputs, checked, eps)
    analytical = _analytical_jacobians(func, inputs, checked, nondet_tol)
    for j in range(len(checked)):
        for k in range(len(numerical[j])):
            n, a = numerical[j][k], analytical[j][k]
            if not np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=False):
                raise GradcheckError(_mismatch(k, j, n, a))


def _fast_check(func, inputs, checked, eps, atol, rtol, nondet_tol) -> None:
    """One random projection per input and output: u^T J v by finite differences along v, and the
    vector-Jacobian product with u dotted with v."""
    rng = np.random.default_rng(0)
    outputs = _all_outputs(func(*inputs))
    wrt = [x for _, x in checked]
    for j, x in enumerate(wrt):
        direction = rng.standard_normal(x.numel())
        data = x._data
        original = data.copy()
        step = _backend.host_value((direction * eps).reshape(data.shape), data, data.dtype)
        data[...] = original + step
        plus = _evaluate(func, inputs)
        data[...] = original - step
        minus = _evaluate(func, inputs)
        data[...] = original
        for k, out in enumerate(outputs):
            u = rng.standard_normal(out.numel())
            numerical = float(u @ ((plus[k] - minus[k]).reshape(-1) / (2 * eps)))
            if out.requires_grad:
                g = make_tensor(_backend.host_value(u.reshape(out.shape), out._data, out._data.dtype))
                first = _vjp((out,), [x], [g])[0]
                second = _vjp((out,), [x], [g])[0]
                if np.max(np.abs(_values(first, x) - _values(second, x)), initial=0.0) > nondet_tol:
                    raise GradcheckError("Backward is not reentrant, i.e., running backward with same input and "
                                         "grad_output multiple times gives different values, although analytical "
                                         "gradient matches numerical gradient."
                                         f"The tolerance for nondeterminism was {nondet_tol}." + NONDETERMINISM_HINT)
                analytical = float(_values(first, x) @ direction)
            else:
                analytical = 0.0
            if not np.isclose(analytical, numerical, rtol=rtol, atol=atol):
                raise GradcheckError(
                    f"Jacobian mismatch for output {k:d} with respect to input {j:d},\n"
                    f"Numerical:\n {_tensor(np.asarray(numerical))}\nAnalytical:\n{_tensor(np.asarray(analytical))}\n\n"
                    "The above quantities relating the numerical and analytical jacobians are computed \n"
                    "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
                    "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n")


def gradcheck(func: Callable, inputs: Tensor | Sequence[Tensor], *, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Check the gradients ``func`` computes for ``inputs`` against finite differences."""
    if check_forward_ad or check_batched_grad or check_batched_forward_grad:
        raise NotImplementedError("myautograd has no forward-mode AD and no vmap: check_forward_ad, check_batched_grad "
                                  "and check_batched_forward_grad are not supported")
    inputs = _tuple(inputs)
    checked = _checked_inputs(inputs)
    try:
        if check_backward_ad:
            (_fast_check if fast_mode else _slow_check)(func, inputs, checked, eps, atol, rtol, nondet_tol)
            if check_grad_dtypes:
                _check_grad_dtypes(func, inputs, checked)
            if check_undefined_grad:
                _check_undefined_grad(func, inputs, checked)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _check_grad_dtypes(func, inputs, checked) -> None:
    outputs = _differentiable_outputs(func(*inputs))
    if not outputs:
        return
    wrt = [x for _, x in checked]
    for g, x in zip(_vjp(outputs, wrt, [o.new_ones(o.shape) for o in outputs]), wrt):
        if g is not None and (g.dtype != x.dtype or g.device != x.device):
            raise GradcheckError("Gradient has dtype mismatch" if g.dtype != x.dtype else "Gradient has device mismatch")


def gradgradcheck(func: Callable, inputs: Tensor | Sequence[Tensor],
                  grad_outputs: Tensor | Sequence[Tensor | None] | None = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False) -> bool:
    """``gradcheck`` of the first derivatives of ``func`` (computed with ``create_graph=True``) in its
    inputs and in the output gradients: a check of the second derivatives."""
    inputs = _tuple(inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            make_tensor(_backend.host_value(rng.uniform(-1, 1, tuple(o.shape)), o._data,
                                            o._data.dtype if o.dtype.name.startswith(("float", "complex"))
                                            else np.float64), True)
            for o in _differentiable_outputs(func(*inputs)))
    grad_outputs = _tuple(grad_outputs)
    count = len(grad_outputs)
    differentiable = {i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad}

    def first_derivatives(*args):
        from . import grad

        values = args[:len(args) - count]
        outputs = _differentiable_outputs(func(*values))
        wrt = tuple(x for i, x in enumerate(values) if i in differentiable)
        grads = grad(outputs, wrt, args[len(args) - count:], create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol, check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad, fast_mode=fast_mode,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev, masked=masked)


__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
