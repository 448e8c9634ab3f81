"""Factories: ``tensor``, ``zeros``/``ones``/``full``/``empty``, ranges, ``eye``, the ``*_like`` and
``new_*`` families, and random tensors.

Values follow torch's dtype inference (Python floats become the default dtype, ints int64,
NumPy arrays keep their dtype). Random numbers come from ``_random``'s generator, torch's
Mersenne Twister: ``rand``, ``randint``, ``randperm``, ``uniform_`` and ``random_`` give torch's
values for the same seed, ``randn``/``normal_`` draw as torch does (values within libm drift);
the other distributions repeat under a seed but are not torch's.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import _backend, _dtype, _random
from .._autograd.record import record, records
from .._device import as_device, default_device
from .._size import Size
from .._tensor import Tensor, make_tensor
from .common import to_dtype
from .derivatives import NODES
from .registry import function, method

Generator = _random.Generator

COPY_CONSTRUCT_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor)."
)
REQUIRES_GRAD_DTYPE = "Only Tensors of floating point and complex dtype can require gradients"


def finish(data, dtype, device, requires_grad: bool, cls=None) -> Tensor:
    """Place ``data`` on ``device`` as a tensor, checking that it may require grad."""
    dtype = to_dtype(dtype)
    if dtype is not None and data.dtype != dtype.np:
        data = data.astype(dtype.np)
    dev = as_device(device) if device is not None else default_device()
    if dev.type != "cpu":
        data = _backend.to_device(data, dev)
    if requires_grad and _dtype.kind(data.dtype) not in "fc":
        raise RuntimeError(REQUIRES_GRAD_DTYPE)
    return make_tensor(data, requires_grad=requires_grad, cls=cls)


def _size(size, op: str = "empty") -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    for position, n in enumerate(size):
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
            raise TypeError(f"{op}(): argument 'size' must be tuple of ints, but found element of type "
                            f"{type(n).__name__} at pos {position}")
        if n < 0:
            if op == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(size)}")
    return tuple(int(n) for n in size)


def _plain(value):
    """Nested Python data with tensors replaced by their values."""
    if isinstance(value, Tensor):
        return _backend.to_numpy(value._data).tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _check_nesting(values, dim: int = 0) -> None:
    """torch's check of nested sequences: equal lengths per dimension, numbers at the bottom."""
    if not isinstance(values, (list, tuple)) or not values:
        return
    first = values[0]
    nested = isinstance(first, (list, tuple))
    for item in values:
        if isinstance(item, (list, tuple)) != nested:
            raise TypeError("not a sequence" if nested else "must be real number, not list")
        if nested and len(item) != len(first):
            raise ValueError(f"expected sequence of length {len(first)} at dim {dim + 1} (got {len(item)})")
        _check_nesting(item, dim + 1)


def _numpy_scalars_promoted(values) -> _dtype.dtype | None:
    """torch's dtype for a sequence holding NumPy scalars (None when it holds none): each NumPy scalar
    counts with its own dtype, a Python number with the one it takes alone (``[np.float64(1), 2.0]`` is
    float64, ``[np.int64(1), 2.5]`` float32), all promoted together."""
    found, result = False, None
    stack = [values]
    while stack:
        value = stack.pop()
        if isinstance(value, (list, tuple)):
            stack.extend(value)
            continue
        if isinstance(value, np.generic):
            found, kind = True, _dtype.from_numpy(value.dtype)
        else:
            kind = _dtype._python_scalar_dtype(value)
        result = kind if result is None else _dtype.promote_types(result, kind)
    return result if found else None


def _inferred(values, dtype=None) -> np.ndarray:
    """Nested Python data as an array of torch's inferred dtype, or of ``dtype`` when given: the
    numbers are converted once, straight to that dtype (a Python float is a double, so
    ``tensor([0.1], dtype=float64)`` holds the double 0.1, not a float32 rounding of it)."""
    _check_nesting(values)
    try:
        array = np.array(values)
    except ValueError as exc:
        raise ValueError(f"expected sequence of equal lengths: {exc}") from None
    if array.dtype == object:
        raise TypeError(f"Could not infer dtype of {type(values).__name__}")
    if dtype is not None:
        return array.astype(to_dtype(dtype).np)
    with_numpy_scalars = _numpy_scalars_promoted(values)
    if with_numpy_scalars is not None:
        return array.astype(with_numpy_scalars.np)
    kind = array.dtype.kind
    if kind == "f":
        return array.astype(_dtype.get_default_dtype().np)
    if kind in "iu":
        return array.astype(np.int64)
    if kind == "c":
        return array.astype(_dtype.default_complex().np)
    if kind == "b":
        return array
    raise TypeError(f"new(): invalid data type '{array.dtype}'")


@function
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    if isinstance(data, Tensor):
        warnings.warn(COPY_CONSTRUCT_WARNING, UserWarning, stacklevel=2)
        array = _backend.to_numpy(data._data).copy()
    elif isinstance(data, (np.ndarray, np.generic)):  # NumPy scalars keep their type too
        array = np.array(data)
        _dtype.from_numpy(array.dtype)
    else:
        array = _inferred(_plain(data), dtype)
    return finish(array, dtype, device, requires_grad)


@function
def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor):
        return data.to(dtype=to_dtype(dtype), device=device) if (dtype or device) else data
    if isinstance(data, np.ndarray) and dtype is None and device is None:
        return make_tensor(data)
    return tensor(data, dtype=dtype, device=device)


@function
def from_numpy(ndarray):
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dtype.from_numpy(ndarray.dtype)
    return make_tensor(ndarray)


@function
def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    return finish(np.asarray(s, dtype=(to_dtype(dtype) or _dtype.get_default_dtype()).np), None, device, requires_grad)


def _filled(fill, size, dtype, device, requires_grad, op: str = "empty"):
    target = to_dtype(dtype) or _dtype.get_default_dtype()
    return finish(fill(_size(size, op), target.np), None, device, requires_grad)


def _factory(name: str, fill):
    def op(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
           memory_format=None):
        return _filled(fill, size, dtype, device, requires_grad, name)

    op.__name__ = name
    return function(op)


zeros = _factory("zeros", np.zeros)
ones = _factory("ones", np.ones)
empty = _factory("empty", np.zeros)


@function
def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None, out=None):
    if dtype is None:
        dtype = _dtype._python_scalar_dtype(fill_value) if not isinstance(fill_value, Tensor) else fill_value.dtype
    return _filled(lambda shape, np_dtype: np.full(shape, fill_value, dtype=np_dtype), size, dtype, device,
                   requires_grad)


def _like(name: str, fill):
    def op(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
        target = to_dtype(dtype) or input.dtype
        return finish(fill(input._data.shape, target.np), None, device or input.device, requires_grad)

    op.__name__ = name
    return function(op)


zeros_like = _like("zeros_like", np.zeros)
ones_like = _like("ones_like", np.ones)
empty_like = _like("empty_like", np.zeros)


@function
def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None, memory_format=None):
    target = to_dtype(dtype) or input.dtype
    return finish(np.full(input._data.shape, fill_value, dtype=target.np), None, device or input.device, requires_grad)


def _new(name: str, fill):
    def op(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
        target = to_dtype(dtype) or self.dtype
        return finish(fill(_size(size), target.np), None, device or self.device, requires_grad)

    op.__name__ = name
    return method(op)


new_zeros = _new("new_zeros", np.zeros)
new_ones = _new("new_ones", np.ones)
new_empty = _new("new_empty", np.zeros)


@method
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    target = to_dtype(dtype) or self.dtype
    return finish(np.full(_size((size,)), fill_value, dtype=target.np), None, device or self.device, requires_grad)


@method
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    result = tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)
    return result


@function
def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, layout=None, out=None):
    for name, size in (("n", n), ("m", m)):
        if size is not None and size < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {size}")
    target = to_dtype(dtype) or _dtype.get_default_dtype()
    return finish(np.eye(n, m, dtype=target.np), None, device, requires_grad)


# -- random (torch's algorithms where ``_random`` has them) ----------------------------------------------
Generator.__module__ = "myautograd"
default_generator = Generator()


@function
def manual_seed(seed) -> Generator:
    return default_generator.manual_seed(seed)


@function
def seed() -> int:
    return default_generator.seed()


@function
def initial_seed() -> int:
    return default_generator.initial_seed()


def _generator(generator) -> Generator:
    return generator or default_generator


def _rng(generator):
    return _generator(generator).rng


def _random_factory(name: str, draw):
    def op(*size, generator=None, dtype=None, device=None, requires_grad=False, layout=None, out=None,
           pin_memory=False):
        target = to_dtype(dtype) or _dtype.get_default_dtype()
        return finish(draw(_generator(generator), _size(size), target.np), None, device, requires_grad)

    op.__name__ = name
    return function(op)


rand = _random_factory("rand", lambda gen, shape, np_dtype: _random.uniform(gen, shape, 0.0, 1.0, np_dtype))
randn = _random_factory("randn", lambda gen, shape, np_dtype: _random.normal(gen, shape, 0.0, 1.0, np_dtype))


@function
def rand_like(input, *, dtype=None, device=None, requires_grad=False):
    return rand(*input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


@function
def randn_like(input, *, dtype=None, device=None, requires_grad=False):
    return randn(*input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


@function
def randint(low=0, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    if high is None or (size is None and isinstance(high, (tuple, list))):
        low, high, size = 0, low, high
    target = to_dtype(dtype) or _dtype.int64
    values = _random.random_integers(_generator(generator), _size(tuple(size)), int(low), int(high))
    return finish(values.astype(target.np), None, device, requires_grad)


@function
def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    target = to_dtype(dtype) or _dtype.int64
    return finish(_random.randperm(_generator(generator), int(n)).astype(target.np), None, device, requires_grad)


@function
def normal(mean, std, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    if size is None:
        shape = np.broadcast_shapes(np.shape(getattr(mean, "_data", mean)), np.shape(getattr(std, "_data", std)))
    else:
        shape = tuple(size)
    values = _rng(generator).normal(getattr(mean, "_data", mean), getattr(std, "_data", std), shape)
    target = to_dtype(dtype) or _dtype.get_default_dtype()
    return finish(np.asarray(values).astype(target.np), None, device, requires_grad)


@method
def uniform_(self, a=0.0, b=1.0, *, generator=None):
    from .inplace import set_values_without_grad

    return set_values_without_grad(self, _random.uniform(_generator(generator), self._data.shape, a, b,
                                                         self._data.dtype))


@method
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    from .inplace import set_values_without_grad

    return set_values_without_grad(self, _random.normal(_generator(generator), self._data.shape, mean, std,
                                                        self._data.dtype))


@method
def random_(self, low=0, high=None, *, generator=None):
    from .inplace import set_values_without_grad

    if high is None and not low:
        return set_values_without_grad(self, _random.random_full(_generator(generator), self._data.shape,
                                                                 self._data.dtype))
    if high is None:
        low, high = 0, low
    return set_values_without_grad(self, _random.random_integers(_generator(generator), self._data.shape, low,
                                                                 high))


@function
def bernoulli(input, p=None, *, generator=None):
    probabilities = input._data if p is None else np.full(input._data.shape, p)
    uniform = _backend.to_device(_rng(generator).random(input._data.shape), input.device)
    draws = (uniform < probabilities).astype(input._data.dtype)
    if records(input):
        return record(NODES["BernoulliBackward0"], draws, (input,))
    return make_tensor(draws)


@function
def multinomial(input, num_samples, replacement=False, *, generator=None):
    weights = input._data / input._data.sum(axis=-1, keepdims=True)
    rng = _rng(generator)
    rows = weights.reshape(-1, weights.shape[-1])
    picks = [rng.choice(rows.shape[1], num_samples, replace=replacement, p=row) for row in rows]
    return make_tensor(np.asarray(picks, dtype=np.int64).reshape(weights.shape[:-1] + (num_samples,)))
