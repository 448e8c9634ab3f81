"""``gradcheck`` and ``gradgradcheck``: derivatives checked against finite differences, as torch's.

``gradcheck(func, inputs)`` compares, for every differentiable output and every input that requires
grad, the Jacobian the engine computes (one vector-Jacobian product per output element, each run
twice to check that backward is reentrant within ``nondet_tol``) with the one central differences
give, ``(f(x + eps) - f(x - eps)) / (2 eps)`` element by element.

Complex numbers follow torch's convention. A complex output is checked as two real functions, its
imaginary part first, then its real part (a failure says which: "While considering the imaginary
part of complex outputs only, ..."). For a complex input the numerical Jacobian entry is the
conjugate Wirtinger derivative ``ds/dx + i ds/dy`` of a real output ``s``, which is what a
vector-Jacobian product with a real gradient gives under torch's convention; both Jacobians are in
the input's dtype.

``fast_mode`` compares one random projection ``v^T J u`` of each pair of Jacobians (``u`` real, per
output; ``v`` per input, complex for a complex input) and, where they differ, prints both Jacobians
in full as torch's fast mode does when it recomputes them; this engine computes the full Jacobians
in both modes (the projections decide the verdict; they are not cheaper here).

After the Jacobians: ``check_forward_ad`` (forward-mode Jacobians of real inputs, one tangent per
input element), ``check_batched_grad`` (``autograd.grad`` over a batch of two output gradients with
``is_grads_batched`` against one at a time), zero output gradients must give zero input gradients
("backward not multiplied by grad_output"), and ``check_undefined_grad``: undefined (None) output
gradients must give undefined or zero input gradients. A failure raises ``GradcheckError`` with
torch's message, or returns False with ``raise_exception=False``.

``gradgradcheck`` runs ``gradcheck`` on the function that computes the first derivatives with
``create_graph=True``, so it checks the second derivatives.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np

from .. import _backend
from .._missing import missing_attribute as _missing_attribute
from .._tensor import Tensor, make_tensor

NONDETERMINISM_NOTE = """

NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""
UNDEFINED_NOTE = 'Please look at "Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
FAST_MODE_NOTE = ("The above quantities relating the numerical and analytical jacobians are computed \n"
                  "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
                  "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n")


class GradcheckError(RuntimeError):
    """A derivative that does not match its finite differences."""


GradcheckError.__module__ = "torch.autograd.gradcheck"


# -- inputs and outputs --------------------------------------------------------------------------------
def _tuple(value) -> tuple:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def _tensors(outputs) -> tuple[Tensor, ...]:
    return tuple(o for o in _tuple(outputs) if isinstance(o, Tensor))


def _differentiable(outputs) -> tuple[Tensor, ...]:
    return tuple(o for o in _tensors(outputs) if o.requires_grad)


def _checked_inputs(inputs: tuple) -> list[Tensor]:
    checked = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    if not checked:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")
    for index, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad and x.dtype.name not in ("float64", "complex128"):
            warnings.warn(f"Input #{index} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating point "
                          "or complex. ", UserWarning, stacklevel=3)
    return checked


def _part_of_complex_outputs(func: Callable, part: str) -> Callable:
    """``func`` with each complex output replaced by its real or imaginary part."""
    def real_valued(*inputs):
        return tuple(getattr(o, part) if o.is_complex() else o for o in _tensors(func(*inputs)))

    return real_valued


def _host(tensor: Tensor) -> np.ndarray:
    return _backend.to_numpy(tensor._data)


def _tensor(matrix: np.ndarray) -> Tensor:
    return make_tensor(matrix)


# -- Jacobians -------------------------------------------------------------------------------------------
def _numerical(func: Callable, inputs: tuple, checked: list[Tensor], eps: float) -> list[list[np.ndarray]]:
    """[input][output] -> (input numel, output numel) by central differences, each element perturbed in
    place in the input's own array (real, then imaginary for a complex input: ``ds/dx + i ds/dy``)."""
    def difference(data, position, step):
        original = data[position].item()
        data[position] = original + step
        plus = [_host(o).copy() for o in _tensors(func(*inputs))]  # an output may share the input's memory
        data[position] = original - step
        minus = [_host(o).copy() for o in _tensors(func(*inputs))]
        data[position] = original
        return [((p - m) / (2 * eps)).reshape(-1) for p, m in zip(plus, minus)]

    sizes = [o.numel() for o in _tensors(func(*inputs))]
    jacobians = []
    for x in checked:
        data = x._data
        rows = []
        for position in np.ndindex(*data.shape):
            row = difference(data, position, eps)
            if x.is_complex():
                row = [real + 1j * imaginary for real, imaginary in zip(row, difference(data, position, 1j * eps))]
            rows.append(row)
        jacobians.append([np.array([r[k] for r in rows], dtype=data.dtype).reshape(data.size, size)
                          for k, size in enumerate(sizes)])
    return jacobians


def _vjp(outputs: tuple[Tensor, ...], wrt: list[Tensor], grad_outputs: list) -> list:
    from . import grad

    return list(grad(outputs, wrt, grad_outputs, retain_graph=True, allow_unused=True))


def _values(gradient, like: Tensor) -> np.ndarray:
    return np.zeros(like.numel(), like._data.dtype) if gradient is None else _host(gradient).reshape(-1)


def _analytical(func: Callable, inputs: tuple, checked: list[Tensor], nondet_tol: float) -> list[list[np.ndarray]]:
    """[input][output] -> (input numel, output numel): one vector-Jacobian product per element of each
    differentiable output, computed twice to check that backward is reentrant."""
    outputs = _differentiable(func(*inputs))
    jacobians = [[np.zeros((x.numel(), o.numel()), x._data.dtype) for o in outputs] for x in checked]
    for k, out in enumerate(outputs):
        for position in range(out.numel()):
            unit = np.zeros(out.numel(), _host(out).dtype)
            unit[position] = 1
            grad_outputs = [make_tensor(_backend.host_value(unit.reshape(o.shape), o._data, o._data.dtype))
                            if i == k else o.new_zeros(o.shape) for i, o in enumerate(outputs)]
            first = _vjp(outputs, checked, grad_outputs)
            second = _vjp(outputs, checked, grad_outputs)
            for j, (a, b) in enumerate(zip(first, second)):
                a_values, b_values = _values(a, checked[j]), _values(b, checked[j])
                if np.max(np.abs(a_values - b_values), initial=0.0) > nondet_tol:
                    raise GradcheckError(
                        "Backward is not reentrant, i.e., running backward with same input and grad_output multiple "
                        "times gives different values, although analytical gradient matches numerical gradient."
                        f"The tolerance for nondeterminism was {nondet_tol}." + NONDETERMINISM_NOTE)
                jacobians[j][k][:, position] = a_values
    return jacobians


def _close(analytical, numerical, rtol: float, atol: float) -> bool:
    return bool(np.allclose(analytical, numerical, rtol=rtol, atol=atol))


def _mismatch(prefix: str, output: int, input: int, numerical, analytical, mode: str = "") -> str:
    return (f"{prefix}Jacobian {mode}mismatch for output {output:d} with respect to input {input:d},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


def _check_jacobians(func, inputs, checked, eps, atol, rtol, nondet_tol, fast_mode: bool, prefix: str) -> None:
    numerical = _numerical(func, inputs, checked, eps)
    kept = [i for i, o in enumerate(_tensors(func(*inputs))) if o.requires_grad]
    numerical = [[per_input[i] for i in kept] for per_input in numerical]
    analytical = _analytical(func, inputs, checked, nondet_tol)
    rng = np.random.default_rng(0)
    for k in range(len(kept)):
        for j, x in enumerate(checked):
            n, a = numerical[j][k], analytical[j][k]
            if not fast_mode:
                if not _close(a, n, rtol, atol):
                    raise GradcheckError(_mismatch(prefix, k, j, _tensor(n), _tensor(a)))
                continue
            u = rng.standard_normal(n.shape[1])
            v = rng.standard_normal(n.shape[0])
            if x.is_complex():
                v = v + 1j * rng.standard_normal(n.shape[0])
            n_projected, a_projected = (v @ n @ u).item(), (v @ a @ u).item()
            if not _close(a_projected, n_projected, rtol, atol):
                largest = float(np.max(np.abs(a - n), initial=0.0))
                raise GradcheckError(
                    _mismatch(prefix, k, j, n_projected, a_projected) + "\n" + FAST_MODE_NOTE
                    + f"Numerical:\n {_tensor(n)}\nAnalytical:\n{_tensor(a)}\n\n"
                    f"The max per-element difference (slow mode) is: {largest}.\n")


def _check_backward(func, inputs, checked, eps, atol, rtol, nondet_tol, fast_mode) -> None:
    outputs = _differentiable(func(*inputs))
    if not any(o.is_complex() for o in outputs):
        _check_jacobians(func, inputs, checked, eps, atol, rtol, nondet_tol, fast_mode, "")
        return
    for part in ("imag", "real"):
        prefix = f"While considering the {'imaginary' if part == 'imag' else 'real'} part of complex outputs only, "
        _check_jacobians(_part_of_complex_outputs(func, part), inputs, checked, eps, atol, rtol, nondet_tol,
                         fast_mode, prefix)


def _check_forward(func, inputs, checked, eps, atol, rtol) -> None:
    """Forward-mode Jacobians (one unit tangent per element of each real input) against central differences."""
    from . import forward_ad

    numerical = _numerical(func, inputs, checked, eps)
    for j, x in enumerate(checked):
        columns = []
        for position in range(x.numel()):
            unit = np.zeros(x.numel(), x._data.dtype)
            unit[position] = 1
            with forward_ad.dual_level():
                duals = tuple(
                    forward_ad.make_dual(a, make_tensor(_backend.host_value(unit.reshape(a.shape), a._data,
                                                                            a._data.dtype)))
                    if a is x else a for a in inputs)
                tangents = [forward_ad.unpack_dual(o).tangent for o in _tensors(func(*duals))]
            columns.append([_values(t, o) for t, o in zip(tangents, _tensors(func(*inputs)))])
        for k, n in enumerate(numerical[j]):
            a = np.array([c[k] for c in columns]).reshape(n.shape)
            if not _close(a, n, rtol, atol):
                raise GradcheckError(_mismatch("", k, j, _tensor(n), _tensor(a.astype(n.dtype)),
                                               "computed with forward mode "))


def _check_batched_gradients(outputs: tuple[Tensor, ...], checked: list[Tensor]) -> None:
    """``autograd.grad`` with ``is_grads_batched`` over two random output gradients, against each alone."""
    from . import grad

    rng = np.random.default_rng(1)
    for k, out in enumerate(outputs):
        batch = [_backend.host_value(rng.standard_normal(tuple(out.shape)), out._data, out._data.dtype)
                 for _ in range(2)]
        one_by_one = [_vjp((out,), checked, [make_tensor(g)]) for g in batch]
        stacked = make_tensor(np.stack(batch))
        batched = grad((out,), checked, (stacked,), retain_graph=True, allow_unused=True, is_grads_batched=True)
        for j, (x, result) in enumerate(zip(checked, batched)):
            got = np.zeros((2, x.numel())) if result is None else _host(result).reshape(2, -1)
            expected = np.stack([_values(alone[j], x) for alone in one_by_one])
            if not np.allclose(got, expected):
                raise GradcheckError(f"For output {k} and input {j}:\n\ngradcheck or gradgradcheck failed while "
                                     f"testing batched gradient computation.\n\nGot:\n{_tensor(got)}\n\n"
                                     f"Expected:\n{_tensor(expected)}\n")


def _check_multiplied_by_grad_output(outputs: tuple[Tensor, ...], checked: list[Tensor]) -> None:
    grads = _vjp(outputs, checked, [o.new_zeros(o.shape) for o in outputs])
    for g, x in zip(grads, checked):
        if g is None:
            continue
        if g.dtype != x.dtype:
            raise GradcheckError("grad is incorrect type")
        if tuple(g.shape) != tuple(x.shape):
            raise GradcheckError("grad is incorrect size")
        if np.any(_host(g) != 0):
            raise GradcheckError("backward not multiplied by grad_output")


class _UndefinedGradient:
    """A custom Function whose backward gives no gradient (None): what torch's UndefinedGrad node does."""

    _function = None

    @classmethod
    def apply(cls, tensor: Tensor) -> Tensor:
        if cls._function is None:
            from .function import Function

            class UndefinedGrad(Function):
                @staticmethod
                def forward(ctx, x):
                    return x.clone()

                @staticmethod
                def backward(ctx, grad):
                    return None

            cls._function = UndefinedGrad
        return cls._function.apply(tensor)


def _warn_undefined_check_is_new() -> None:
    warnings.warn("Backwards compatibility: New undefined gradient support checking feature is enabled by default, "
                  "but it may break existing callers of this function. If this is true for you, you can call this "
                  "function with \"check_undefined_grad=False\" to disable the feature", UserWarning, stacklevel=4)


def _check_undefined_grad(outputs: tuple[Tensor, ...], checked: list[Tensor]) -> None:
    """Undefined (None) gradients for every output must give input gradients that are None or zero; a
    failure first warns that the check is new, as torch's does."""
    from . import grad

    undefined = [_UndefinedGradient.apply(o) for o in outputs]
    try:
        grads = grad(undefined, checked, [o.new_ones(o.shape) for o in undefined], retain_graph=True,
                     allow_unused=True)
    except RuntimeError as exc:
        _warn_undefined_check_is_new()
        raise GradcheckError(f"Expected backward function to handle undefined output grads. {UNDEFINED_NOTE}") from exc
    if any(g is not None and np.any(_host(g) != 0) for g in grads):
        _warn_undefined_check_is_new()
        raise GradcheckError("Expected all input grads to be undefined or zero when all output grads are undefined "
                             f"or zero. {UNDEFINED_NOTE}")


def _check_grad_dtypes(outputs: tuple[Tensor, ...], checked: list[Tensor]) -> None:
    for g, x in zip(_vjp(outputs, checked, [o.new_ones(o.shape) for o in outputs]), checked):
        if g is not None and (g.dtype != x.dtype or g.device != x.device):
            raise GradcheckError("Gradient has dtype mismatch" if g.dtype != x.dtype else "Gradient has device mismatch")


# -- the API ---------------------------------------------------------------------------------------------
def gradcheck(func: Callable, inputs: Tensor | Sequence[Tensor], *, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Check the gradients ``func`` computes for ``inputs`` against finite differences."""
    if check_batched_forward_grad:
        raise NotImplementedError("myautograd's gradcheck does not check batched forward-mode gradients "
                                  "(check_batched_forward_grad)")
    inputs = _tuple(inputs)
    checked = _checked_inputs(inputs)
    outputs = _differentiable(func(*inputs))
    try:
        if check_backward_ad:
            _check_backward(func, inputs, checked, eps, atol, rtol, nondet_tol, fast_mode)
            if check_grad_dtypes and outputs:
                _check_grad_dtypes(outputs, checked)
        if check_forward_ad:
            _check_forward(func, inputs, checked, eps, atol, rtol)
        if check_backward_ad and outputs:
            if check_batched_grad:
                _check_batched_gradients(outputs, checked)
            _check_multiplied_by_grad_output(outputs, checked)
            if check_undefined_grad:
                _check_undefined_grad(outputs, checked)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


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
            for o in _differentiable(func(*inputs)))
    grad_outputs = _tuple(grad_outputs)
    count = len(grad_outputs)
    differentiable = {i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad}

    def first_derivatives(*args):
        from . import grad

        values = args[:len(args) - count]
        outputs = _differentiable(func(*values))
        wrt = tuple(x for i, x in enumerate(values) if i in differentiable)
        grads = grad(outputs, wrt, args[len(args) - count:], create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol, check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad, fast_mode=fast_mode,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev, masked=masked)


__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
