"""``torch.backends.cuda``: whether CUDA support is there, and the TF32 matmul flag (kept, no
effect: CuPy's matrix products are not switched to TF32)."""

from ... import _backend
from ..._missing import missing_attribute as _missing_attribute


class _MatmulFlags:
    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True


matmul = _MatmulFlags()


def is_built() -> bool:
    return _backend.cuda_available()


__all__ = ["is_built", "matmul"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
