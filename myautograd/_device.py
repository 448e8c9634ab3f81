"""Devices: ``device(type='cpu')`` and ``device(type='cuda', index=0)``, printed as torch does."""

from __future__ import annotations

KNOWN_TYPES = ("cpu", "cuda")


class device:
    __slots__ = ("type", "index")

    def __init__(self, type, index: int | None = None) -> None:  # noqa: A002 - torch's parameter name
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int):
            type, index = "cuda", type
        elif isinstance(type, str) and ":" in type:
            type, _, number = type.partition(":")
            if not number.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{number}'")
            index = int(number)
        if type not in KNOWN_TYPES:
            raise RuntimeError(
                f"Expected one of cpu, cuda device type at start of device string: {type}"
            )
        self.type = type
        self.index = index

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"


CPU = device("cpu")


def as_device(value) -> device:
    if value is None:
        return CPU
    return value if isinstance(value, device) else device(value)


_default_device: list[device | None] = [None]


def set_default_device(value) -> None:
    """The device factories place tensors on when given none (``None``: back to the CPU)."""
    _default_device[0] = None if value is None else as_device(value)


def default_device() -> device:
    """Where a factory called without a device puts its tensor."""
    return _default_device[0] or CPU
