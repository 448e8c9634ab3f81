"""``complex_autograd``: gradients of complex tensors, by the conjugate Wirtinger convention.

For a real loss ``L`` of a complex ``z``, torch's gradient is ``dL/dz*`` (times 2): the direction of
steepest ascent, so that ``z - lr * z.grad`` descends. A complex output needs an explicit gradient;
a gradient's dtype must match its output's in complexness; a real leaf used in a complex computation
gets a real gradient; ``view_as_real``/``view_as_complex`` are views whose gradients are the same
numbers seen the other way; optimizers step complex parameters as pairs of reals. Where a function
is not holomorphic (``abs``, ``angle``, ``conj``) the gradient is still the conjugate Wirtinger one,
with torch's conventions at 0.
"""

from .. import docs
from ..case import case

COMPLEX = ("non-scalar", "complex")
VIEW_AS_COMPLEX = docs.docstring("torch.view_as_complex")
VIEW_AS_REAL = docs.docstring("torch.view_as_real")


@case("A complex output needs an explicit gradient: backward() and autograd.grad without grad_outputs raise; "
      "with a gradient of 1 they run", doc=docs.COMPLEX, tags=("error",),
      features=(*COMPLEX, "autograd.grad", "retain-graph"))
def complex_output_needs_a_gradient(torch, rec):
    z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True, device=rec.device)
    out = (z * z).sum()
    rec("out", out)
    with rec.attempt("out.backward()"):
        out.backward(retain_graph=True)
    with rec.attempt("torch.autograd.grad(out, z)"):
        torch.autograd.grad(out, z, retain_graph=True)
    with rec.attempt("torch.autograd.grad of a complex vector without grad_outputs"):
        torch.autograd.grad(z * z, z, retain_graph=True)
    out.backward(torch.tensor(1 + 0j, device=rec.device))
    rec("z.grad after backward(1)", z.grad)


@case("A real loss of complex parameters: the gradient is the conjugate Wirtinger one (|z|^2 gives 2z, "
      "Re(conj(a) w) gives a for w and conj(w) for a)", doc=docs.COMPLEX,
      features=COMPLEX)
def real_loss_of_complex_parameters(torch, rec):
    a = torch.tensor([1 + 2j, -0.5 + 1j], requires_grad=True, device=rec.device)
    w = torch.tensor([3 - 1j, 2 + 0.5j], requires_grad=True, device=rec.device)
    loss = (a.conj() * w).real.sum() + (a.abs() ** 2).sum() + (w * w).imag.sum()
    rec("loss", loss)
    loss.backward()
    rec("a.grad", a.grad)
    rec("w.grad", w.grad)


@case("The .grad of a complex leaf has the leaf's complex dtype; an explicit complex gradient g of c * z gives "
      "conj(c) g, and a second backward accumulates", doc=docs.COMPLEX,
      features=(*COMPLEX, "float64"))
def complex_leaf_grad(torch, rec):
    z = torch.tensor([1 + 1j, 2 - 3j], dtype=torch.complex128, requires_grad=True, device=rec.device)
    c = torch.tensor([2 + 1j, -1 + 0.5j], dtype=torch.complex128, device=rec.device)
    g = torch.tensor([1 - 1j, 0.5 + 2j], dtype=torch.complex128, device=rec.device)
    (c * z).backward(g)
    rec("z.grad", z.grad)
    rec("z.grad.dtype", z.grad.dtype)
    (z * z).sum().real.backward()
    rec("z.grad after a second backward", z.grad)
    single = torch.tensor([1 + 1j], requires_grad=True, device=rec.device)
    (single * 3).abs().sum().backward()
    rec("complex64 leaf's grad", single.grad)


@case("A real leaf used in a complex computation gets a real gradient (the real part of the complex one); "
      "its conversion to complex is ToCopyBackward0", doc=docs.COMPLEX,
      features=(*COMPLEX, "graph-introspection"))
def real_leaf_in_complex_computation(torch, rec):
    x = torch.tensor([1.0, -2.0], requires_grad=True, device=rec.device)
    c = torch.tensor([1 + 2j, 3 - 1j], device=rec.device)
    y = x * c
    rec("y", y)
    rec("x.to(complex64) node", x.to(torch.complex64).grad_fn.name())
    (y * y).abs().sum().backward()
    rec("x.grad", x.grad)
    rec("x.grad.dtype", x.grad.dtype)
    t = torch.tensor([0.5, 1.5], requires_grad=True, device=rec.device)
    (t * (1 + 1j)).imag.sum().backward()
    rec("t.grad through a Python complex", t.grad)


@case("Gradients of another dtype: complex for a real output and real for a complex one raise; "
      "float64 for float32 and complex128 for complex64 are cast to the output's dtype",
      doc=docs.AUTOGRAD_BACKWARD, tags=("error",),
      features=(*COMPLEX, "autograd.grad", "float64"))
def gradient_dtype_mixing(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    z = torch.tensor([1 + 1j, 2 - 1j], requires_grad=True, device=rec.device)
    with rec.attempt("complex gradient for x * 2"):
        (x * 2).backward(torch.tensor([1 + 1j, 1 + 0j], device=rec.device))
    with rec.attempt("real gradient for z * 2"):
        torch.autograd.grad(z * 2, z, torch.tensor([1.0, 1.0], device=rec.device))
    with rec.attempt("real gradient for x * c"):
        torch.autograd.grad(x * torch.tensor([1j, 2j], device=rec.device), x, torch.tensor([1.0, 1.0], device=rec.device))
    (gx,) = torch.autograd.grad(x * 2, x, torch.tensor([1.0, 3.0], dtype=torch.float64, device=rec.device))
    rec("float64 gradient for a float32 output", gx)
    (gz,) = torch.autograd.grad(z * 2, z, torch.tensor([1 + 1j, 1 - 1j], dtype=torch.complex128, device=rec.device))
    rec("complex128 gradient for a complex64 output", gz)


@case("Functions that are not holomorphic: abs (0 at 0, z/|z| elsewhere), angle (0 at 0), conj(z) * z",
      doc=docs.COMPLEX,
      features=COMPLEX)
def non_holomorphic_functions(torch, rec):
    z = torch.tensor([0j, 3 + 4j, -2 + 0j], requires_grad=True, device=rec.device)
    z.abs().sum().backward()
    rec("abs: z.grad", z.grad)
    u = torch.tensor([0j, 1j, -1 + 0j, 1 + 1j], requires_grad=True, device=rec.device)
    u.angle().sum().backward()
    rec("angle: u.grad", u.grad)
    w = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True, device=rec.device)
    squared = w.conj() * w
    rec("conj(w) * w", squared)
    squared.backward(torch.tensor([1 + 0j, 2 - 1j], device=rec.device))
    rec("conj(w) * w: w.grad", w.grad)


@case("view_as_complex of a real (..., 2) tensor is a view; the gradient reaching the real tensor is the complex "
      "one's real and imaginary parts; the shape and stride it needs are checked", doc=VIEW_AS_COMPLEX,
      tags=("error",),
      features=(*COMPLEX, "views", "graph-introspection"))
def view_as_complex_gradients(torch, rec):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, device=rec.device)
    c = torch.view_as_complex(x)
    rec("c", c)
    rec("c._base is x", c._base is x)
    rec("c node", c.grad_fn.name())
    (c * (2 - 1j)).abs().sum().backward()
    rec("x.grad", x.grad)
    with rec.attempt("a last dimension of size 3"):
        torch.view_as_complex(torch.ones(2, 3, device=rec.device))
    with rec.attempt("a transposed tensor"):
        torch.view_as_complex(torch.ones(2, 2, device=rec.device).t())


@case("view_as_real of a complex tensor is a real view whose gradient comes back as a complex one; "
      "a real tensor is refused", doc=VIEW_AS_REAL, tags=("error",),
      features=(*COMPLEX, "views", "graph-introspection"))
def view_as_real_gradients(torch, rec):
    z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True, device=rec.device)
    r = torch.view_as_real(z)
    rec("r", r)
    rec("r node", r.grad_fn.name())
    (r * torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=rec.device)).sum().backward()
    rec("z.grad", z.grad)
    with rec.attempt("view_as_real of a real tensor"):
        torch.view_as_real(torch.ones(3, device=rec.device))


@case("SGD with momentum and Adam step complex parameters: Adam's second moment is taken per real and imaginary "
      "part (a complex exp_avg_sq)", doc=docs.docstring("torch.optim.Adam"),
      features=(*COMPLEX, "nn", "optim"))
def optimizers_step_complex_parameters(torch, rec):
    p = torch.nn.Parameter(torch.tensor([1 + 1j, 2 - 1j], device=rec.device))
    sgd = torch.optim.SGD([p], lr=0.1, momentum=0.9)
    q = torch.nn.Parameter(torch.tensor([1 + 1j, 2 - 1j], device=rec.device))
    adam = torch.optim.Adam([q], lr=0.1)
    target = torch.tensor([0.5 - 1j, 1 + 2j], device=rec.device)
    for step in (1, 2, 3):
        for param, opt in ((p, sgd), (q, adam)):
            opt.zero_grad()
            ((param - target).abs() ** 2).sum().backward()
            opt.step()
        rec(f"step {step}: SGD parameter", p)
        rec(f"step {step}: Adam parameter", q)
    rec("SGD momentum buffer", sgd.state[p]["momentum_buffer"])
    rec("Adam exp_avg, exp_avg_sq", (adam.state[q]["exp_avg"], adam.state[q]["exp_avg_sq"]))
