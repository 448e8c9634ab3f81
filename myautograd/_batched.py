"""How ``vmap`` represents a batched value: a ``BatchedTensor`` is one physical tensor holding every sample.

A ``BatchedTensor`` looks like one sample (its ``shape`` leaves the batch out) but holds a plain myautograd
tensor, its ``physical`` value, whose leading dimensions are the batch dimensions of the vmap levels it is
batched over, outermost level first, followed by the sample's own (``logical``) dimensions::

    vmap(vmap(f))(x) with x of shape (4, 5, 3): inside f, a BatchedTensor of shape (3,)
        physical: a tensor of shape (4, 5, 3), levels (1, 2)

A value batched over fewer levels than another has no dimension for the missing ones; ``aligned`` gives
any operand a physical tensor with a dimension (of size 1 where it is not batched) for each of the levels
asked for and its logical dimensions padded on the left to a rank, so that NumPy broadcasting of the
physical tensors computes what broadcasting of the samples would, for every sample at once.

Every level of a running ``vmap`` is an entry of ``LEVELS`` (its number, batch size and randomness
mode); levels are numbered from 1 by depth, so a value's levels are always in increasing order.

Because the physical tensors are ordinary myautograd tensors, the graph the engine records for them is
the graph of every sample at once, and gradients of a batched value are the gradients of each sample
(the samples do not interact): that is how ``grad`` and ``vjp`` work under ``vmap``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._ops.registry import METHODS
from ._size import Size
from ._tensor import Tensor

RAW = METHODS  # the ops as the registry made them (the Tensor methods): what the batching rules compute with


@dataclass
class Level:
    """A running ``vmap``: its depth (1 for the outermost), its batch size and its ``randomness``."""
    number: int
    size: int
    randomness: str


LEVELS: list[Level] = []


class BatchedTensor(Tensor):
    """One sample's view of a batch: ``physical`` has a leading dimension per level of ``levels``."""

    __slots__ = ("physical", "levels")

    def __new__(cls, physical: Tensor, levels: tuple):
        self = object.__new__(cls)
        self.physical = physical
        self.levels = levels
        return self

    # -- what one sample looks like --------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self.physical.shape[len(self.levels):])

    def size(self, dim=None):
        shape = self.shape
        return shape if dim is None else shape[_normalized(dim, len(shape))]

    def dim(self) -> int:
        return self.physical.dim() - len(self.levels)

    ndim = property(dim)

    def numel(self) -> int:
        count = 1
        for size in self.shape:
            count *= size
        return count

    def __len__(self) -> int:
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    dtype = property(lambda self: self.physical.dtype)
    device = property(lambda self: self.physical.device)
    is_cuda = property(lambda self: self.physical.is_cuda)
    layout = property(lambda self: self.physical.layout)
    grad_fn = property(lambda self: self.physical.grad_fn)
    is_leaf = property(lambda self: self.physical.is_leaf)

    @property
    def requires_grad(self) -> bool:
        return self.physical.requires_grad

    @requires_grad.setter
    def requires_grad(self, value) -> None:
        self.physical.requires_grad = value

    def detach(self):
        return BatchedTensor(self.physical.detach(), self.levels)

    def requires_grad_(self, requires_grad: bool = True):
        self.physical.requires_grad_(requires_grad)
        return self

    @property
    def data(self):
        return BatchedTensor(self.physical.data, self.levels)

    @property
    def _version(self) -> int:
        return self.physical._version

    def is_contiguous(self, memory_format=None) -> bool:
        return True

    def get_device(self) -> int:
        return self.physical.get_device()

    def is_inference(self) -> bool:
        return self.physical.is_inference()

    ndimension = dim
    nelement = numel

    def is_floating_point(self) -> bool:
        return self.physical.is_floating_point()

    def is_complex(self) -> bool:
        return self.physical.is_complex()

    def element_size(self) -> int:
        return self.physical.element_size()

    def __repr__(self, *, tensor_contents=None) -> str:
        return f"BatchedTensor(lvl={self.levels[-1]}, bdim=0, value=\n{self.physical!r}\n)"

    # -- what needs the values of one sample -----------------------------------------------------------
    def item(self):
        raise RuntimeError("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
                           "calling .item() on a Tensor, please try to rewrite what you're doing with other "
                           "operations. If error is occurring somewhere inside PyTorch internals, please file a "
                           "bug report.")

    def _data_dependent(self, *args):
        raise RuntimeError("vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
                           "flow. We don't support that yet, please file an issue at "
                           "https://github.com/pytorch/pytorch/issues .")

    __bool__ = __float__ = __int__ = __index__ = tolist = numpy = _data_dependent


def _normalized(dim: int, rank: int) -> int:
    if not -max(rank, 1) <= dim < max(rank, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(rank, 1)}, {max(rank, 1) - 1}], "
                         f"but got {dim})")
    return dim + rank if dim < 0 else dim


def levels_of(value) -> tuple:
    return value.levels if isinstance(value, BatchedTensor) else ()


def logical_rank(value) -> int:
    return value.dim()


def union_of_levels(values) -> tuple:
    found = set()
    for value in values:
        if isinstance(value, BatchedTensor):
            found.update(value.levels)
    return tuple(sorted(found))


def level_size(number: int) -> int:
    return LEVELS[number - 1].size


def aligned(value, levels: tuple, rank: int | None = None, expand: bool = False) -> Tensor:
    """``value``'s physical tensor with a dimension per level of ``levels`` (size 1 where it is not
    batched, or the level's batch size with ``expand``) and its logical dimensions padded on the left to
    ``rank``."""
    own = levels_of(value)
    physical = value.physical if own else value
    if own != levels:
        for position, number in enumerate(levels):
            if number not in own:
                physical = RAW["unsqueeze"](physical, position)
    if rank is not None:
        for _ in range(rank - (physical.dim() - len(levels))):
            physical = RAW["unsqueeze"](physical, len(levels))
    if expand and own != levels:
        sizes = [level_size(number) for number in levels] + [-1] * (physical.dim() - len(levels))
        physical = RAW["expand"](physical, sizes)
    return physical


def batched(result, levels: tuple):
    """An op's physical result as the samples see it: tensors (also inside tuples and lists) become
    BatchedTensors over ``levels``."""
    if not levels:
        return result
    if isinstance(result, Tensor):
        return BatchedTensor(result, levels)
    if isinstance(result, tuple) and hasattr(result, "_fields"):
        return type(result)(*(batched(item, levels) for item in result))
    if isinstance(result, (tuple, list)):
        return type(result)(batched(item, levels) for item in result)
    return result
