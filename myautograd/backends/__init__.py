"""``myautograd.backends``: torch's switches and queries about the compute backends. There is no
MPS or cuDNN here: ``mps.is_available()`` and ``cudnn.is_available()`` are False, and the
cuDNN/TF32 flags scripts set (``cudnn.deterministic = True``) are kept but change nothing."""

from .._missing import missing_attribute as _missing_attribute
from . import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
