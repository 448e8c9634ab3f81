"""``torch.special``: the special functions (see ``myautograd/_ops/special_math.py``), and torch.special's names
for functions myautograd has at the top level."""

from __future__ import annotations

from ._missing import missing_attribute as _missing_attribute
from ._ops.pointwise import erf, erfc, exp2, expm1, log1p, sigmoid
from ._ops.pointwise_math import logit, sinc
from ._ops.special import xlogy
from ._ops.special_math import (
    digamma,
    entr,
    erfcx,
    erfinv,
    i0,
    i0e,
    i1,
    i1e,
    lgamma,
    log_ndtr,
    mvlgamma,
    ndtr,
    polygamma,
    xlog1py,
)

expit = sigmoid
gammaln = lgamma
psi = digamma
multigammaln = mvlgamma

__all__ = ["digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammaln", "i0", "i0e", "i1",
           "i1e", "log1p", "log_ndtr", "logit", "multigammaln", "ndtr", "polygamma", "psi", "sinc", "xlog1py", "xlogy"]

__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
