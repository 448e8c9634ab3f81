"""``printing``: the text ``repr()``, ``str()`` and ``print()`` give a tensor, and ``torch.set_printoptions``.

One behaviour per case: the repr of each dtype family (bool and the integers; float32, float64, float16 and
bfloat16; complex), the automatic choice of scientific notation (a shown magnitude above 1e8 or below 1e-4, or
magnitudes spanning more than a factor 1000; zeros, NaN and infinities left out of the choice), then each knob of
``set_printoptions`` (``precision``, ``sci_mode`` and its reset to the automatic choice, ``linewidth``,
``threshold`` and ``edgeitems`` with the ``...`` of a summarised tensor, the profiles ``default``, ``short`` and
``full``), the autograd suffixes (``requires_grad=True``, ``grad_fn=<...>``) wrapped at the line width, and the
dtype suffix under another default dtype. Each text is recorded as printed text, compared exactly. Every case
that changes the options sets them back with ``profile="default"`` at its end.
"""

from .. import docs
from ..case import case

DTYPE_DOC = docs.note("torch-dtype", "torch.dtype", f"{docs.DOCS_ROOT}/tensor_attributes.html")
FLOATING = ("float32", "float64", "float16", "bfloat16")


@case("repr of bool and integer tensors: values right-aligned to one width, the dtype named unless int64 or "
      "bool, 0-dim and empty tensors", doc=DTYPE_DOC,
      features=("non-scalar", "integer-dtypes", "printing"))
def integer_and_bool_dtypes(torch, rec):
    rec.printed("bool vector", repr(torch.tensor([True, False, True], device=rec.device)))
    rec.printed("bool 0-dim", repr(torch.tensor(False, device=rec.device)))
    rec.printed("bool empty", repr(torch.tensor([], dtype=torch.bool, device=rec.device)))
    for name in ("uint8", "int8", "int16", "int32", "int64"):
        dtype = getattr(torch, name)
        signed = -1 if name != "uint8" else 1
        rec.printed(f"{name} vector", repr(torch.tensor([0, 7, 120], dtype=dtype, device=rec.device)))
        rec.printed(f"{name} matrix", repr(torch.tensor([[1, 25 * signed], [3, 100]], dtype=dtype, device=rec.device)))
        rec.printed(f"{name} 0-dim", repr(torch.tensor(5, dtype=dtype, device=rec.device)))
        rec.printed(f"{name} empty", repr(torch.tensor([], dtype=dtype, device=rec.device)))
    rec.printed("int64 beyond 32 bits", repr(torch.tensor([2 ** 40, -3], device=rec.device)))


@case("repr of floating tensors: whole numbers as '3.', others with 4 decimals aligned, a 0-dim tensor alike "
      "('tensor(1.)'), NaN, infinities and -0., the dtype named unless it is the default; the half-precision "
      "dtypes print the values they hold", doc=DTYPE_DOC, dtypes=FLOATING,
      features=("non-scalar", "float64", "printing"))
def floating_dtypes(torch, rec):
    dtype = getattr(torch, rec.dtype)
    rec.printed("whole numbers", repr(torch.tensor([0.0, 1.0, 2.0], dtype=dtype, device=rec.device)))
    rec.printed("fractions, aligned", repr(torch.tensor([[1.5, -2.25], [3.0, 100.0]], dtype=dtype, device=rec.device)))
    rec.printed("pi and e: rounded to the dtype", repr(torch.tensor([3.14159265, 2.71828183], dtype=dtype,
                                                                    device=rec.device)))
    rec.printed("0-dim whole", repr(torch.tensor(1.0, dtype=dtype, device=rec.device)))
    rec.printed("0-dim fraction", repr(torch.tensor(1.5, dtype=dtype, device=rec.device)))
    rec.printed("NaN, infinities, zeros", repr(torch.tensor([float("nan"), float("-inf"), 0.5, -0.0, float("inf")],
                                                            dtype=dtype, device=rec.device)))
    rec.printed("empty", repr(torch.tensor([], dtype=dtype, device=rec.device)))
    print(torch.tensor([0.25, 8.0], dtype=dtype, device=rec.device))


@case("repr of complex tensors: the real and imaginary parts each take their own style and width "
      "(scientific in one part only), whole parts as '1.+2.j'", doc=DTYPE_DOC, dtypes=("complex64", "complex128"),
      features=("non-scalar", "complex", "printing"))
def complex_dtypes(torch, rec):
    dtype = getattr(torch, rec.dtype)
    rec.printed("whole parts", repr(torch.tensor([1 + 2j, -3 - 4j], dtype=dtype, device=rec.device)))
    rec.printed("fractions", repr(torch.tensor([1.5 - 0.25j, 10.0 + 3.125j], dtype=dtype, device=rec.device)))
    rec.printed("scientific imaginary part", repr(torch.tensor([0.5 + 1e-6j, 2.0 + 3.0j], dtype=dtype,
                                                               device=rec.device)))
    rec.printed("scientific real part", repr(torch.tensor([1e9 + 1j], dtype=dtype, device=rec.device)))
    rec.printed("0-dim", repr(torch.tensor(2.5j, dtype=dtype, device=rec.device)))


@case("Scientific notation is chosen when a shown magnitude exceeds 1e8 or is below 1e-4, or the largest is more "
      "than 1000 times the smallest; zeros, NaN and infinities do not count; the test is made on the dtype's value",
      doc=docs.SET_PRINTOPTIONS, dtypes=("float32", "float64"),
      features=("non-scalar", "float64", "printing"))
def scientific_notation_threshold(torch, rec):
    dtype = getattr(torch, rec.dtype)
    cases = {
        "1e8 exactly": [1e8], "1e8 and 1": [1e8, 1.0], "just above 1e8": [1.0001e8], "5e8": [5e8, 2.0],
        "2e9": [2e9], "1e-4 and 0.5": [1e-4, 0.5], "1e-4 and 0.1": [1e-4, 0.1], "5e-5": [5e-5],
        "5e-6": [5e-6, 1.0], "0.00015 and 0.1": [0.00015, 0.1], "ratio 1000": [1.0, 1000.0],
        "ratio above 1000": [0.999, 1000.0], "3.14159 and 1000": [3.14159, 1000.0], "negative small": [-1e-4, 10.0],
        "a zero and 1e-5": [0.0, 1e-5], "zeros only": [0.0, -0.0], "NaN and 1e9": [float("nan"), 1e9],
        "infinity and 0.5": [float("inf"), 0.5], "123456.5": [123456.5], "1e7 and 0.5": [1e7, 0.5],
    }
    for label, values in cases.items():
        rec.printed(label, repr(torch.tensor(values, dtype=dtype, device=rec.device)))
    rec.printed("0-dim 1e-4", repr(torch.tensor(1e-4, dtype=dtype, device=rec.device)))
    rec.printed("0-dim 2.5e8", repr(torch.tensor(2.5e8, dtype=dtype, device=rec.device)))


@case("set_printoptions: precision sets the decimals; sci_mode=True and False force the notation; a later call "
      "with sci_mode=None, or without sci_mode, gives the automatic choice back while precision stays",
      doc=docs.SET_PRINTOPTIONS, features=("non-scalar", "printing"))
def set_printoptions_precision_and_sci_mode(torch, rec):
    small = torch.tensor([1.5, 2.0, 0.123456789], device=rec.device)
    spread = torch.tensor([1e10, 1e-6, 1.0], device=rec.device)
    torch.set_printoptions(precision=2)
    rec.printed("precision=2", repr(small))
    torch.set_printoptions(precision=6)
    rec.printed("precision=6", repr(small))
    torch.set_printoptions(precision=3, sci_mode=True)
    rec.printed("sci_mode=True", repr(small))
    rec.printed("sci_mode=True, an integer tensor", repr(torch.tensor([1, 20], device=rec.device)))
    rec.printed("sci_mode=True, 0-dim", repr(torch.tensor(3.0, device=rec.device)))
    torch.set_printoptions(precision=3, sci_mode=False)
    rec.printed("sci_mode=False", repr(spread))
    rec.printed("sci_mode=False, small values", repr(small))
    torch.set_printoptions(sci_mode=None)
    rec.printed("sci_mode=None: automatic again", repr(spread))
    rec.printed("sci_mode=None, small values", repr(small))
    torch.set_printoptions(sci_mode=True)
    torch.set_printoptions(precision=5)
    rec.printed("a call without sci_mode resets it", repr(small))
    torch.set_printoptions(sci_mode=False)
    torch.set_printoptions(profile="default")
    rec.printed("profile='default' resets sci_mode and precision", repr(spread))
    rec.printed("and the small values", repr(small))


@case("set_printoptions(linewidth=) wraps the rows of a tensor at that width, aligned under the first element; "
      "suffixes move to lines of their own", doc=docs.SET_PRINTOPTIONS,
      features=("non-scalar", "float64", "printing"))
def set_printoptions_linewidth(torch, rec):
    torch.set_printoptions(linewidth=30)
    rec.printed("a vector of 20", repr(torch.arange(20.0, device=rec.device)))
    rec.printed("a 4 x 5 matrix", repr(torch.arange(20.0, device=rec.device).reshape(4, 5)))
    rec.printed("with requires_grad", repr(torch.arange(12.0, device=rec.device).reshape(2, 6).requires_grad_()))
    rec.printed("with dtype and grad_fn",
                repr(torch.arange(10.0, dtype=torch.float64, device=rec.device).requires_grad_() * 2))
    torch.set_printoptions(linewidth=120)
    rec.printed("linewidth=120", repr(torch.arange(30.0, device=rec.device)))
    torch.set_printoptions(profile="default")
    rec.printed("back to 80", repr(torch.arange(30.0, device=rec.device)))


@case("A tensor of more than threshold elements is summarised: edgeitems items at each end of every dimension "
      "with '...' between; edgeitems=0 shows only '...' and the size", doc=docs.SET_PRINTOPTIONS,
      features=("non-scalar", "integer-dtypes", "printing"))
def summarised_with_ellipsis(torch, rec):
    rec.printed("1000 elements: in full", repr(torch.arange(1000, device=rec.device))[-60:])
    rec.printed("1001 elements", repr(torch.arange(1001, device=rec.device)))
    rec.printed("2000 floats", repr(torch.arange(2000.0, device=rec.device)))
    rec.printed("40 x 50 int64", repr(torch.arange(2000, device=rec.device).reshape(40, 50)))
    rec.printed("2 x 30 x 20", repr(torch.arange(1200.0, device=rec.device).reshape(2, 30, 20) / 7))
    torch.set_printoptions(threshold=5, edgeitems=2)
    rec.printed("threshold=5, edgeitems=2: 10 elements", repr(torch.arange(10.0, device=rec.device)))
    rec.printed("threshold=5: 4 elements", repr(torch.arange(4.0, device=rec.device)))
    rec.printed("threshold=5: 3 x 4", repr(torch.arange(12, device=rec.device).reshape(3, 4)))
    torch.set_printoptions(threshold=5, edgeitems=1)
    rec.printed("edgeitems=1: 2 x 3 x 4", repr(torch.arange(24, device=rec.device).reshape(2, 3, 4)))
    torch.set_printoptions(edgeitems=0)
    rec.printed("edgeitems=0: vector", repr(torch.arange(10.0, device=rec.device)))
    rec.printed("edgeitems=0: matrix", repr(torch.arange(12, device=rec.device).reshape(3, 4)))
    torch.set_printoptions(profile="default")
    rec.printed("profile='default' again", repr(torch.arange(2000.0, device=rec.device)))


@case("set_printoptions(profile=): 'short' prints 2 decimals and 2 edge items, 'full' never summarises, "
      "'default' restores 4 decimals, 3 edge items and threshold 1000; options given with a profile override it",
      doc=docs.SET_PRINTOPTIONS, features=("non-scalar", "printing"))
def set_printoptions_profiles(torch, rec):
    thirds = torch.arange(2000.0, device=rec.device) / 3
    torch.set_printoptions(profile="short")
    rec.printed("short", repr(thirds))
    rec.printed("short, few elements", repr(torch.tensor([1.23456, 20.5], device=rec.device)))
    torch.set_printoptions(profile="full")
    text = repr(torch.arange(1001, device=rec.device))
    rec("full: '...' in the repr of 1001 elements", "..." in text)
    rec("full: its length and lines", [len(text), text.count("\n")])
    rec.printed("full, few elements", repr(torch.tensor([1.23456, 20.5], device=rec.device)))
    torch.set_printoptions(profile="short", precision=5)
    rec.printed("short with precision=5", repr(torch.tensor([1.23456789, 20.5], device=rec.device)))
    torch.set_printoptions(profile="default")
    rec.printed("default", repr(thirds))


@case("The autograd suffixes of a repr: requires_grad=True on a leaf, grad_fn=<...> on a result (0-dim too), "
      "after dtype=; none on a detached tensor; str() and print() give the same text",
      doc=docs.SET_PRINTOPTIONS, features=("non-scalar", "float64", "detach", "printing"))
def autograd_suffixes(torch, rec):
    x = torch.tensor([1.5, 2.0], requires_grad=True, device=rec.device)
    rec.printed("leaf", repr(x))
    rec.printed("x * 2", repr(x * 2))
    rec.printed("(x * 2).sum()", repr((x * 2).sum()))
    rec.printed("x.detach()", repr(x.detach()))
    rec.printed("x.double() * 1e-5", repr(x.double() * 1e-5))
    rec.printed("str(x * 3)", str(x * 3))
    print(x / 3)
    print([x.detach(), torch.tensor([1, 2], device=rec.device)])


@case("The dtype suffix is left out for the default dtype: after set_default_dtype(torch.float64), float64 and "
      "complex128 tensors print without it and float32 and complex64 ones with it", doc=docs.SET_PRINTOPTIONS,
      features=("non-scalar", "float64", "complex", "printing"))
def default_dtype_decides_the_dtype_suffix(torch, rec):
    torch.set_default_dtype(torch.float64)
    try:
        rec.printed("float64 under a float64 default", repr(torch.tensor([1.5, 2.0], device=rec.device)))
        rec.printed("float32 under it", repr(torch.tensor([1.5, 2.0], dtype=torch.float32, device=rec.device)))
        rec.printed("complex128 under it", repr(torch.tensor([1j, 2.0], device=rec.device)))
        rec.printed("complex64 under it", repr(torch.tensor([1j], dtype=torch.complex64, device=rec.device)))
        rec.printed("empty float32 under it", repr(torch.tensor([], dtype=torch.float32, device=rec.device)))
    finally:
        torch.set_default_dtype(torch.float32)
    rec.printed("float64 after the default is back", repr(torch.tensor([1.5], dtype=torch.float64, device=rec.device)))
