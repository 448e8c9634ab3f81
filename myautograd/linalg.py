"""``torch.linalg``: the linear algebra functions myautograd has (see ``myautograd/_ops/vector_products.py``,
``myautograd/_ops/linalg_norms.py``, ``myautograd/_ops/linalg_solvers.py``,
``myautograd/_ops/matrix_chains.py``)."""

from __future__ import annotations

from ._missing import missing_attribute as _missing_attribute
from ._ops.linalg import svdvals
from ._ops.linalg_norms import matrix_norm, norm, vector_norm
from ._ops.linalg_solvers import LinAlgError, det, inv, inv_ex, slogdet, solve, solve_ex
from ._ops.matrix_chains import matrix_power, multi_dot
from ._ops.vector_products import linalg_cross as cross
from ._ops.vector_products import vecdot

__all__ = ["LinAlgError", "cross", "det", "inv", "inv_ex", "matrix_norm", "matrix_power", "multi_dot", "norm",
           "slogdet", "solve", "solve_ex", "svdvals", "vecdot", "vector_norm"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
