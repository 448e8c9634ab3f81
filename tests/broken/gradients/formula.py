"""Planted: mul's gradient for its second operand reads the second operand (``grad * other``)
instead of the first (``grad * self``): wrong at ``MulBackward0``, ``grad_inputs[1]``."""

from ._planting import exports as _exports


def install():
    from tests.mutants._registry import formula

    formula("MulBackward0", "other", lambda grad, other, F: grad * F.conj(other))


__conformance_module__, __version__, __getattr__ = _exports(install)
