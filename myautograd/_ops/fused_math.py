"""A fused multiply-add on NumPy arrays, which NumPy lacks: ``fused(a, b, c, dtype)`` is ``a * b + c`` computed
exactly in two doubles (Dekker's and Knuth's error-free products and sums) and rounded once to ``dtype``, as a
torch CPU kernel's ``fma`` rounds it (``linspace``'s elements, layer norm's normalized values in its weight's
gradient).
"""

from __future__ import annotations

import numpy as np

_SPLITTER = 2.0 ** 27 + 1


def _two_sum(a, b):
    total = a + b
    virtual = total - a
    return total, (a - (total - virtual)) + (b - virtual)


def _split(a):
    scaled = _SPLITTER * a
    high = scaled - (scaled - a)
    return high, a - high


def _two_product(a, b):
    product = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    return product, ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low


def fused(a, b, c, dtype) -> np.ndarray:
    """``a * b + c`` (float64 arrays or numbers) rounded once to ``dtype`` (float32 or float64)."""
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    product, product_error = _two_product(a, b)
    high, sum_error = _two_sum(product, c)
    low = sum_error + product_error  # the exact value is high + low, up to a negligible rounding of low
    nearest = high + low
    if np.dtype(dtype) == np.float64:
        return nearest
    rounded = nearest.astype(dtype)
    # nearest is a double: where it falls exactly halfway between two floats, the exact value decides
    up = np.nextafter(rounded, np.asarray(np.inf, dtype=dtype))
    down = np.nextafter(rounded, np.asarray(-np.inf, dtype=dtype))
    residual = (high - nearest) + low
    halfway_up = nearest == (rounded.astype(np.float64) + up.astype(np.float64)) / 2
    halfway_down = nearest == (rounded.astype(np.float64) + down.astype(np.float64)) / 2
    rounded = np.where(halfway_up & (residual > 0), up, rounded)
    return np.where(halfway_down & (residual < 0), down, rounded)
