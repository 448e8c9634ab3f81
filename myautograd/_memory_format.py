"""torch's memory formats: ``torch.contiguous_format``, ``preserve_format``, ``channels_last``, ``channels_last_3d``.

A memory format names a layout of a tensor's elements in memory: row-major (``contiguous_format``),
the dimension of the channels last (``channels_last`` for 4-D tensors, ``channels_last_3d`` for 5-D
ones), or whatever layout the source has (``preserve_format``, the default of the conversions).
``arrange(array, fmt)`` copies an array into a format's layout, ``is_laid_out(array, fmt)``
says whether it already is in it.
"""

from __future__ import annotations


class memory_format:  # noqa: N801 - torch's name
    """One of the four memory formats; like torch's, no further instance can be made."""

    __slots__ = ("_name", "_rank")
    __module__ = "torch"

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torch.memory_format' instances")

    @classmethod
    def _make(cls, name: str, rank: int | None) -> memory_format:
        fmt = object.__new__(cls)
        fmt._name = name
        fmt._rank = rank  # the rank a channels-last format requires
        return fmt

    def __repr__(self) -> str:
        return f"torch.{self._name}"


contiguous_format = memory_format._make("contiguous_format", None)
preserve_format = memory_format._make("preserve_format", None)
channels_last = memory_format._make("channels_last", 4)
channels_last_3d = memory_format._make("channels_last_3d", 5)


def _channels_last_order(ndim: int) -> tuple[int, ...]:
    """The dimensions from the outermost in memory to the innermost: batch, the spatial ones, channels."""
    return (0, *range(2, ndim), 1)


def _check_rank(array, fmt: memory_format) -> None:
    if fmt._rank is not None and array.ndim != fmt._rank:
        raise RuntimeError(f"required rank {fmt._rank} tensor to use {fmt._name} format")


def is_laid_out(array, fmt: memory_format | None) -> bool:
    """Whether ``array``'s elements are in ``fmt``'s layout (any layout is ``preserve_format``'s)."""
    if fmt is None or fmt is preserve_format:
        return True
    if fmt is contiguous_format:
        return bool(array.flags.c_contiguous)
    if array.ndim != fmt._rank:
        return False
    order = _channels_last_order(array.ndim)
    return bool(array.transpose(order).flags.c_contiguous)


def arrange(array, fmt: memory_format | None):
    """A copy of ``array`` in ``fmt``'s layout (``preserve_format``: the source's, as NumPy's order "K", unless
    elements repeat in memory, as an expanded tensor's: then row-major, as torch's)."""
    if fmt is None or fmt is preserve_format:
        return array.copy(order="K" if 0 not in array.strides or array.size <= 1 else "C")
    if fmt is contiguous_format:
        return array.copy(order="C")
    _check_rank(array, fmt)
    order = _channels_last_order(array.ndim)
    inverse = tuple(order.index(axis) for axis in range(array.ndim))
    return array.transpose(order).copy(order="C").transpose(inverse)
