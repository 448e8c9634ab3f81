"""``Size``: the tuple subclass that shapes are returned as, printed ``torch.Size([2, 3])``."""

from __future__ import annotations


class Size(tuple):
    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(int(n)) for n in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        count = 1
        for n in self:
            count *= n
        return count

    def __getitem__(self, key):
        result = tuple.__getitem__(self, key)
        return Size(result) if isinstance(key, slice) else result

    def __add__(self, other):
        return Size(tuple.__add__(self, other))


Size.__module__ = "myautograd"
