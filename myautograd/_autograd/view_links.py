"""Marking a tensor as a view of a base: the link ``views`` follows, and gradients that are views.

A view's ``_meta`` names its root base (the tensor that owns the storage), how it was made
(torch's CreationMeta: None for normally, ``"no_grad"``, ``"inference"``, ``"multi_output"``,
``"custom_function"``) and the version at which its grad_fn was set; it shares the base's
version counter. This module only links; ``views`` decides what a link means for autograd.
"""

from __future__ import annotations

import weakref

from .._tensor import Tensor, make_tensor, meta_of, version_counter


def mark_view(view: Tensor, base: Tensor, creation: str | None = None) -> Tensor:
    """Record that ``view`` looks into the storage of ``base`` (its root base)."""
    root = base._meta.base if base._meta is not None and base._meta.base is not None else base
    meta = meta_of(view)
    meta.base = root
    meta.creation = creation
    view._vc = version_counter(root)
    if not root._requires_grad:  # it may come to require grad, and its views with it
        root_meta = meta_of(root)
        if root_meta.plain_views is None:
            root_meta.plain_views = weakref.WeakSet()
        root_meta.plain_views.add(view)
    return view


def track_view(view: Tensor, base: Tensor, creation: str | None) -> Tensor:
    mark_view(view, base, creation)
    view._meta.view = view._vc[0]  # the version at which the view's grad_fn was set
    return view


def gradient_tensor(grad) -> Tensor:
    """A gradient of a plain backward handed to user code (a hook, autograd.grad's result).

    torch's backward formulas return views where they expand, reshape or transpose (the gradient
    of a sum is an expand of a 0-dim tensor), made with grad mode off; writing one in place with an
    operand that requires grad is then refused. The array formulas here make NumPy views in the
    same places, so a gradient whose array is a view is a view made in no_grad mode, of a tensor
    holding the array's root.
    """
    tensor = make_tensor(grad)
    root = getattr(grad, "base", None)
    if root is None:
        return tensor
    for _ in range(64):  # a chain of views is short; an array type whose .base wraps anew never ends
        parent = getattr(root, "base", None)
        if parent is None:
            break
        root = parent
    if type(root) is not type(grad):
        return tensor
    return track_view(tensor, make_tensor(root), "no_grad")
