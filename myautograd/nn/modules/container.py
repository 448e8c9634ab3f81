"""Containers: ``Sequential`` (children called in order), ``ModuleList`` (an indexable list),
``ModuleDict`` (children by name), ``ParameterList`` and ``ParameterDict`` (parameters by position
or name).

Children are registered under their position (``"0"``, ``"1"``, ...) or, for a Sequential built
from an OrderedDict, under the given names. Deleting renumbers, as torch does. ``ModuleList``
prints runs of identical children as one line (``(0-2): 3 x Linear(...)``). The parameter
containers turn plain tensors into Parameters, keep other values as plain attributes, and print
one line per entry (``(0): Parameter containing: [torch.float32 of size 2x3]``).
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain, groupby, islice

from ..._tensor import Tensor
from ..parameter import Parameter
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


def _pairs(kind: str, entries) -> Iterator[tuple]:
    """The (key, value) pairs of a mapping or of an iterable of pairs, with torch's checks."""
    if not isinstance(entries, Iterable):
        raise TypeError(f"{kind}.update should be called with an iterable of key/value pairs, but got "
                        + type(entries).__name__)
    if isinstance(entries, Mapping) or hasattr(entries, "items"):
        yield from entries.items()
        return
    for position, pair in enumerate(entries):
        name = "ParameterDict" if kind == "ParametersDict" else kind
        if not isinstance(pair, Iterable):
            raise TypeError(f"{name} update sequence element #{position} should be Iterable; is"
                            + type(pair).__name__)
        if len(pair) != 2:
            raise ValueError(f"{name} update sequence element #{position} has length {len(pair)}; 2 is required")
        yield pair[0], pair[1]


class ModuleDict(Module):
    """Holds submodules by name, in insertion order; indexable like a dict."""

    def __init__(self, modules=None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        module = self[key]
        del self[key]
        return module

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules) -> None:
        for key, module in _pairs("ModuleDict", modules):
            self[key] = module


def _describe(value, dtype_text) -> str:
    """One entry of a parameter container's printout."""
    if not isinstance(value, Tensor):
        return "Object of type: " + type(value).__name__
    size = "x".join(str(n) for n in value.size())
    device = f" ({value.device})" if value.device.type == "cuda" else ""
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    return f"{kind} containing: [{dtype_text(value)} of size {size}{device}]"


class ParameterList(Module):
    """Holds parameters (and other values) by position; tensors become Parameters."""

    def __init__(self, values: Iterable | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _key(self, index) -> str:
        return str(_position(index, len(self)))

    def __getitem__(self, index):
        if isinstance(index, slice):
            part = type(self)()
            for position in range(*index.indices(len(self))):
                part.append(self[position])
            return part
        return getattr(self, self._key(index))

    def __setitem__(self, index, value) -> None:
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, self._key(index), value)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator:
        return (self[position] for position in range(len(self)))

    def __iadd__(self, values: Iterable) -> ParameterList:
        return self.extend(values)

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value) -> ParameterList:
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable) -> ParameterList:
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got " + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(f"  ({position}): {_describe(value, lambda t: t.dtype)}" for position, value in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """Holds parameters (and other values) by name; tensors become Parameters. A plain dict given
    to it is added in sorted key order (an OrderedDict or pairs keep theirs), as in torch."""

    def __init__(self, parameters=None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _attribute(key) -> str:
        if not isinstance(key, str):
            raise TypeError(f"Index given to ParameterDict cannot be used as a key as it is not a string (type is "
                            f"'{type(key).__name__}'). Open an issue on github if you need non-string keys.")
        return key

    def __getitem__(self, key: str):
        return getattr(self, self._attribute(key))

    def __setitem__(self, key: str, value) -> None:
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, self._attribute(key), value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._attribute(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        return ParameterDict(OrderedDict((key, self[key]) for key in self._keys))

    def setdefault(self, key: str, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def pop(self, key: str):
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple:
        key = next(reversed(self._keys))
        value = self[key]
        del self[key]
        return key, value

    def get(self, key: str, default=None):
        return self[key] if key in self else default

    def fromkeys(self, keys: Iterable[str], default=None) -> ParameterDict:
        return ParameterDict((key, default) for key in keys)

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((key, self[key]) for key in self._keys)

    def values(self):
        return (self[key] for key in self._keys)

    def update(self, parameters) -> None:
        pairs = list(_pairs("ParametersDict", parameters))
        if isinstance(parameters, Mapping) and not isinstance(parameters, OrderedDict):
            pairs.sort()
        for key, value in pairs:
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(f"  ({key}): {_describe(value, lambda t: t.type())}" for key, value in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other: ParameterDict) -> ParameterDict:
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other: ParameterDict) -> ParameterDict:
        self.update(other)
        return self


__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]
