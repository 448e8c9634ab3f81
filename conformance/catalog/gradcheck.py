"""``gradcheck``: torch.autograd.gradcheck and gradgradcheck, judged as an API like any other.

Each case runs the checks on custom Functions that are right and on ones wrong on purpose (a sign
flipped, a conjugate missing, the imaginary part of the incoming gradient dropped, a second
derivative lost, a backward that changes from call to call, a nonzero gradient for zero output
gradients), real and complex, with the options that change what is checked (``fast_mode``,
``check_forward_ad``, ``check_batched_grad``, ``check_undefined_grad``, ``raise_exception``,
``nondet_tol``, ``atol``/``rtol``), and records what each returns or raises, message included.
The messages print Jacobians as tensors; fast mode's random projections are normalised away
(``normalize.py``, rule ``gradcheck_fast_mode``).
"""

from .. import docs
from ..case import Doc, case

# The pages live under the module's name; the docstrings are the functions' (torch.autograd.gradcheck).
GRADCHECK = Doc(f"{docs.DOCS_ROOT}/generated/torch.autograd.gradcheck.gradcheck.html",
                f"{docs.DOCSTRING_PREFIX}torch.autograd.gradcheck")
GRADGRADCHECK = Doc(f"{docs.DOCS_ROOT}/generated/torch.autograd.gradcheck.gradgradcheck.html",
                    f"{docs.DOCSTRING_PREFIX}torch.autograd.gradgradcheck")
REAL = ("non-scalar", "float64", "custom-function")
COMPLEX = (*REAL, "complex")


def cube(torch, *, sign=1.0, scale=1.0, keep_second_order=True):
    """A custom Function x ** 3 whose backward is multiplied by ``sign * scale``; without
    ``keep_second_order`` its backward treats one factor of x as a constant."""

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            factor = x if keep_second_order else x.detach()
            return grad * 3 * x * factor * (sign * scale)

    return Cube.apply


def square(torch, *, conjugate=True, drop_imaginary_grad=False):
    """A custom Function z * z of a complex z; its backward is grad * 2 conj(z), or grad * 2 z
    without ``conjugate``; with ``drop_imaginary_grad`` it uses only the real part of grad."""

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z * z

        @staticmethod
        def backward(ctx, grad):
            (z,) = ctx.saved_tensors
            if drop_imaginary_grad:
                grad = grad.real.to(z.dtype)
            return grad * 2 * (z.conj() if conjugate else z)

    return Square.apply


def attempt_check(torch, rec, label, check, *args, **kwargs):
    """Record what ``check(*args, **kwargs)`` returns, or the exception it raises."""
    with rec.attempt(label):
        rec(label, check(*args, **kwargs))


@case("gradcheck and gradgradcheck return True for right derivatives: a custom Function, built-in operators of "
      "two inputs, in slow and fast mode", doc=GRADCHECK,
      features=REAL)
def right_real_derivatives_pass(torch, rec):
    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True, device=rec.device)
    y = torch.tensor([1.5, 0.7, -0.4], dtype=torch.float64, requires_grad=True, device=rec.device)
    check = torch.autograd.gradcheck
    attempt_check(torch, rec, "gradcheck(Cube)", check, cube(torch), (x,))
    attempt_check(torch, rec, "gradcheck(Cube, fast_mode=True)", check, cube(torch), (x,), fast_mode=True)
    attempt_check(torch, rec, "gradcheck(x * y.sin())", check, lambda a, b: a * b.sin(), (x, y))
    attempt_check(torch, rec, "gradcheck(atan2, fast_mode=True)", check, torch.atan2, (x, y), fast_mode=True)
    attempt_check(torch, rec, "gradgradcheck(Cube)", torch.autograd.gradgradcheck, cube(torch), (x,))
    attempt_check(torch, rec, "gradgradcheck(x * y.sin())", torch.autograd.gradgradcheck,
                  lambda a, b: a * b.sin(), (x, y))


@case("A wrong derivative: gradcheck raises GradcheckError with both Jacobians, or returns False with "
      "raise_exception=False; fast mode's message adds the slow-mode Jacobians; gradgradcheck catches a lost second "
      "derivative", doc=GRADGRADCHECK, tags=("error",),
      features=REAL)
def wrong_real_derivative_caught(torch, rec):
    x = torch.tensor([0.3, -1.2], dtype=torch.float64, requires_grad=True, device=rec.device)
    wrong = cube(torch, sign=-1.0)
    with rec.attempt("gradcheck(wrong Cube)"):
        torch.autograd.gradcheck(wrong, (x,))
    attempt_check(torch, rec, "raise_exception=False", torch.autograd.gradcheck, wrong, (x,), raise_exception=False)
    with rec.attempt("gradcheck(wrong Cube, fast_mode=True)"):
        torch.autograd.gradcheck(wrong, (x,), fast_mode=True)
    attempt_check(torch, rec, "fast mode, raise_exception=False", torch.autograd.gradcheck, wrong, (x,),
                  fast_mode=True, raise_exception=False)
    attempt_check(torch, rec, "gradgradcheck(wrong Cube): its own second derivative is consistent",
                  torch.autograd.gradgradcheck, wrong, (x,))
    grad_outputs = (torch.tensor([1.0, -0.5], dtype=torch.float64, device=rec.device),)
    with rec.attempt("gradgradcheck(Cube whose backward loses a second derivative)"):
        torch.autograd.gradgradcheck(cube(torch, keep_second_order=False), (x,), grad_outputs)


@case("gradcheck's tolerances: a derivative 1% off fails at the default rtol (1e-3) and passes with rtol=0.05; "
      "atol alone decides where the derivative is near 0", doc=GRADCHECK, tags=("error",),
      features=REAL)
def tolerances_decide(torch, rec):
    x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True, device=rec.device)
    off = cube(torch, scale=1.01)
    attempt_check(torch, rec, "default tolerances", torch.autograd.gradcheck, off, (x,), raise_exception=False)
    attempt_check(torch, rec, "rtol=0.05", torch.autograd.gradcheck, off, (x,), rtol=0.05)
    small = torch.tensor([0.01, -0.02], dtype=torch.float64, requires_grad=True, device=rec.device)
    attempt_check(torch, rec, "near 0, atol=1e-2, rtol=0", torch.autograd.gradcheck, off, (small,), atol=1e-2, rtol=0)
    with rec.attempt("near 0, atol=1e-9, rtol=0"):
        torch.autograd.gradcheck(off, (small,), atol=1e-9, rtol=0)


@case("Complex gradcheck checks the real and the imaginary part of a complex output separately (the imaginary "
      "first) against conjugate Wirtinger Jacobians: right derivatives pass", doc=docs.COMPLEX,
      features=COMPLEX)
def right_complex_derivatives_pass(torch, rec):
    z = torch.tensor([0.3 + 0.5j, -1.2 + 0.1j], dtype=torch.complex128, requires_grad=True, device=rec.device)
    check = torch.autograd.gradcheck
    attempt_check(torch, rec, "gradcheck(Square)", check, square(torch), (z,))
    attempt_check(torch, rec, "gradcheck(Square, fast_mode=True)", check, square(torch), (z,), fast_mode=True)
    attempt_check(torch, rec, "gradcheck(sin)", check, torch.sin, (z,))
    attempt_check(torch, rec, "gradcheck(1 / z)", check, lambda w: 1 / w, (z,))
    attempt_check(torch, rec, "gradcheck(z ** 3, fast_mode=True)", check, lambda w: w ** 3, (z,), fast_mode=True)
    attempt_check(torch, rec, "gradcheck(|z|^2 real output)", check, lambda w: (w * w.conj()).real, (z,))
    attempt_check(torch, rec, "gradgradcheck(Square)", torch.autograd.gradgradcheck, square(torch), (z,))


@case("Complex gradcheck catches a missing conjugate (in the imaginary part, checked first) and a backward that "
      "drops the imaginary part of its incoming gradient (right for the real part only)", doc=docs.COMPLEX,
      tags=("error",),
      features=COMPLEX)
def wrong_complex_derivatives_caught(torch, rec):
    z = torch.tensor([0.3 + 0.5j, -1.2 + 0.1j], dtype=torch.complex128, requires_grad=True, device=rec.device)
    no_conjugate = square(torch, conjugate=False)
    with rec.attempt("gradcheck(Square without conjugate)"):
        torch.autograd.gradcheck(no_conjugate, (z,))
    attempt_check(torch, rec, "raise_exception=False", torch.autograd.gradcheck, no_conjugate, (z,),
                  raise_exception=False)
    with rec.attempt("gradcheck(Square without conjugate, fast_mode=True)"):
        torch.autograd.gradcheck(no_conjugate, (z,), fast_mode=True)
    with rec.attempt("gradcheck(Square dropping the gradient's imaginary part)"):
        torch.autograd.gradcheck(square(torch, drop_imaginary_grad=True), (z,))
    with rec.attempt("gradcheck of a real output of Square without conjugate"):
        torch.autograd.gradcheck(lambda w: no_conjugate(w).abs(), (z,))


@case("A real input of a complex function: its Jacobian is real; a complex gradient for it is caught",
      doc=docs.COMPLEX, tags=("error",),
      features=COMPLEX)
def real_input_complex_output(torch, rec):
    x = torch.tensor([0.4, -0.9], dtype=torch.float64, requires_grad=True, device=rec.device)
    c = torch.tensor([1 + 2j, -0.5 + 1j], dtype=torch.complex128, device=rec.device)
    attempt_check(torch, rec, "gradcheck(x * c)", torch.autograd.gradcheck, lambda a: a * c, (x,))
    attempt_check(torch, rec, "gradcheck(x * c, check_grad_dtypes=True)", torch.autograd.gradcheck,
                  lambda a: a * c, (x,), check_grad_dtypes=True)
    attempt_check(torch, rec, "gradgradcheck((x * c) ** 2)", torch.autograd.gradgradcheck, lambda a: (a * c) ** 2, (x,))


@case("nondet_tol: a backward that changes a little from call to call is not reentrant and fails; within "
      "nondet_tol it passes", doc=GRADCHECK, tags=("error",),
      features=REAL)
def nondeterministic_backward(torch, rec):
    calls = []

    class Drifting(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            calls.append(None)
            return grad * (2 + len(calls) * 1e-9)

    x = torch.tensor([0.5, -1.5], dtype=torch.float64, requires_grad=True, device=rec.device)
    with rec.attempt("gradcheck(Drifting)"):
        torch.autograd.gradcheck(Drifting.apply, (x,))
    attempt_check(torch, rec, "nondet_tol=1e-6", torch.autograd.gradcheck, Drifting.apply, (x,), nondet_tol=1e-6)
    with rec.attempt("fast_mode=True"):
        torch.autograd.gradcheck(Drifting.apply, (x,), fast_mode=True)


@case("A backward that gives nonzero gradients for zero output gradients is not multiplied by grad_output; "
      "check_undefined_grad (on by default) fails one that gives nonzero gradients for undefined ones (materialize_grads "
      "off), and check_undefined_grad=False lets it pass", doc=GRADCHECK, tags=("error",),
      features=REAL)
def undefined_output_gradients(torch, rec):
    class NonzeroForZero(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2 + (grad == 0).all().to(grad.dtype)

    class NonzeroForUndefined(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return torch.ones_like(x) if grad is None else grad * 2

    x = torch.tensor([0.5, -1.5], dtype=torch.float64, requires_grad=True, device=rec.device)
    with rec.attempt("gradcheck(NonzeroForZero)"):
        torch.autograd.gradcheck(NonzeroForZero.apply, (x,))
    with rec.attempt("gradcheck(NonzeroForUndefined)"):
        torch.autograd.gradcheck(NonzeroForUndefined.apply, (x,))
    attempt_check(torch, rec, "check_undefined_grad=False", torch.autograd.gradcheck, NonzeroForUndefined.apply, (x,),
                  check_undefined_grad=False)


@case("check_forward_ad: built-in operators pass; a custom Function without jvp raises NotImplementedError; "
      "a wrong jvp is caught", doc=GRADCHECK, tags=("error",),
      features=(*REAL, "forward-ad"))
def forward_mode_checked(torch, rec):
    class WrongJvp(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_forward(*inputs)
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, grad):
            (result,) = ctx.saved_tensors
            return grad * result

        @staticmethod
        def jvp(ctx, tangent):
            (x,) = ctx.saved_tensors
            return tangent * x

    x = torch.tensor([0.3, -0.8], dtype=torch.float64, requires_grad=True, device=rec.device)
    attempt_check(torch, rec, "gradcheck(sin, check_forward_ad=True)", torch.autograd.gradcheck, torch.sin, (x,),
                  check_forward_ad=True)
    with rec.attempt("gradcheck(Cube, check_forward_ad=True)"):
        torch.autograd.gradcheck(cube(torch), (x,), check_forward_ad=True)
    with rec.attempt("gradcheck(WrongJvp, check_forward_ad=True)"):
        torch.autograd.gradcheck(WrongJvp.apply, (x,), check_forward_ad=True)
    attempt_check(torch, rec, "gradcheck(WrongJvp) in reverse mode only", torch.autograd.gradcheck, WrongJvp.apply, (x,))


@case("check_batched_grad: built-in operators and a custom Function pass (gradients of a batch of output "
      "gradients through vmap match one by one)", doc=GRADCHECK,
      features=(*REAL, "vmap"))
def batched_gradients_checked(torch, rec):
    x = torch.tensor([0.3, -0.8, 1.1], dtype=torch.float64, requires_grad=True, device=rec.device)
    attempt_check(torch, rec, "gradcheck(tanh, check_batched_grad=True)", torch.autograd.gradcheck, torch.tanh, (x,),
                  check_batched_grad=True)
    attempt_check(torch, rec, "gradcheck(Cube, check_batched_grad=True)", torch.autograd.gradcheck, cube(torch), (x,),
                  check_batched_grad=True)
    attempt_check(torch, rec, "gradgradcheck(tanh, check_batched_grad=True)", torch.autograd.gradgradcheck, torch.tanh,
                  (x,), check_batched_grad=True)


@case("Bad input: no input that requires grad is a ValueError; float32 inputs warn and their finite differences "
      "are too coarse", doc=GRADCHECK, tags=("error", "warning"),
      features=("non-scalar", "float64"))
def bad_inputs(torch, rec):
    with rec.attempt("no input requires grad"):
        torch.autograd.gradcheck(torch.sin, (torch.tensor([0.3], dtype=torch.float64, device=rec.device),))
    x = torch.tensor([0.3, 1.0], requires_grad=True, device=rec.device)
    attempt_check(torch, rec, "float32 input", torch.autograd.gradcheck, torch.sin, (x,), raise_exception=False)
    attempt_check(torch, rec, "float32 input, atol=1e-2", torch.autograd.gradcheck, torch.sin, (x,), atol=1e-2)
