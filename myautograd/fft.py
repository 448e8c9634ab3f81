"""``torch.fft``: the discrete Fourier transforms, on NumPy's FFT (see ``myautograd/_ops/fourier.py``)."""

from __future__ import annotations

from ._missing import missing_attribute as _missing_attribute
from ._ops.fourier import (  # noqa: F401 - the public functions
    fft,
    fft2,
    fftn,
    ifft,
    ifft2,
    ifftn,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftn,
)

__all__ = ["fft", "fft2", "fftn", "ifft", "ifft2", "ifftn", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftn"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
