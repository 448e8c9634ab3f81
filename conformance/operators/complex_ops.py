"""Operator table: the operators of complex numbers (parts, conjugation, polar form, complex views, vdot).

They run in every dtype of the table like the others: on a real input some work as on a complex one with
a zero imaginary part (``real``, ``conj``, ``angle``, ``sgn``), others refuse it (``imag``,
``view_as_real``), and the constructors from real parts (``polar``, ``complex``, ``view_as_complex``)
refuse complex inputs: those items compare torch's exception. Their gradients follow torch's convention
for complex autograd (the conjugate Wirtinger derivative: the gradient of a real loss ``L`` of ``z`` is
``dL/d(conj z)``, up to a factor 2), which the random complex ``grad_outputs`` exercise.

Conjugation and negation are lazy in torch: ``conj()`` returns a view with the conjugate bit set
(``is_conj()``), ``conj().imag`` one with the negative bit (``is_neg()``); ``resolve_conj`` and
``resolve_neg`` materialize them, ``conj_physical`` never sets the bit. The bits are observed where they
change behaviour: in the value of the flags, in an in-place operation through a conjugate view (which
writes the conjugate into the base) and in the text of a conjugate view.
"""

from __future__ import annotations

from .spec import R, S, V, op
from .tolerances import CHAINED, ELEMENTARY, EXACT, SUMMED

COMPLEX = ("complex",)
# Complex values built from float16 parts are torch.complex32 (ComplexHalf, which torch calls experimental)
COMPLEX_HALF = {"float16": ("complex32",)}


def _flags(call: str, note: str, **inputs):
    """A sample whose result's conjugate and negative bits are recorded after its value."""
    return S(call, note, also=("out.is_conj()", "out.is_neg()"), **inputs)


OPERATORS = [
    op("real", "torch.real", EXACT, features=COMPLEX, gradgrad=False, default=[
        S("torch.real(z)", "the real part, a view", z=R(3, 4)),
        S("z.real", "attribute form, strided input", z=R(2, 3, layout="strided")),
        S("out = z.clone()\nout.real.mul_(2)", "in-place through the real part of a non-leaf", z=R(4)),
    ]),
    op("imag", "torch.imag", EXACT, features=COMPLEX, default=[
        S("torch.imag(z)", "the imaginary part, a view (torch refuses a real input)", z=R(3, 4)),
        S("z.imag", "attribute form, 0-dim", z=R()),
    ]),
    op("conj", "torch.conj", EXACT, features=COMPLEX, gradgrad=False, default=[
        _flags("torch.conj(z)", "a lazy conjugate view", z=R(3, 4)),
        _flags("z.conj().conj()", "twice: the bit cleared again", z=R(5)),
        S("out = z.clone()\nview = out.conj()\nview.mul_(2)\nview.add_(z.detach())", "in-place through a conjugate "
          "view writes the conjugate into its base", outputs="out", z=R(4)),
        S("torch.conj(z)", "empty", z=R(0, 2)),
    ]),
    op("conj_physical", "torch.conj_physical", EXACT, features=COMPLEX, gradgrad=False, default=[
        _flags("torch.conj_physical(z)", "materialized: no conjugate bit", z=R(3, 4)),
        S("out = z.clone()\nout.conj_physical_()", "in-place on a non-leaf", z=R(4)),
    ]),
    op("resolve_conj", "torch.resolve_conj", EXACT, features=COMPLEX, gradgrad=False, default=[
        _flags("torch.resolve_conj(z.conj())", "a conjugate view materialized", z=R(3, 4)),
        _flags("z.resolve_conj()", "without the bit: the tensor itself", z=R(4)),
    ]),
    op("resolve_neg", "torch.resolve_neg", EXACT, features=COMPLEX, default=[
        _flags("torch.resolve_neg(z.conj().imag)", "the negative bit of a conjugate's imaginary part resolved",
               z=R(3, 4)),
        _flags("z.conj().imag", "the view with the negative bit", z=R(4)),
    ]),
    op("angle", "torch.angle", ELEMENTARY, features=COMPLEX, real_gradgrad=False, default=[
        S("torch.angle(z)", "random values", z=R(3, 4)),
        S("z.angle()", "method form, transposed input", z=R(3, 4, layout="transposed")),
        S("torch.angle(z)", "at 0, on the real axis and the negative real axis", z=V([0.0, 1.5, -2.0]),
          gradgrad=False),
    ]),
    # CHAINED: the gradient (g - s^2 conj(g)) / 2|z| chains a magnitude, a quotient and three products, and
    # its derivatives grow as 1 / |z|^2 (measured: 11 float32 ulps apart from torch's near a small |z|)
    op("sgn", "torch.sgn", CHAINED, features=COMPLEX, real_gradgrad=False, default=[
        S("torch.sgn(z)", "z / |z|", z=R(3, 4)),
        S("z.sgn()", "at 0 (0, gradient 0) and on the real axis", z=V([0.0, 2.0, -0.5]), gradgrad=False),
        S("out = z.clone()\nout.sgn_()", "in-place on a non-leaf", z=R(4)),
    ]),
    op("polar", "torch.polar", ELEMENTARY, features=COMPLEX, default=[
        S("torch.polar(r, theta)", "a complex tensor from absolute values and angles (torch refuses complex "
          "inputs)", r=R(3, 4, low=0.1, high=2.0), theta=R(3, 4, low=-3.0, high=3.0)),
        S("torch.polar(r, theta)", "broadcast", r=R(3, 1, low=0.1, high=2.0), theta=R(4, low=-3.0, high=3.0)),
    ]),
    op("complex", "torch.complex", EXACT, features=COMPLEX, gradgrad=False, dtype_features=COMPLEX_HALF, default=[
        S("torch.complex(re, im)", "a complex tensor from its parts (torch refuses complex parts)", re=R(3, 4),
          im=R(3, 4)),
        S("torch.complex(re, im)", "0-dim parts", re=R(), im=R()),
    ]),
    op("view_as_real", "torch.view_as_real", EXACT, features=COMPLEX, default=[
        S("torch.view_as_real(z)", "a real view with a last dimension of 2 (torch refuses a real input)", z=R(3, 4)),
        S("out = z.clone()\ntorch.view_as_real(out).mul_(3)", "in-place through the real view of a non-leaf",
          z=R(4)),
    ]),
    op("view_as_complex", "torch.view_as_complex", EXACT, features=COMPLEX, gradgrad=False, dtype_features=COMPLEX_HALF,
       default=[
        S("torch.view_as_complex(x)", "a complex view of a real tensor whose last dimension is 2", x=R(3, 2)),
        S("torch.view_as_complex(x * 2)", "of a non-leaf, several dimensions", x=R(2, 3, 2)),
    ]),
    op("vdot", "torch.vdot", SUMMED, features=COMPLEX, default=[
        S("torch.vdot(a, b)", "sum of conj(a) * b", a=R(5), b=R(5)),
        S("a.vdot(b)", "method form, strided inputs", a=R(4, layout="strided"), b=R(4)),
    ]),
]
