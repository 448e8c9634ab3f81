"""``torch.backends.cudnn``: flags scripts set for reproducibility or speed. myautograd uses no
cuDNN, so they are kept for scripts to read back and have no effect."""

from ..._missing import missing_attribute as _missing_attribute

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version():
    return None


__all__ = ["allow_tf32", "benchmark", "deterministic", "enabled", "is_available", "version"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
