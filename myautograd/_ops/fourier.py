"""``torch.fft`` on NumPy's FFT, built as torch builds it: three primitives and their gradients.

torch computes every transform with one of three ops, each a node of its own: ``_fft_c2c``
(complex to complex, either direction), ``_fft_r2c`` (real to complex, forward, the whole or the
one-sided half spectrum) and ``_fft_c2r`` (a one-sided half spectrum to real, inverse). The public
functions (``myautograd.fft``) resize the input first (``SliceBackward0`` where ``n``/``s`` cut it,
one ``ConstantPadNdBackward0`` where they pad it), convert it as torch does (an integer to the
default float, a real input to complex before a complex transform of several dims), and pick the
primitive, so that the graph has torch's nodes. ``ifft`` of a real input is the conjugate of a
forward real transform, as torch computes it.

``normalization`` is torch's: 0 none, 1 by the root of the signal size, 2 by the signal size; a
``norm`` string sets it per direction (``NORMS``). Each primitive's gradient is a primitive too
(derivative table): c2c the other direction with the same normalization; r2c the real part of an
inverse c2c of the gradient (zero-padded to the whole spectrum when one-sided); c2r a one-sided r2c
of the gradient, whose middle frequencies (those standing for two of the full spectrum) doubled.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._autograd.formula_math import c2c_kernel, c2r_kernel, r2c_kernel
from .._autograd.record import recorded
from .._tensor import Tensor
from .common import default_float_for, normalize_dim
from .derivatives import NODES
from .padding import constant_pad
from .views import narrow

# norm string -> (normalization of a forward transform, of an inverse one)
NORMS = {None: (0, 2), "backward": (0, 2), "forward": (2, 0), "ortho": (1, 1)}


# -- the primitives on tensors ---------------------------------------------------------------------------
def fft_c2c(input: Tensor, dims, normalization: int, forward: bool) -> Tensor:
    out = c2c_kernel(input._data, tuple(dims), normalization, forward)
    return recorded(NODES["FftC2CBackward0"], out, (input,),
                    {"dim": tuple(dims), "normalization": normalization, "forward": forward})


def fft_r2c(input: Tensor, dims, normalization: int, onesided: bool) -> Tensor:
    out = r2c_kernel(input._data, tuple(dims), normalization, onesided)
    return recorded(NODES["FftR2CBackward0"], out, (input,),
                    {"dim": tuple(dims), "normalization": normalization, "onesided": onesided,
                     "last_size": input._data.shape[dims[-1]]})


def fft_c2r(input: Tensor, dims, normalization: int, last_dim_size: int) -> Tensor:
    out = c2r_kernel(input._data, tuple(dims), normalization, last_dim_size)
    return recorded(NODES["FftC2RBackward0"], out, (input,), {"dim": tuple(dims), "normalization": normalization})


# -- the public functions ------------------------------------------------------------------------------------
def _normalization(norm, forward: bool) -> int:
    if norm not in NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return NORMS[norm][0 if forward else 1]


def _supported(input: Tensor) -> None:
    """torch's CPU FFT (pocketfft) has no float16 or bfloat16 kernel: it refuses them before reading any argument."""
    if input._data.dtype in _dtype.REDUCED_FLOATS:
        raise RuntimeError(f"Unsupported dtype {input.dtype._legacy}")


def _dims_and_sizes(input: Tensor, s, dim) -> tuple[list[int], list[int] | None]:
    """torch's reading of ``s`` and ``dim``: both given, one (the other follows), or neither (every dim)."""
    _supported(input)
    ndim = input._data.ndim
    if dim is None:
        dims = list(range(ndim - len(s), ndim)) if s is not None else list(range(ndim))
    else:
        dims = [normalize_dim(d, ndim, wrap_scalar=False) for d in ((dim,) if isinstance(dim, int) else dim)]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    sizes = None if s is None else [int(n) for n in s]
    if sizes is not None and len(sizes) != len(dims):
        raise RuntimeError("When given, dim and shape arguments must have the same length")
    return dims, sizes


def _resized(x: Tensor, dims: list[int], sizes: list[int] | None) -> Tensor:
    """``x`` cut (a slice per dim) or zero-padded (one pad for all) to ``sizes`` along ``dims``."""
    if sizes is None:
        return x
    pad = [0] * (2 * x._data.ndim)
    for d, n in zip(dims, sizes):
        if n < 1 and n != -1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
        size = x._data.shape[d]
        if n != -1 and n < size:
            x = narrow(x, d, 0, n)
        elif n > size:
            pad[2 * (x._data.ndim - 1 - d) + 1] = n - size
    return constant_pad(x, pad, 0.0) if any(pad) else x


def _as_floating(x: Tensor) -> Tensor:
    if x.dtype.category < _dtype.FLOATING:
        return x.to(_dtype.from_numpy(np.dtype(default_float_for(x._data))))
    return x


def _as_complex(x: Tensor) -> Tensor:
    x = _as_floating(x)
    return x if x.is_complex() else x.to(_dtype.from_numpy(np.result_type(x._data.dtype, np.complex64)))


def _complex_transform(input, s, dim, norm, forward: bool, one_dim: bool):
    """fft, ifft (one dim: a real input takes r2c) and fft2, fftn, ifft2, ifftn (a real input made complex)."""
    dims, sizes = _dims_and_sizes(input, s, dim)
    x = _resized(_as_floating(input), dims, sizes)
    normalization = _normalization(norm, forward)
    if not x.is_complex() and one_dim:
        out = fft_r2c(x, dims, normalization, False)
        return out if forward else out.conj()
    return fft_c2c(_as_complex(x), dims, normalization, forward)


def _real_to_half(input, s, dim, norm, one_dim: bool):
    _supported(input)
    if input.is_complex():
        what = "rfft expects a real input tensor" if one_dim else "rfftn expects a real-valued input tensor"
        raise RuntimeError(f"{what}, but got {input.dtype._legacy}")
    dims, sizes = _dims_and_sizes(input, s, dim)
    x = _resized(_as_floating(input), dims, sizes)
    return fft_r2c(x, dims, _normalization(norm, True), True)


def _half_to_real(input, s, dim, norm):
    dims, sizes = _dims_and_sizes(input, s, dim)
    last = sizes[-1] if sizes is not None and sizes[-1] != -1 else 2 * (input._data.shape[dims[-1]] - 1)
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    half_sizes = None if sizes is None else sizes[:-1] + [last // 2 + 1]
    x = _resized(_as_complex(input), dims, half_sizes if half_sizes is not None else
                 [input._data.shape[d] for d in dims[:-1]] + [last // 2 + 1])
    return fft_c2r(x, dims, _normalization(norm, False), last)


def _one(n, dim):
    return (None if n is None else (n,)), (dim,)


def fft(input, n=None, dim=-1, norm=None):
    return _complex_transform(input, *_one(n, dim), norm, True, True)


def ifft(input, n=None, dim=-1, norm=None):
    return _complex_transform(input, *_one(n, dim), norm, False, True)


def fft2(input, s=None, dim=(-2, -1), norm=None):
    return _complex_transform(input, s, dim, norm, True, False)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    return _complex_transform(input, s, dim, norm, False, False)


def fftn(input, s=None, dim=None, norm=None):
    return _complex_transform(input, s, dim, norm, True, False)


def ifftn(input, s=None, dim=None, norm=None):
    return _complex_transform(input, s, dim, norm, False, False)


def rfft(input, n=None, dim=-1, norm=None):
    return _real_to_half(input, *_one(n, dim), norm, True)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    return _real_to_half(input, s, dim, norm, False)


def rfftn(input, s=None, dim=None, norm=None):
    return _real_to_half(input, s, dim, norm, False)


def irfft(input, n=None, dim=-1, norm=None):
    return _half_to_real(input, *_one(n, dim), norm)


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    return _half_to_real(input, s, dim, norm)


def irfftn(input, s=None, dim=None, norm=None):
    return _half_to_real(input, s, dim, norm)



