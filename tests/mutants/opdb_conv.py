"""Mutants of the conversions, copies and shape functions implemented for torch's op_db (``opinfo.to``,
``opinfo.float``, ...): each is killed by an opinfo item (``tests/test_opdb_conv.py`` asserts which)."""

from __future__ import annotations

from myautograd._autograd import views
from myautograd._ops import conversion

from ._registry import formula, mutant, replace


@mutant("versions and views", "Tensor.to reads copy= only by keyword: a.to('cpu', torch.float64, False, True) of a "
                              "float64 tensor returns the tensor itself, not a copy")
def to_positional_copy_ignored():
    def make(original):
        def parse(args, kwargs):
            dtype, dev, _ = original(args, kwargs)
            return dtype, dev, kwargs.get("copy", False)

        return parse

    replace(conversion, "_parse_to_args", make)


@mutant("formulas", "rot90's gradient turned k more quarter turns where it must be turned back (-k)")
def rot90_gradient_turned_forward():
    formula("Rot90Backward0", "self", lambda grad, k, dims, F: F.rot90(grad, k, dims))


@mutant("forward mode", "the *_copy functions leave copying on while the op records, so the views of its forward-mode "
                        "rule (unbind's select of the tangent) are made copies too")
def view_copies_copying_left_on():
    def make(original):
        def record(cls, data, inputs, attrs=None, *, outputs=1):
            if not cls.__name__.endswith("_copy"):
                return original(cls, data, inputs, attrs, outputs=outputs)
            views._COPYING.names = {}  # as before the op's view was consumed
            try:
                return original(cls, data, inputs, attrs, outputs=outputs)
            finally:
                views._COPYING.names = None

        return record

    replace(views, "record", make)
