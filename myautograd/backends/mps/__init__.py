"""``torch.backends.mps``: Apple's Metal backend, which myautograd does not have."""

from ..._missing import missing_attribute as _missing_attribute


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False


__all__ = ["is_available", "is_built"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
