"""Text rendering of tensors, matching ``repr(torch.Tensor)`` character for character.

The engine hands :func:`format_tensor` the raw values of a tensor (a NumPy array, or
anything with a ``.get()`` that returns one, such as a CuPy array) together with its
dtype name, device and the autograd suffixes that apply (``grad_fn=...`` or
``requires_grad=True``).  :func:`set_printoptions` and :func:`get_printoptions` keep
the global print options, with the same knobs, defaults and profiles as PyTorch.

How numbers are written, in short:

* Integers and booleans are written with ``str`` and right-aligned to a common width.
* Floats share one style per tensor, chosen from the finite non-zero values that will
  actually be shown: scientific when the largest magnitude exceeds 1e8, the smallest is
  below 1e-4 or they span more than a factor 1000 (unless ``sci_mode`` forces a
  choice); otherwise whole numbers are written as ``3.`` and the rest with
  ``precision`` decimals.  Only those finite non-zero values set the column width, so
  ``nan``, ``inf`` and zeros may stick out of it.
* Complex numbers format their real and imaginary parts with one style each.
* Rows are wrapped to ``linewidth``; above ``threshold`` elements only ``edgeitems``
  items of each end of every dimension are shown, with ``...`` in between.
"""

import math

import numpy as np

from . import _dtype
from ._backend import to_numpy

__all__ = ["format_tensor", "get_printoptions", "set_printoptions"]

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}

_options = {**_PROFILES["default"], "sci_mode": None}

_ALIASES = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "cfloat": "complex64",
    "cdouble": "complex128",
    "long": "int64",
    "int": "int32",
    "short": "int16",
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """Change the print options; a profile ("default", "short", "full") is applied first.

    As in PyTorch, ``sci_mode`` is always overwritten, so leaving it out resets it to None.
    """
    if profile in _PROFILES:
        _options.update(_PROFILES[profile])
    given = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems, "linewidth": linewidth}
    _options.update({key: value for key, value in given.items() if value is not None})
    _options["sci_mode"] = sci_mode


def get_printoptions() -> dict:
    """The current print options, as keyword arguments for :func:`set_printoptions`."""
    return dict(_options)


def _automatic_sci_mode(smallest: float, largest: float) -> bool:
    """Whether magnitudes from ``smallest`` to ``largest`` (finite, non-zero, shown) print in scientific notation
    when ``sci_mode`` is None: above 1e8, below 1e-4, or spanning more than a factor 1000."""
    return largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4


class _Formatter:
    """Fixed style and width for one set of real numbers (a whole tensor, or its real or imaginary part)."""

    def __init__(self, shown, is_float, opts):
        self.is_float = is_float
        self.precision = opts["precision"]
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not is_float:
            self.width = max([1, *(len(str(v)) for v in shown.tolist())])
            return
        vals = shown[np.isfinite(shown) & (shown != 0)]
        if vals.size == 0:
            return
        mags = np.abs(vals).astype(np.float64)
        lo, hi = float(mags.min()), float(mags.max())
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        forced = opts["sci_mode"]
        self.sci_mode = _automatic_sci_mode(lo, hi) if forced is None else forced
        if self.sci_mode:
            lengths = (len(f"{v:.{self.precision}e}") for v in vals.tolist())
        elif self.int_mode:
            lengths = (len(f"{v:.0f}") + 1 for v in vals.tolist())
        else:
            lengths = (len(f"{v:.{self.precision}f}") for v in vals.tolist())
        self.width = max(self.width, *lengths)

    def __call__(self, v):
        if not self.is_float:
            text = f"{v}"
        elif self.sci_mode:
            text = f"{v:{self.width}.{self.precision}e}"
        elif self.int_mode:
            text = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
        else:
            text = f"{v:.{self.precision}f}"
        return text.rjust(self.width)


class _ComplexFormatter:
    """Formats complex numbers as ``re+imj`` with separate formatters for both parts."""

    def __init__(self, real, imag):
        self.real, self.imag = real, imag
        self.width = real.width + imag.width + 1

    def __call__(self, v):
        imag = (self.imag(v.imag) + "j").lstrip()
        return self.real(v.real) + ("" if imag[0] in "+-" else "+") + imag


def _shown_values(arr, edge):
    """Flat array of the elements a summarized print shows (including the quirks for edgeitems=0)."""
    if arr.ndim == 0:
        return arr.reshape(1)
    if arr.ndim == 1:
        if arr.shape[0] > 2 * edge:
            return np.concatenate((arr[:edge], arr[-edge:]))
        return arr
    if not edge:
        return arr.reshape(-1)[:0]
    rows = range(arr.shape[0])
    if arr.shape[0] > 2 * edge:
        rows = [*range(edge), *range(arr.shape[0] - edge, arr.shape[0])]
    return np.concatenate([_shown_values(arr[i], edge) for i in rows])


def _layout(arr, indent, summarize, fmt, opts):
    """Nested bracket layout of ``arr``; ``indent`` is the column just before its opening bracket."""
    edge = opts["edgeitems"]
    n = arr.shape[0] if arr.ndim else 0
    if arr.ndim == 0:
        return fmt(arr.item())
    if arr.ndim == 1:
        per_line = max(1, math.floor((opts["linewidth"] - indent) / (fmt.width + 2)))
        if summarize and not edge:
            items = ["..."]
        elif summarize and n > 2 * edge:
            items = [*map(fmt, arr[:edge].tolist()), " ...", *map(fmt, arr[-edge:].tolist())]
        else:
            items = [fmt(v) for v in arr.tolist()]
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    if summarize and n > 2 * edge:
        rows = [*range(edge), None, *range(n - edge, n)]
    else:
        rows = range(n)
    parts = ["..." if i is None else _layout(arr[i], indent + 1, summarize, fmt, opts) for i in rows]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _body(arr, indent, opts):
    summarize = arr.size > opts["threshold"]
    edge = opts["edgeitems"]

    def formatter(part, is_float):
        return _Formatter(_shown_values(part, edge) if summarize else part.reshape(-1), is_float, opts)

    if np.iscomplexobj(arr):
        fmt = _ComplexFormatter(formatter(arr.real, True), formatter(arr.imag, True))
    else:
        fmt = formatter(arr, _dtype.kind(arr.dtype) == "f")
    return _layout(arr, indent, summarize, fmt, opts)


def _join_suffixes(text, suffixes, indent, linewidth):
    """Append ``, key=value`` suffixes, moving one to a new line when it would overflow."""
    pieces = [text]
    last_len = len(text) - text.rfind("\n") + 1  # torch's own measure, two more than the real length
    for suffix in suffixes:
        if last_len + len(suffix) + 2 > linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            last_len = indent + len(suffix)
        else:
            pieces.append(", " + suffix)
            last_len += len(suffix) + 2
    return "".join(pieces) + ")"


def format_tensor(values, *, dtype_name: str, device: str = "cpu", suffixes=(), default_float: str = "float32") -> str:
    """``repr`` of a dense tensor with these values, e.g. ``tensor([2.2000], grad_fn=<MulBackward0>)``.

    ``dtype_name`` is the torch dtype without its ``torch.`` prefix, ``suffixes`` are
    ``(key, text)`` pairs written as ``key=text`` after the ones this function adds
    (device, size, dtype), and ``default_float`` is the current default dtype name.
    """
    arr = to_numpy(values)
    dtype_name = _ALIASES.get(dtype_name, dtype_name)
    default_float = _ALIASES.get(default_float, default_float)
    if hasattr(np, dtype_name) and arr.dtype != np.dtype(dtype_name):
        arr = arr.astype(dtype_name)
    if arr.dtype in _dtype.REDUCED_FLOATS:  # as torch, float16 and bfloat16 are written from their float32 values
        arr = arr.astype(np.float32)
    opts = get_printoptions()
    prefix = "tensor("
    extra = []
    if device.split(":")[0] != "cpu":
        extra.append(f"device='{device}'")
    if arr.size == 0:
        if arr.ndim != 1:
            extra.append(f"size={tuple(arr.shape)}")
        if dtype_name != default_float:
            extra.append(f"dtype=torch.{dtype_name}")
        body = "[]"
    else:
        if not opts["edgeitems"]:
            extra.append(f"size={tuple(arr.shape)}")
        default_complex = "complex128" if default_float == "float64" else "complex64"
        if dtype_name not in (default_float, default_complex, "int64", "bool"):
            extra.append(f"dtype=torch.{dtype_name}")
        body = _body(arr, len(prefix), opts)
    extra += [f"{key}={text}" for key, text in suffixes]
    return _join_suffixes(prefix + body, extra, len(prefix), opts["linewidth"])
