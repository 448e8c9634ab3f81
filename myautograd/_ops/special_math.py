"""The special functions: the log-gamma function and its derivatives (``lgamma``, ``digamma``, ``polygamma``,
``mvlgamma``), ``erfinv``, ``i0``, and torch.special's ``xlog1py``, ``entr``, ``ndtr``, ``log_ndtr``,
``erfcx``, ``i0e``, ``i1``, ``i1e`` (public in ``myautograd/special.py``; those torch has as Tensor methods
are exported).

The values are computed by ``_autograd/special_functions.py`` as torch's kernels compute them; the
derivatives are in ``derivatives_pointwise.py``; the complex dtypes torch has no kernel for are refused by
``dtype_refusals``. ``ndtr`` is composed of other ops, as torch's (its node is MulBackward1).
"""

from __future__ import annotations

import math

import numpy as np

from .. import _backend
from .._autograd import special_functions as S
from .._autograd.record import recorded
from .._reduced import in_float32
from .._summation import sum_array
from .._tensor import Tensor, make_tensor
from .common import check_tensor, default_float_for
from .derivatives import NODES
from .pointwise import elementwise, erf, operands
from .registry import export, function, method
from .signatures import match_signature
from .special import add_number, mul_by_number

lgamma = export(elementwise("lgamma", NODES["LgammaBackward0"], S.lgamma))
digamma = export(elementwise("digamma", NODES["DigammaBackward0"], S.digamma))
erfinv = export(elementwise("erfinv", NODES["ErfinvBackward0"], S.erfinv))
i0 = export(elementwise("i0", NODES["I0Backward0"], S.i0))
# torch.special's, not Tensor methods
i0e = elementwise("i0e", NODES["SpecialI0EBackward0"], S.i0e)
i1 = elementwise("i1", NODES["SpecialI1Backward0"], S.i1)
i1e = elementwise("i1e", NODES["SpecialI1EBackward0"], S.i1e)
erfcx = elementwise("erfcx", NODES["SpecialErfcxBackward0"], S.erfcx)


def _entropy(x):
    """``-x log(x)``: 0 at 0, -inf below 0."""
    with np.errstate(all="ignore"):
        out = np.where(x == 0, x.dtype.type(0), -x * np.log(x))
    return np.where(x < 0, x.dtype.type(-np.inf), out)


def _log_ndtr(x):
    """The log of the standard normal distribution function, as torch's kernel: through erfcx below -1 (where
    the distribution function underflows), log1p(-erfc(x / sqrt 2) / 2) above, in x's dtype."""
    t = x * x.dtype.type(math.sqrt(0.5))
    with np.errstate(all="ignore"):
        low = np.log(S.erfcx(-t) / x.dtype.type(2)) - t * t
        high = np.log1p(-_backend.erfc(t) / x.dtype.type(2))
    return np.where(x < -1, low, high)


entr = elementwise("entr", NODES["SpecialEntrBackward0"], _entropy)
log_ndtr = elementwise("log_ndtr", NODES["SpecialLogNdtrBackward0"], _log_ndtr)


def ndtr(input):
    """The standard normal distribution function, as torch composes it: ``(1 + erf(x / sqrt 2)) * 0.5``."""
    check_tensor(input, "special_ndtr")
    if input._data.dtype.kind not in "fc":
        input = make_tensor(input._data.astype(default_float_for(input._data)))
    return mul_by_number(add_number(erf(mul_by_number(input, math.sqrt(0.5))), 1), 0.5)


POLYGAMMA_SIGNATURES = ("int n, Tensor input, *, Tensor out = None",)


@function
def polygamma(n, input):
    """The n-th derivative of digamma: PolygammaBackward0 (digamma and trigamma for n of 0 and 1)."""
    match_signature("polygamma", POLYGAMMA_SIGNATURES, (n, input))
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    data = input._data
    data = data if data.dtype.kind in "fc" else data.astype(default_float_for(data))
    out = in_float32(lambda x: S.polygamma(n, x))(data)
    return recorded(NODES["PolygammaBackward0"], out, (input,), {"n": n})


@method(name="polygamma")
def polygamma_method(self, n):
    match_signature("polygamma", POLYGAMMA_SIGNATURES, (n, self))
    return polygamma(n, self)


@export
def mvlgamma(input, p):
    """The multivariate log-gamma function of dimension p: the sum over i < p of lgamma(x - i / 2), plus
    p (p - 1) / 4 log(pi): MvlgammaBackward0."""
    check_tensor(input, "mvlgamma")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    data = input._data
    if data.dtype == np.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if data.dtype.kind != "f":
        data = data.astype(default_float_for(data))
    offsets = _backend.host_value(np.arange(-p / 2 + 0.5, 0.5, 0.5), data, data.dtype)
    terms = S.lgamma(offsets + data[..., None])
    out = sum_array(terms, (-1,), False) + data.dtype.type(p * (p - 1) * math.log(math.pi) * 0.25)
    return recorded(NODES["MvlgammaBackward0"], out.astype(data.dtype, copy=False), (input,), {"p": p})


XLOG1PY_SIGNATURES = ("Tensor input, Tensor other, *, Tensor out = None", "Number self, Tensor other, *, Tensor out = None",
                      "Tensor input, Number other, *, Tensor out = None")


def xlog1py(input, other):
    """``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN): SpecialXlog1PyBackward0
    (SpecialXlog1PyBackward1 for a number ``input``, SpecialXlog1PyBackward2 for a number ``other``)."""
    number_self = match_signature("special_xlog1py", XLOG1PY_SIGNATURES, (input, other)) == 1
    if number_self:
        from .common import as_tensor_like

        self_number, input = input, as_tensor_like(input, other)
    x, y = operands(input, other)
    if x.dtype.kind not in "fc":
        x = x.astype(default_float_for(x))
    y = y.astype(x.dtype) if hasattr(y, "dtype") else x.dtype.type(y)
    out = S.xlog1py(x, y)
    if number_self:
        return recorded(NODES["SpecialXlog1PyBackward1"], out, (other,), {"self": self_number})
    if isinstance(other, Tensor):
        return recorded(NODES["SpecialXlog1PyBackward0"], out, (input, other))
    return recorded(NODES["SpecialXlog1PyBackward2"], out, (input,), {"other": other})
