"""Containers: ``Sequential`` (children called in order) and ``ModuleList`` (an indexable list).

Children are registered under their position (``"0"``, ``"1"``, ...) or, for a Sequential built
from an OrderedDict, under the given names. Deleting renumbers, as torch does. ``ModuleList``
prints runs of identical children as one line (``(0-2): 3 x Linear(...)``).
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from itertools import chain, groupby, islice

from .module import Module, _addindent


def _position(index, size: int) -> int:
    """``index`` as a position in ``range(size)``, with torch's error when it is out of range."""
    index = operator.index(index)
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of range")
    return index % size


class Sequential(Module):
    """Runs its children one after the other, each on the previous one's output."""

    def __init__(self, *args: Module) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for index, module in enumerate(args):
                self.add_module(str(index), module)

    def _key(self, index) -> str:
        keys = self._modules.keys()
        return next(islice(keys, _position(index, len(keys)), None))

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(OrderedDict(list(self._modules.items())[index]))
        return self._modules[self._key(index)]

    def __setitem__(self, index, module: Module) -> None:
        setattr(self, self._key(index), module)

    def __delitem__(self, index) -> None:
        if isinstance(index, slice):
            for key in list(self._modules.keys())[index]:
                delattr(self, key)
        else:
            delattr(self, self._key(index))
        self._renumber()

    def _renumber(self) -> None:
        object.__setattr__(self, "_modules", {str(i): m for i, m in enumerate(self._modules.values())})

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __add__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        combined = Sequential()
        for module in chain(self, other):
            combined.append(module)
        return combined

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        for module in sequential:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        size = len(self._modules)
        if not -size <= index <= size:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += size
        modules = list(self._modules.values())
        modules.insert(index, module)
        object.__setattr__(self, "_modules", {})
        for position, child in enumerate(modules):
            self.add_module(str(position), child)
        return self

    def pop(self, key) -> Module:
        module = self[key]
        del self[key]
        return module

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """Holds submodules in a list; indexable, iterable, registered like any child."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(list(self._modules.values())[index])
        return self._modules[str(_position(index, len(self)))]

    def __setitem__(self, index, module: Module) -> None:
        setattr(self, str(_position(index, len(self))), module)

    def __delitem__(self, index) -> None:
        if isinstance(index, slice):
            for key in list(self._modules.keys())[index]:
                delattr(self, key)
        else:
            delattr(self, str(_position(index, len(self))))
        object.__setattr__(self, "_modules", {str(i): m for i, m in enumerate(self._modules.values())})

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        return ModuleList(list(chain(self, other)))

    def insert(self, index: int, module: Module) -> None:
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + type(modules).__name__)
        start = len(self)
        for offset, module in enumerate(modules):
            self.add_module(str(start + offset), module)
        return self

    def pop(self, key) -> Module:
        module = self[key]
        del self[key]
        return module

    def __repr__(self) -> str:
        if not self._modules:
            return self._get_name() + "()"
        lines = []
        position = 0
        for text, run in groupby(repr(module) for module in self):
            count = len(list(run))
            last = position + count - 1
            label = f"({position}): {text}" if count == 1 else f"({position}-{last}): {count} x {text}"
            lines.append(_addindent(label, 2))
            position = last + 1
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


__all__ = ["ModuleList", "Sequential"]
