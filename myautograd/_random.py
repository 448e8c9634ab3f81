"""Random numbers drawn as torch's CPU generator draws them.

torch's CPU generator is a Mersenne Twister (mt19937) seeded with the low 32 bits of the seed
(``init_genrand``). Each distribution turns its 32-bit outputs into values in a fixed way, and
where that way is reproduced here the values are torch's, bit for bit:

* ``uniform_``/``rand``: one 32-bit draw per float32 (its low 24 bits), one 64-bit draw (two
  32-bit ones, the first the high half) per float64 (its low 53 bits), scaled to ``[from, to)``
  with a fused multiply-add, as torch's vectorised CPU kernels compute it;
* ``random_``/``randint``: ``draw % range + low``, 64-bit draws when the range needs them;
* ``randperm`` (n below 2**32 / 20): a Fisher-Yates shuffle of ``0..n-1`` from the front;
* ``normal_``/``randn``: the same draws, consumed in the same order (16 at a time with the last
  block redrawn, or per element with the second Box-Muller value cached for the next call); the
  values come from NumPy's ``log``/``cos``/``sin``, so they may differ from torch's in the last
  bit, but every later draw lines up with torch's.

Other distributions (``bernoulli``, dropout masks, ``multinomial``, ``normal`` with tensor
arguments) draw from ``Generator.rng``, a NumPy generator over the same Mersenne Twister: seeded
runs repeat, the values are not torch's.
"""

from __future__ import annotations

import math

import numpy as np

from . import _dtype

DEFAULT_SEED = 67280421310721  # torch's default_rng_seed_val
_U64 = np.uint64
_UINT64_MASK = (1 << 64) - 1
_DIGITS = {np.dtype(np.float16): 24, np.dtype(np.float32): 24, np.dtype(np.float64): 53}  # float16: float draws
_NORMAL_BLOCK = 16


def _mt19937_key(seed: int) -> np.ndarray:
    """The 624-word state ``init_genrand`` makes from the low 32 bits of ``seed``."""
    key = [seed & 0xFFFFFFFF]
    for index in range(1, 624):
        previous = key[-1]
        key.append((1812433253 * (previous ^ (previous >> 30)) + index) & 0xFFFFFFFF)
    return np.array(key, dtype=np.uint32)


class Generator:
    """A seedable source of random numbers: torch's Mersenne Twister, see the module docstring."""

    def __init__(self, device="cpu") -> None:
        from ._device import as_device

        self.device = as_device(device)
        self._bits = np.random.MT19937()
        self.rng = np.random.Generator(self._bits)
        self.manual_seed(DEFAULT_SEED)

    # -- seeding and state ---------------------------------------------------------------------------------
    def manual_seed(self, seed) -> Generator:
        seed = int(seed)
        if not -(1 << 63) <= seed <= _UINT64_MASK:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed & _UINT64_MASK
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": _mt19937_key(self._seed), "pos": 624}}
        self._normal_cache: float | None = None
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        return self.manual_seed(int(np.random.SeedSequence().entropy) % (1 << 63)).initial_seed()

    def get_state(self):
        return {"seed": self._seed, "bits": self._bits.state, "normal_cache": self._normal_cache}

    def set_state(self, state) -> Generator:
        self._seed = state["seed"]
        self._bits.state = state["bits"]
        self._normal_cache = state["normal_cache"]
        return self

    # -- raw draws -----------------------------------------------------------------------------------------
    def random32(self, count: int) -> np.ndarray:
        """``count`` 32-bit outputs of the twister (as uint64)."""
        return self._bits.random_raw(count).astype(_U64)

    def random64(self, count: int) -> np.ndarray:
        """``count`` 64-bit values, each from two 32-bit outputs (the first is the high half)."""
        pairs = self.random32(2 * count)
        return (pairs[0::2] << _U64(32)) | pairs[1::2]


# -- distributions ---------------------------------------------------------------------------------------------
def _require_float(np_dtype, kernel: str) -> np.dtype:
    np_dtype = np.dtype(np_dtype)
    if np_dtype not in _DIGITS:
        from ._dtype import from_numpy

        raise NotImplementedError(f'"{kernel}" not implemented for \'{from_numpy(np_dtype).scalar_type_name}\'')
    return np_dtype


def _unit_floats(gen: Generator, count: int, np_dtype) -> np.ndarray:
    """``count`` floats in ``[0, 1)`` as torch makes them: the low ``digits`` bits of a draw
    (float16 is drawn as float32 and rounded)."""
    digits = _DIGITS[np.dtype(np_dtype)]
    raw = gen.random64(count) if digits == 53 else gen.random32(count)
    return (raw & _U64((1 << digits) - 1)).astype(np.float64) * 2.0**-digits


def _fma64(a: np.ndarray, b: float, c: float) -> np.ndarray:
    """``a * b + c`` rounded once, in float64 (Dekker's exact product and Knuth's exact sum)."""
    product = a * b

    def split(value):
        scaled = 134217729.0 * value
        high = scaled - (scaled - value)
        return high, value - high

    a_high, a_low = split(a)
    b_high, b_low = split(np.float64(b))
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    total = product + c
    virtual = total - product
    sum_error = (product - (total - virtual)) + (c - virtual)
    return total + (product_error + sum_error)


def _as_complex(draw, shape: tuple, np_dtype, *args):
    """A complex draw as torch makes it: the draw of the parts' dtype on the real view (shape + (2,)),
    real and imaginary parts interleaved."""
    parts = draw(shape + (2,), np.dtype(np_dtype).type(0).real.dtype, *args)
    return np.ascontiguousarray(parts).view(np_dtype).reshape(shape)


def uniform(gen: Generator, shape: tuple, low: float, high: float, np_dtype) -> np.ndarray:
    """``uniform_(low, high)`` of a tensor of ``shape`` and floating or complex ``np_dtype`` (each part
    uniform in [low, high))."""
    if np.dtype(np_dtype).kind == "c":
        return _as_complex(lambda shape, dtype: uniform(gen, shape, low, high, dtype), shape, np_dtype)
    np_dtype = _require_float(np_dtype, "check_uniform_bounds")
    unit = _unit_floats(gen, math.prod(shape), np_dtype)
    if np_dtype == np.float64:
        values = _fma64(unit, float(np.float64(high) - np.float64(low)), float(low))
    else:  # float16 is computed in float32; a float times a float is exact in float64: one rounding
        low_t, high_t = np.float32(low), np.float32(high)
        values = (unit * np.float64(np.float32(high_t - low_t)) + np.float64(low_t)).astype(np.float32)
    return values.astype(np_dtype).reshape(shape)


def random_integers(gen: Generator, shape: tuple, low: int, high: int) -> np.ndarray:
    """``random_(low, high)`` / ``randint``: integers in ``[low, high)`` as int64."""
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    span = high - low
    count = math.prod(shape)
    raw = gen.random64(count) if span >= 1 << 32 else gen.random32(count)
    values = (raw % _U64(span)).astype(np.int64) + np.int64(low)
    return values.reshape(shape)


def random_full(gen: Generator, shape: tuple, np_dtype) -> np.ndarray:
    """``random_()`` without bounds: ``[0, 2**63)`` for int64 (64-bit draws), ``[0, 2**digits]``
    for floats, ``[0, max]`` for the other integer types."""
    np_dtype = np.dtype(np_dtype)
    count = math.prod(shape)
    if np_dtype == np.int64 or np_dtype == np.float64:
        raw = gen.random64(count)
    else:
        raw = gen.random32(count)
    if _dtype.kind(np_dtype) == "f":
        modulus = (1 << _DIGITS[np_dtype]) + 1
    elif np_dtype.kind == "b":
        modulus = 2
    else:
        modulus = int(np.iinfo(np_dtype).max) + 1
    return (raw % _U64(modulus)).astype(np_dtype).reshape(shape)


def randperm(gen: Generator, n: int) -> np.ndarray:
    """A permutation of ``0..n-1``: swap each position with a later one, front to back."""
    order = list(range(n))
    draws = gen.random32(max(n - 1, 0)).tolist()
    for i, draw in enumerate(draws):
        j = i + draw % (n - i)
        order[i], order[j] = order[j], order[i]
    return np.array(order, dtype=np.int64)


def normal(gen: Generator, shape: tuple, mean: float, std: float, np_dtype) -> np.ndarray:
    """``normal_(mean, std)``: Box-Muller, drawing as torch's CPU kernel draws; for a complex dtype, each part
    with ``std / sqrt(2)`` (a complex normal of variance ``std ** 2``)."""
    if np.dtype(np_dtype).kind == "c":
        return _as_complex(lambda shape, dtype: normal(gen, shape, mean, std / math.sqrt(2), dtype), shape, np_dtype)
    np_dtype = _require_float(np_dtype, "normal_kernel_cpu")
    count = math.prod(shape)
    if count >= _NORMAL_BLOCK:
        return _normal_blocks(gen, count, mean, std, np_dtype).reshape(shape)
    values = np.array([_one_normal(gen) * std + mean for _ in range(count)], dtype=np.float64)
    return values.astype(np_dtype).reshape(shape)


def _normal_blocks(gen: Generator, count: int, mean: float, std: float, np_dtype) -> np.ndarray:
    """Box-Muller on each block of 16 uniforms (the first 8 paired with the next 8); a last
    partial block is redrawn as a whole block ending at the last element. float32 and float64
    draw a uniform for every element first; float16 (computed in float32) only for the whole
    blocks."""
    full = count - count % _NORMAL_BLOCK
    work = np.float32 if np_dtype == np.float16 else np_dtype
    first = _unit_floats(gen, full if np_dtype == np.float16 else count, work)
    data = np.zeros(count, dtype=np.float64)
    data[:full] = _box_muller(first[:full].reshape(-1, 2, 8), mean, std)
    if count % _NORMAL_BLOCK:
        tail = _unit_floats(gen, _NORMAL_BLOCK, work)
        data[count - _NORMAL_BLOCK:] = _box_muller(tail.reshape(1, 2, 8), mean, std)
    return data.astype(np_dtype)


def _box_muller(blocks: np.ndarray, mean: float, std: float) -> np.ndarray:
    u1 = 1.0 - blocks[:, 0, :]
    u2 = blocks[:, 1, :]
    radius = np.sqrt(-2.0 * np.log(u1))
    theta = 2.0 * math.pi * u2
    return np.stack([radius * np.cos(theta) * std + mean, radius * np.sin(theta) * std + mean], axis=1).reshape(-1)


def _one_normal(gen: Generator) -> float:
    """A standard normal double, as torch's ``normal_distribution<double>``: two 53-bit uniforms
    give two values; the second is kept for the next call."""
    if gen._normal_cache is not None:
        value, gen._normal_cache = gen._normal_cache, None
        return value
    u1, u2 = _unit_floats(gen, 2, np.float64)
    radius = math.sqrt(-2.0 * math.log1p(-u2))
    theta = 2.0 * math.pi * u1
    gen._normal_cache = radius * math.sin(theta)
    return radius * math.cos(theta)


__all__ = ["Generator", "normal", "random_full", "random_integers", "randperm", "uniform"]
