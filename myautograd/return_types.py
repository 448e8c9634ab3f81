"""Named result tuples of ops that return several tensors (``max(dim)`` gives ``values, indices``)."""

from __future__ import annotations

from collections import namedtuple


def _result_type(name: str, fields: tuple[str, ...]):
    base = namedtuple(name, fields)

    def __repr__(self) -> str:
        inner = ",\n".join(f"{field}={value!r}" for field, value in zip(fields, self))
        return f"torch.return_types.{name}(\n{inner})"

    cls = type(name, (base,), {"__slots__": (), "__repr__": __repr__})
    cls.__module__ = "myautograd.return_types"
    return cls


max = _result_type("max", ("values", "indices"))  # noqa: A001 - torch's names
min = _result_type("min", ("values", "indices"))  # noqa: A001
sort = _result_type("sort", ("values", "indices"))
topk = _result_type("topk", ("values", "indices"))
aminmax = _result_type("aminmax", ("min", "max"))
kthvalue = _result_type("kthvalue", ("values", "indices"))
median = _result_type("median", ("values", "indices"))
nanmedian = _result_type("nanmedian", ("values", "indices"))
mode = _result_type("mode", ("values", "indices"))
cummax = _result_type("cummax", ("values", "indices"))
cummin = _result_type("cummin", ("values", "indices"))
linalg_inv_ex = _result_type("linalg_inv_ex", ("inverse", "info"))
linalg_solve_ex = _result_type("linalg_solve_ex", ("result", "info"))
linalg_slogdet = _result_type("linalg_slogdet", ("sign", "logabsdet"))
frexp = _result_type("frexp", ("mantissa", "exponent"))
