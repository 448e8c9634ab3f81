"""Operator table: discrete Fourier transforms of ``torch.fft`` (fft, ifft, rfft, irfft, fft2, fftn).

Each transform runs with every normalization (``norm=None``, ``"backward"`` the default, ``"forward"``
and ``"ortho"``), with a length ``n`` (or sizes ``s``) that pads or trims the input, and along a chosen
dimension. The complex transforms take real inputs too (as complex with a zero imaginary part); ``rfft``
refuses a complex input, and torch's CPU has no FFT in float16 or bfloat16: those items compare torch's
exception. The gradients of the real-to-complex and complex-to-real transforms are those torch defines
(``irfft``'s treats the input as the half spectrum of a Hermitian signal).
"""

from __future__ import annotations

from .spec import R, S, op
from .tolerances import COMPOSITE

FFT = ("fft", "complex")  # every transform computes in complex numbers, on real inputs too
NORMS = (None, "backward", "forward", "ortho")


def _norms(call: str, **inputs):
    """One sample per normalization of ``call`` (which ends in its keyword arguments' place: ``{norm}``)."""
    return [S(call.format(norm=repr(norm)), f"norm={norm!r}", **inputs) for norm in NORMS]


def transform(name: str, shape: tuple[int, ...], sizes: str, dims: str):
    """An entry for ``torch.fft.<name>``: every normalization, then sizes that pad and trim, and a dimension."""
    return op(f"fft_{name}", f"torch.fft.{name}", COMPOSITE, features=FFT, gradgrad=False,  # linear: constant gradients
              default=_norms(f"torch.fft.{name}(x, norm={{norm}})", x=R(*shape)),
              sizes=[S(f"torch.fft.{name}(x, {sizes})", "padded and trimmed", x=R(*shape)),
                     S(f"torch.fft.{name}(x, {dims})", "along a chosen dimension", x=R(*shape))])


OPERATORS = [
    transform("fft", (2, 6), "n=8", "dim=0"),
    transform("ifft", (2, 6), "n=4", "dim=0"),
    transform("rfft", (2, 6), "n=5", "dim=0"),
    transform("irfft", (2, 5), "n=6", "dim=0"),
    transform("fft2", (2, 3, 4), "s=(4, 3)", "dim=(0, 2)"),
    transform("fftn", (2, 3, 4), "s=(3, 5, 2)", "dim=(1,)"),
]
