"""torch's ``*_copy`` functions: a view op's values in new memory (``view_copy``, ``transpose_copy``, ...).

Each runs its view op inside ``copying_views``, which makes the view's values a new tensor recorded as
the view node's copy: torch's ``ViewBackward0_copy``, ``TransposeBackward0_copy``... (``narrow_copy``
records ``NarrowCopyBackward0``). A copy node is its view node's derivative entry under another name
(``copy_of``: the same formulas and saved arguments), and its forward-mode rule is the view's rule
with the tangents copied.
"""

from __future__ import annotations

from .._autograd.formulas import NODES, derivative
from .._autograd.views import copying_views, make_view
from .common import normalize_dim
from .registry import export, function
from .views import diagonal, expand, narrow, permute, split, squeeze, t, transpose, unbind, unfold, unsqueeze, view


def _copied_rule(view_name: str):
    """The view's forward-mode rule with its tangents copied (read when it runs: ``install`` sets the view's)."""
    def rule(tangents, values, F):
        outs = NODES[view_name].forward_rule(tangents, values, F)
        if isinstance(outs, (list, tuple)):
            return [None if o is None else o.clone() for o in outs]
        return None if outs is None else outs.clone()

    return rule


def copy_of(view_name: str, name: str | None = None) -> None:
    """Define ``name`` (default ``<view_name>_copy``) as the view node's derivative entry under that name."""
    view_cls = NODES[view_name]
    formulas = {input_name: formula.raw for input_name, formula in zip(view_cls._inputs, view_cls._formulas)
                if formula is not None}
    derivative(name or f"{view_name}_copy", view_cls._inputs, saves=view_cls._saves,
               multi_output=view_cls._multi_output, holomorphic=view_cls._holomorphic,
               forward=_copied_rule(view_name), **formulas)


for _view_name in ("AliasBackward0", "ExpandBackward0", "PermuteBackward0", "SqueezeBackward0", "SqueezeBackward1",
                   "SqueezeBackward2", "TBackward0", "TransposeBackward0", "UnbindBackward0", "UnfoldBackward0",
                   "UnsqueezeBackward0", "ViewBackward0", "SplitWithSizesBackward0"):
    copy_of(_view_name)
copy_of("SliceBackward0", "NarrowCopyBackward0")


def _copying(name: str, view_op) -> None:
    """Register ``torch.<name>``: ``view_op`` run inside ``copying_views``."""
    def op(input, *args, **kwargs):
        with copying_views():
            return view_op(input, *args, **kwargs)

    op.__name__ = name
    function(op, name=name)


_copying("alias_copy", lambda input: make_view(input, input._data.view(), "AliasBackward0", {}))
_copying("diagonal_copy", diagonal)
_copying("expand_copy", expand)
_copying("permute_copy", permute)
_copying("squeeze_copy", squeeze)
_copying("t_copy", t)
_copying("transpose_copy", transpose)
_copying("unbind_copy", unbind)
_copying("unfold_copy", unfold)
_copying("unsqueeze_copy", unsqueeze)
_copying("view_copy", view)
_copying("split_with_sizes_copy", lambda input, split_sizes, dim=0: split(input, list(split_sizes), dim))

def _narrow_copy(input, dim, start, length):
    """narrow's copy, which refuses a negative length as one past the end (after narrow's checks of the dim
    and the start)."""
    if length < 0 and input.ndim:
        narrow(input.detach(), dim, start, 0)  # refuses the dim or the start as narrow_copy does
        size = input.shape[normalize_dim(dim, input.ndim)]
        raise RuntimeError(f"start ({start + size if start < 0 else start}) + length ({length}) exceeds dimension "
                           f"size ({size}).")
    with copying_views({"SliceBackward0": "NarrowCopyBackward0"}):
        return narrow(input, dim, start, length)


export(_narrow_copy, name="narrow_copy")  # torch.narrow_copy and Tensor.narrow_copy
