"""``type_promotion``: the dtype of a result, by torch's promotion lattice.

The binary operators of the operator table are called over pairs of operands: tensors of every
dtype of the lattice (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
complex64, complex128), with dimensions or zero-dimensional, and Python bool, int, float and complex
numbers. A dimensioned tensor decides the result unless a zero-dimensional tensor or a Python number
is of a higher category (bool < integer < floating < complex); a Python float counts as the default
dtype. Each case records one table per operator (``"int8 | uint8 0-dim" -> torch.int16``, or the
exception), so a wrong promotion is a ``dtype`` difference naming the pair. float16, bfloat16 and
complex pairs are cases of their own, so an engine without them is ``n/a`` for those only. Then
``torch.result_type``, ``promote_types``, ``can_cast``, ``set_default_dtype`` (restored after), the
errors of in-place operations whose result would need a downcast, and the dtypes of gradients
across promoted operations.
"""

import operator

from .. import docs
from ..case import case

TYPE_PROMOTION = docs.note("type-promotion-doc", "Type promotion", f"{docs.DOCS_ROOT}/tensor_attributes.html")
PROMOTE_TYPES = docs.docstring("torch.promote_types")
RESULT_TYPE = docs.docstring("torch.result_type")
CAN_CAST = docs.docstring("torch.can_cast")
SET_DEFAULT_DTYPE = docs.docstring("torch.set_default_dtype")

CORE_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64")
PROMOTING_OPERATORS = ("add", "sub", "mul", "div", "true_divide", "pow", "rsub", "remainder", "fmod", "maximum",
                       "minimum", "atan2")
PYTHON_NUMBERS = (True, 2, 2.5)
# Python's operators with a number on the left (``2.5 - t`` is ``t.__rsub__(2.5)``), by their functions' names in
# ``operator``.
REFLECTED = (("+", "add"), ("-", "sub"), ("*", "mul"), ("/", "truediv"), ("**", "pow"), ("%", "mod"))
PROMOTION = ("non-scalar", "integer-dtypes", "float64")


def operand(torch, name, zero_dim, device):
    """A tensor of dtype ``name``: ``[1, 2]`` (``[True, True]`` for bool), or 0-dim ``1``: no zero, so that
    integer division and remainder do not raise for their values."""
    values = True if name == "bool" else 1
    if not zero_dim:
        values = [True, True] if name == "bool" else [1, 2]
    return torch.tensor(values, dtype=getattr(torch, name), device=device)


def outcome(call):
    """The dtype of ``call()``'s result, or ``'TypeName: message'`` of what it raises."""
    try:
        return call().dtype
    except Exception as exc:  # noqa: BLE001 - the exception is the observation
        return f"{type(exc).__name__}: {exc}"


def promotion_tables(torch, rec, operators, left_dtypes, right_dtypes, numbers=PYTHON_NUMBERS, label=""):
    """Record, per operator, the result dtypes of dimensioned tensors of ``left_dtypes`` with dimensioned and
    0-dim tensors of ``right_dtypes`` (both orders) and with the Python ``numbers``; each table's label is the
    operator's name and ``label``."""
    for name in operators:
        function = getattr(torch, name)
        table = {}
        for left in left_dtypes:
            a = operand(torch, left, False, rec.device)
            for right in right_dtypes:
                b = operand(torch, right, False, rec.device)
                b0 = operand(torch, right, True, rec.device)
                table[f"{left} | {right}"] = outcome(lambda: function(a, b))
                table[f"{left} | {right} 0-dim"] = outcome(lambda: function(a, b0))
                table[f"{right} 0-dim | {left}"] = outcome(lambda: function(b0, a))
            for number in numbers:
                table[f"{left} | {number!r}"] = outcome(lambda: function(a, number))
        rec(f"{name}{label}", table)


def reflected_tables(torch, rec, dtypes, numbers=PYTHON_NUMBERS):
    """Record, per Python operator, the result dtypes of a Python number on the left of a dimensioned tensor."""
    for symbol, name in REFLECTED:
        function = getattr(operator, name)
        table = {}
        for name in dtypes:
            a = operand(torch, name, False, rec.device)
            for number in numbers:
                table[f"{number!r} {symbol} {name}"] = outcome(lambda: function(number, a))
        rec(f"number {symbol} tensor", table)


@case("Binary operators over bool, integer, float32 and float64 tensors, dimensioned and 0-dim, and Python numbers: "
      "the result dtypes, and the pairs that raise", doc=TYPE_PROMOTION, tags=("hard",),
      features=PROMOTION)
def binary_operator_dtypes(torch, rec):
    promotion_tables(torch, rec, PROMOTING_OPERATORS, CORE_DTYPES, CORE_DTYPES)
    reflected_tables(torch, rec, CORE_DTYPES)


@case("Binary operators with float16 tensors: float16 wins over integers and bool, 0-dim float32 does not "
      "raise it, a Python float keeps it", doc=TYPE_PROMOTION, tags=("hard",),
      features=(*PROMOTION, "float16"))
def binary_operator_dtypes_float16(torch, rec):
    promotion_tables(torch, rec, ("add", "mul", "div", "pow", "maximum", "atan2"), ("float16",), CORE_DTYPES)
    promotion_tables(torch, rec, ("add", "div"), CORE_DTYPES, ("float16",), numbers=(), label=" of other dtypes")


@case("Binary operators with bfloat16 tensors: bfloat16 with float16 gives float32", doc=TYPE_PROMOTION,
      tags=("hard",),
      features=(*PROMOTION, "float16", "bfloat16"))
def binary_operator_dtypes_bfloat16(torch, rec):
    promotion_tables(torch, rec, ("add", "mul", "div", "pow", "maximum", "atan2"), ("bfloat16",),
                     (*CORE_DTYPES, "float16"))
    promotion_tables(torch, rec, ("add", "div"), (*CORE_DTYPES, "float16"), ("bfloat16",), numbers=(),
                     label=" of other dtypes")


@case("Binary operators with complex tensors and Python complex numbers: a float64 with a complex64 gives "
      "complex128; operators without complex kernels raise", doc=TYPE_PROMOTION, tags=("hard",),
      features=(*PROMOTION, "complex"))
def binary_operator_dtypes_complex(torch, rec):
    promotion_tables(torch, rec, ("add", "sub", "mul", "div", "pow", "maximum", "fmod"), ("complex64", "complex128"),
                     (*CORE_DTYPES, "complex64", "complex128"), numbers=(True, 2, 2.5, 1 + 1j))
    promotion_tables(torch, rec, ("add", "mul"), CORE_DTYPES, ("complex64", "complex128"), numbers=(1 + 1j,),
                     label=" of real dtypes")
    reflected_tables(torch, rec, (*CORE_DTYPES, "complex64"), numbers=(1 + 1j,))


@case("Comparisons give bool whatever they compare; where(cond, a, b) promotes a and b as a binary operator does",
      doc=TYPE_PROMOTION, tags=("hard",),
      features=PROMOTION)
def comparison_and_where_dtypes(torch, rec):
    promotion_tables(torch, rec, ("eq", "lt", "ge"), CORE_DTYPES, CORE_DTYPES)
    cond = torch.tensor([True, False], device=rec.device)
    table = {}
    for left in CORE_DTYPES:
        a = operand(torch, left, False, rec.device)
        for right in CORE_DTYPES:
            b = operand(torch, right, False, rec.device)
            b0 = operand(torch, right, True, rec.device)
            table.update({f"{left} | {right}": outcome(lambda: torch.where(cond, a, b))})
            table.update({f"{left} | {right} 0-dim": outcome(lambda: torch.where(cond, a, b0))})
        for number in PYTHON_NUMBERS:
            table.update({f"{left} | {number!r}": outcome(lambda: torch.where(cond, a, number))})
    rec("where", table)


@case("torch.promote_types and can_cast over the lattice, and result_type of tensors and Python numbers",
      doc=PROMOTE_TYPES, tags=("hard",),
      features=PROMOTION)
def promote_types_result_type_can_cast(torch, rec):
    promoted, castable = {}, {}
    for left in CORE_DTYPES:
        for right in CORE_DTYPES:
            a, b = getattr(torch, left), getattr(torch, right)
            promoted.update({f"{left} | {right}": torch.promote_types(a, b)})
            castable.update({f"{left} -> {right}": torch.can_cast(a, b)})
    rec("promote_types", promoted)
    rec("can_cast", castable)
    ints = torch.tensor([1, 2], device=rec.device)
    half_ints = torch.tensor([1, 2], dtype=torch.int16, device=rec.device)
    zero_dim_double = torch.tensor(1.0, dtype=torch.float64, device=rec.device)
    floats = torch.tensor([1.0, 2.0], device=rec.device)
    rec("result_type(int64 tensor, 2.5)", torch.result_type(ints, 2.5))
    rec("result_type(int16 tensor, 0-dim int64)", torch.result_type(half_ints, torch.tensor(5, device=rec.device)))
    rec("result_type(float32 tensor, 0-dim float64)", torch.result_type(floats, zero_dim_double))
    rec("result_type(int16 tensor, 0-dim float64)", torch.result_type(half_ints, zero_dim_double))
    rec("result_type(2, 2.5)", torch.result_type(2, 2.5))
    rec("result_type(True, int16 tensor)", torch.result_type(True, half_ints))


@case("set_default_dtype(float64) makes Python floats and floating factories float64 (integer tensors with a "
      "Python float too); it refuses a non-floating dtype", doc=SET_DEFAULT_DTYPE, tags=("error",),
      features=PROMOTION)
def default_dtype_decides_python_floats(torch, rec):
    ints = torch.tensor([1, 2], device=rec.device)
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        rec("default dtype", torch.get_default_dtype())
        rec("tensor(1.5)", torch.tensor(1.5, device=rec.device).dtype)
        rec("ones(2)", torch.ones(2, device=rec.device).dtype)
        rec("arange(0, 1, 0.5)", torch.arange(0, 1, 0.5, device=rec.device).dtype)
        rec("int64 tensor * 2.5", (ints * 2.5).dtype)
        rec("float32 tensor + 2.5", (torch.ones(2, dtype=torch.float32, device=rec.device) + 2.5).dtype)
        rec("int64 tensor / int64 tensor", (ints / ints).dtype)
        with rec.attempt("set_default_dtype(int64)"):
            torch.set_default_dtype(torch.int64)
    finally:
        torch.set_default_dtype(before)
    rec("restored default dtype", torch.get_default_dtype())
    rec("int64 tensor * 2.5 after", (ints * 2.5).dtype)


@case("In-place operations and out= cannot downcast: int64 += 1.5 and bool += 1 raise; int32 += int64 and "
      "float32 += float64 keep the destination's dtype", doc=TYPE_PROMOTION, tags=("error",),
      features=(*PROMOTION, "in-place"))
def in_place_cannot_downcast(torch, rec):
    ints = torch.tensor([1, 2], device=rec.device)
    with rec.attempt("int64 += 1.5"):
        ints += 1.5
    with rec.attempt("int64.mul_(float32 tensor)"):
        ints.mul_(torch.tensor([0.5, 2.0], device=rec.device))
    with rec.attempt("bool += 1"):
        flags = torch.tensor([True, False], device=rec.device)
        flags += 1
    with rec.attempt("add(float32, float32, out=int64)"):
        torch.add(torch.ones(2, device=rec.device), 1.0, out=ints)
    small = torch.tensor([1, 2], dtype=torch.int32, device=rec.device)
    small += torch.tensor([3, 4], device=rec.device)
    rec("int32 += int64 tensor", small)
    floats = torch.tensor([1.0, 2.0], device=rec.device)
    floats += torch.tensor([0.5, 0.25], dtype=torch.float64, device=rec.device)
    rec("float32 += float64 tensor", floats)
    with rec.attempt("int64.div_(2)"):
        ints.div_(2)


@case("Gradients keep each input's dtype across a promotion: float32 times a float64 vector is float64 and "
      "the float32 leaf's gradient is float32; a 0-dim float64 does not promote", doc=TYPE_PROMOTION,
      features=PROMOTION)
def gradient_dtypes_across_promotion(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    w = torch.tensor([0.5, -1.0], dtype=torch.float64, requires_grad=True, device=rec.device)
    s = torch.tensor(3.0, dtype=torch.float64, requires_grad=True, device=rec.device)
    y = x * w
    z = x * s
    rec("x * float64 vector", y)
    rec("x * 0-dim float64", z)
    (y.sum() + z.sum()).backward()
    rec("x.grad", x.grad)
    rec("w.grad", w.grad)
    rec("s.grad", s.grad)
    n = torch.tensor([1, 2], device=rec.device)
    v = x * n + x / 2
    rec("float32 leaf with int64 tensor", v)
