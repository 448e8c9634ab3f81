"""Forward-mode AD: dual levels, the tangents of tensors, and carrying tangents through recorded ops.

Inside a dual level (``enter_level``/``exit_level``, one at a time as in torch), a tensor may
have a tangent: ``make_dual`` (``myautograd.autograd.forward_ad``) gives one to a view of a
primal, and every op on tensors with tangents gives its floating outputs the Jacobian-vector
product as theirs. Tangents live here, in ``TANGENTS`` (the tensor's id to a weak reference to
the tensor and its tangent: an entry goes with its tensor), and all go when the level exits.

Carrying a tangent through an op is the recording step's business. While a level is active the
fast recording paths are uninstalled (``fast.py`` hands over to the reference ``record``), and
every op goes through ``record`` (``record.records``/``records_any``: grad mode and requires_grad,
or an active level), which records a node where one is needed and calls ``propagate`` with the
node class, the inputs and the outputs; where none is (nothing requires grad, or under no_grad,
where torch carries tangents too) it makes plain outputs and propagates (``untracked``). Views get
the same view of their base's tangent (``view_tangents``, called by ``views.make_view``); in-place
ops work out the new tangent before the write and write it into the target's tangent
(``inplace_tangent``, ``write_tangent``), so that views and bases see it. Custom Functions call
their ``jvp`` (``autograd/function.py``). The node class's forward rule
(``FormulaNode.forward_rule``, from the derivative table; see ``_ops/forward_rules.py`` for which
entry has which) computes the output tangents:

* ``"elementwise"``: the table's backward formulas with the tangent in place of the gradient,
  summed over the inputs (for real element-wise ops the Jacobian is diagonal, so its transpose
  is itself: what PyTorch's generator calls ``auto_element_wise``);
* a function ``(tangents, values, F) -> tangent(s)``: written out;
* ``"transpose"`` (the fallback): the Jacobian-vector product as the gradient, with respect to a
  dummy output gradient ``u``, of the inner product of the backward formulas' results with the
  tangents. The backward formulas are linear in ``u``, so this is exact; it needs no formula of
  its own and works for every entry whose backward runs on tensors (``create_graph``). An output
  that does not depend on the tangents gets none, as in torch;
* ``None``: torch has no forward formula for the op: ``NotImplementedError``, torch's message.

Tangents are computed with the tensor math namespace with the level suspended, so that they
are recorded when the primals or tangents require grad (a backward through a tangent works)
and a tangent's own computation never gets a tangent. When no level is active nothing here
runs: the recording path checks one module flag, ``ACTIVE``.
"""

from __future__ import annotations

import weakref

import numpy as np

from .. import _backend, _dtype
from .._grad_mode import STATE, enable_grad
from .._tensor import Tensor, make_tensor
from .conjugate_views import ConjugateView, conjugated, shared
from .formulas import is_result_name
from .view_links import track_view

ACTIVE = False           # a dual level is entered and not suspended
LEVEL: int | None = None  # the level entered, or None
TANGENTS: dict[int, tuple[weakref.ref, Tensor]] = {}
# The tangents of recorded outputs by their array's id, with the array and a weak reference to the node
# (the entry goes with the node): a saved output unpacked in a backward with create_graph is a new
# tensor on the same array and node, and has the output's tangent.
OUTPUT_TANGENTS: dict[int, tuple[object, weakref.ref, Tensor]] = {}
_installed_fast: tuple | None = None  # the fast recording functions uninstalled while a level is active

NO_LEVEL_MESSAGE = ("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                    "enter_dual_level() first.")
NESTED_MESSAGE = "Nested forward mode AD is not supported at the moment"
NOT_LAST_MESSAGE = ("Trying to exit a forward AD level that was not the last one that was created. This is not "
                    "supported.")


def unsupported_message(op_name: str) -> str:
    """torch's message for an op without a forward formula."""
    return (f"Trying to use forward AD with {op_name} that does not support it because it has not been implemented "
            "yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?template="
            "feature-request.yml so that we can prioritize its implementation or submit a PR adding the "
            "implementation to derivatives.yaml")


# -- levels ------------------------------------------------------------------------------------------
def enter_level() -> int:
    global LEVEL
    if LEVEL is not None:
        raise RuntimeError(NESTED_MESSAGE)
    LEVEL = 0
    _activate(True)
    return LEVEL


def exit_level(level: int | None = None) -> None:
    global LEVEL
    if level is None:
        level = LEVEL
    if level is None or level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != LEVEL:
        raise RuntimeError(NOT_LAST_MESSAGE)
    LEVEL = None
    TANGENTS.clear()
    OUTPUT_TANGENTS.clear()
    _activate(False)


def _activate(active: bool) -> None:
    """Turn tangent propagation on or off: the fast recording paths are set aside while it is on."""
    global ACTIVE, _installed_fast
    from . import record

    ACTIVE = active
    if active and _installed_fast is None:
        _installed_fast = (record.fast_record, record.fast_record_one, record.fast_recorded)
        record.fast_record = record.fast_record_one = record.fast_recorded = None
    elif not active and _installed_fast is not None and LEVEL is None:
        record.fast_record, record.fast_record_one, record.fast_recorded = _installed_fast
        _installed_fast = None


class suspended:
    """``with suspended():`` ops run without carrying tangents (a tangent's own computation)."""

    def __enter__(self) -> None:
        global ACTIVE
        self.was = ACTIVE
        ACTIVE = False

    def __exit__(self, *exc) -> None:
        global ACTIVE
        ACTIVE = self.was


# -- tangents ----------------------------------------------------------------------------------------
def tangent_of(tensor) -> Tensor | None:
    """The tangent of ``tensor`` at the active level, or None (none under inference_mode)."""
    if LEVEL is None or STATE.inference or not isinstance(tensor, Tensor):
        return None
    entry = TANGENTS.get(id(tensor))
    if entry is not None and entry[0]() is tensor:
        return entry[1]
    if tensor._grad_fn is None:
        return None
    output = OUTPUT_TANGENTS.get(id(tensor._data))
    return output[2] if output is not None and output[0] is tensor._data and output[1]() is tensor._grad_fn else None


def carrying() -> bool:
    """Whether a dual level is active and some tensor has a tangent."""
    return ACTIVE and bool(TANGENTS)


def detached_keeping_tangent(tensor: Tensor) -> Tensor:
    """``tensor`` detached, with its tangent (detached too): a gradient computed for its tangent alone."""
    tangent = tangent_of(tensor)
    result = make_tensor(tensor._data)
    if tangent is not None:
        set_tangent(result, make_tensor(tangent._data))
    return result


def _install_repr_hook() -> None:
    """``repr`` of a tensor with a tangent shows it (``tangent=tensor(...)``), as torch's."""
    from .. import _tensor

    _tensor.tangent_for_repr = tangent_of


def set_tangent(tensor: Tensor, tangent: Tensor | None) -> None:
    if tangent is None:
        TANGENTS.pop(id(tensor), None)
    else:
        TANGENTS[id(tensor)] = (weakref.ref(tensor, _forget(TANGENTS, id(tensor))), tangent)


def _forget(table: dict, key: int):
    """A weak reference's callback that removes ``table[key]`` if it is still the entry of that reference."""
    def callback(reference) -> None:
        entry = table.get(key)
        if entry is not None and any(item is reference for item in entry):
            del table[key]
    return callback


def _remember_output(result: Tensor, tangent: Tensor) -> None:
    array, node = result._data, result._grad_fn
    OUTPUT_TANGENTS[id(array)] = (array, weakref.ref(node, _forget(OUTPUT_TANGENTS, id(array))), tangent)


def size_message(primal: Tensor, tangent: Tensor) -> str:
    """torch's message for a tangent of another size than its primal's."""
    return ("Trying to set a forward gradient that has a different size than that of the original Tensor, this is "
            f"not supported. Tensor is of size {list(primal._data.shape)} while the given forward gradient is of size "
            f"{list(tangent._data.shape)}.")


def is_differentiable(tensor: Tensor) -> bool:
    return _dtype.kind(tensor._data.dtype) in "fc"


# -- carrying tangents through an op -----------------------------------------------------------------
def propagate(cls, inputs, results: tuple, attrs: dict | None) -> None:
    """Give the floating ``results`` of the op recorded as ``cls`` on ``inputs`` their tangents."""
    tangents = [tangent_of(x) for x in inputs]
    if all(t is None for t in tangents) or STATE.inference or _only_inference(cls, inputs):
        return
    wanted = [r for r in results if is_differentiable(r)]
    if not wanted:
        return
    values = _values(cls, inputs, results, attrs)
    outs = output_tangents(cls, tangents, values, [r._data for r in results])
    for result, tangent in zip(results, outs):
        if tangent is not None and is_differentiable(result):
            set_tangent(result, tangent)
            if result._grad_fn is not None:
                _remember_output(result, tangent)


#: Ops on an inference tensor and a Python number that torch runs on the number as a tensor (a
#: "wrapped number", which is not an inference tensor) where myautograd records the number as an
#: attribute, not an input; and clone, which torch writes by copying into a fresh tensor.
NORMAL_OPERAND = frozenset({"RsubBackward1", "RemainderBackward0", "CloneBackward0"})


def _only_inference(cls, inputs) -> bool:
    """Whether every operand of the op is an inference tensor, so that torch gives its results no
    tangent: an inference tensor (and a dual made of one) has no autograd dispatch key, so none of
    torch's derivative code runs for an op on inference tensors alone, outside inference mode too.
    A Python number among the inputs is such an operand that is not inference (torch wraps it in a
    tensor: ``dual * 2`` has a tangent, ``dual.exp()`` has none)."""
    if cls.__name__ in NORMAL_OPERAND:
        return False
    return all(isinstance(x, Tensor) and x.is_inference() for x in inputs if x is not None)


def untracked(cls, data, inputs, attrs: dict | None, outputs: int):
    """The outputs of an op that records no node (nothing requires grad, or grad mode is off), with
    their tangents: what ``record`` gives inside a dual level."""
    arrays = (data,) if outputs == 1 else tuple(data)
    results = tuple(make_tensor(np.asarray(a) if isinstance(a, np.generic) else a) for a in arrays)
    propagate(cls, inputs, results, attrs)
    return results[0] if outputs == 1 else results


def output_tangents(cls, tangents: list, values: dict, arrays: list) -> list:
    """The tangents of the outputs of ``cls`` (of arrays ``arrays``) for ``tangents`` of its inputs."""
    rule = cls.forward_rule
    if rule is None:
        raise NotImplementedError(unsupported_message(cls.forward_op_name()))
    from .modes import TensorMode

    F = TensorMode.F
    with suspended():
        if rule == "elementwise" and not cls._holomorphic and _complex(values):
            rule = "transpose"  # written as torch's complex backward: not the derivative itself
        if rule == "elementwise":
            outs = [_elementwise(cls, tangents, values, F)]
        elif rule == "transpose":
            outs = _transposed(cls, tangents, values, arrays, F)
        else:
            outs = rule(tangents, values, F)
            outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    return [None if t is None else _fit(t, a) for t, a in zip(outs, arrays)]


def _complex(values: dict) -> bool:
    return any(isinstance(v, Tensor) and v._data.dtype.kind == "c" for v in values.values())


def transposed(cls, tangents: list, values: dict, F) -> list:
    """The ``"transpose"`` rule, for a written-out rule that falls back on it."""
    arrays = [values[f"result{nr}"]._data for nr in range(sum(1 for name in values if is_result_name(name)) - 1)]
    return _transposed(cls, tangents, values, arrays, F)


def _fit(tangent: Tensor, array) -> Tensor:
    """A tangent in the output's shape (a formula may give a broadcastable one)."""
    if tangent._data.shape != array.shape:
        tangent = tangent.expand(array.shape).clone()
    return tangent


def _values(cls, inputs, results: tuple, attrs: dict | None) -> dict:
    """What the formulas read, by name: the inputs, the outputs (``result``, ``result0``...) and the saved arguments."""
    values = dict(zip(cls._inputs, inputs))
    values.update(attrs or {})
    values["result"] = results[0]
    for nr, result in enumerate(results):
        values[f"result{nr}"] = result
    return values


def _call(formula, grad, grads, values: dict, F, index: int, backward: bool = False):
    """The formula on ``values``: as written (the derivative, for a tangent), or as a backward
    evaluates it (``backward``: on conjugated values where its entry is holomorphic)."""
    arguments = []
    for param in formula.params:
        if param == "grad":
            arguments.append(grad)
        elif param == "grads":
            arguments.append(grads)
        elif param == "F":
            arguments.append(F)
        elif param == "input_index":
            arguments.append(index)
        else:
            arguments.append(values[param])
    return (formula.fn if backward else formula.raw)(*arguments)


def _elementwise(cls, tangents: list, values: dict, F) -> Tensor | None:
    total = None
    for index, tangent in enumerate(tangents):
        formula = cls.formula_for(index) if tangent is not None else None
        if formula is None:
            continue
        term = _call(formula, tangent, [tangent], values, F, index)
        total = term if total is None else total + term
    return total


def _conjugate(tangent: Tensor) -> Tensor:
    return tangent.conj() if tangent._data.dtype.kind == "c" else tangent


def _transposed(cls, tangents: list, values: dict, arrays: list, F) -> list:
    """J t as the gradient in ``u`` of sum_i <backward_i(u), conj(t_i)>: exact, as backward_i is
    (real-)linear in u."""
    from .engine import run_backward

    recording = STATE.grad_enabled  # the tangent is recorded only as the op itself would be
    # each on a's device
    dummies = [make_tensor(np.zeros_like(a), True) if _dtype.kind(a.dtype) in "fc" else None for a in arrays]
    with enable_grad():
        grads = [d for d in dummies]
        total = None
        for index, tangent in enumerate(tangents):
            formula = cls.formula_for(index) if tangent is not None else None
            if formula is None:
                continue
            term = _call(formula, grads[0], grads, values, F, index, backward=True)
            if term is None:
                continue
            # <backward(u), conj(t)>: its gradient in u (torch's convention) is J t for complex values too
            product = (term * _conjugate(tangent.to(term.dtype))).sum()
            total = product if total is None else total + product
    if total is None or total._grad_fn is None:
        return [None] * len(dummies)
    live = [d for d in dummies if d is not None]
    seed = make_tensor(np.ones_like(total._data))
    found = run_backward([(total._grad_fn, total._output_nr)], [seed], keep_graph=False, create_graph=True,
                         inputs=live, accumulate=False)
    found = iter(found)
    out = []
    for dummy in dummies:
        value = None if dummy is None else next(found)
        out.append(value)  # None: this output does not depend on the tangents, as torch has it
    return out if recording else [None if t is None else t.detach() for t in out]


# -- views -----------------------------------------------------------------------------------------
def view_tangents(cls, base: Tensor, views: tuple, attrs: dict | None, recorded: bool) -> None:
    """Give the views of ``base`` made by the op ``cls`` their tangents: the same views of ``base``'s
    tangent (so an in-place change of either shows in the other), as torch gives them. Where the
    tangent cannot be viewed so (laid out otherwise than ``base``, of another dtype, or recorded
    for a backward through it), each is computed by ``cls``'s forward rule (``recorded``: ``record``
    already did)."""
    tangent = tangent_of(base)
    if tangent is None or STATE.inference or base.is_inference():
        return
    # a conjugate view's values are not its memory (conjugate_views): its views' tangents by the rule
    viewed = [None] if base.__class__ is ConjugateView else [_same_view(tangent, base._data, view._data) for view in views]
    if any(v is None for v in viewed):
        if not recorded:
            propagate(cls, (base,), views, attrs)
        return
    for view, array in zip(views, viewed):
        set_tangent(view, track_view(make_tensor(array), tangent, None))


def _same_view(tangent: Tensor, base, view):
    """The view of ``tangent``'s array that ``view`` is of ``base`` (both arrays), or None."""
    data = tangent._data
    if tangent._requires_grad or view.dtype != base.dtype or type(data) is not type(base):
        return None
    if data.size > 1 and _element_strides(data) != _element_strides(base):
        return None
    offset = (_backend.address(view) - _backend.address(base)) // base.itemsize
    if offset < 0:
        return None
    start = _backend.as_strided(data, (offset + 1,), (data.itemsize,))[offset:]
    strides = tuple(s // view.itemsize * data.itemsize for s in view.strides)
    return _backend.as_strided(start, view.shape, strides)


def _element_strides(array) -> tuple:
    return tuple(s // array.itemsize for s, n in zip(array.strides, array.shape) if n > 1)


def _tangent_of_view_written(target: Tensor, tangent: Tensor) -> Tensor | None:
    """The tangent memory an in-place write into ``target`` goes to, for a view without a tangent: its
    base gets a zero tangent (laid out as the base) and the view the same view of it; None otherwise."""
    meta = target._meta
    base = meta.base if meta is not None else None
    if base is None or tangent_of(base) is not None or not is_differentiable(base):
        return None
    zeros = make_tensor(np.zeros_like(base._data, dtype=tangent._data.dtype))
    array = _same_view(zeros, base._data, target._data)
    if array is None:
        return None
    set_tangent(base, zeros)
    current = track_view(make_tensor(array), zeros, None)
    set_tangent(target, current)
    return current


# -- in-place ops -------------------------------------------------------------------------------------
def inplace_tangent(cls, target: Tensor, inputs, attrs: dict | None, values) -> Tensor | None:
    """The tangent ``target`` gets from the in-place op ``cls`` on ``inputs`` (``target`` first) that
    writes ``values``: worked out before the write, from the inputs' values and tangents then."""
    tangents = [tangent_of(x) for x in inputs]
    if all(t is None for t in tangents) or STATE.inference or not is_differentiable(target):
        return None
    values = _backend.host_value(values, target._data) if not hasattr(values, "shape") else values
    array = _backend.broadcast_to(values.astype(target._data.dtype), target._data.shape).copy()
    result = make_tensor(array)
    outs = output_tangents(cls, tangents, _values(cls, inputs, (result,), attrs), [array])
    if outs[0] is None and tangents[0] is not None:  # overwritten by what does not depend on it (fill_)
        return make_tensor(np.zeros_like(array, dtype=tangents[0]._data.dtype))
    return outs[0]


def write_tangent(target: Tensor, tangent: Tensor | None) -> None:
    """Give ``target`` the tangent of its new value: written into its tangent's memory when it has
    one, so that the tangents of its views and of its base see the change."""
    if tangent is None:
        return
    current = tangent_of(target)
    if current is None:
        current = _tangent_of_view_written(target, tangent)
    if current is None:
        set_tangent(target, tangent)
    elif current.__class__ is ConjugateView:  # stored conjugated in the memory it shares (conjugate_views)
        np.copyto(shared(current), conjugated(tangent._data), casting="unsafe")
    else:
        np.copyto(current._data, tangent._data, casting="unsafe")
    if target._grad_fn is not None:  # a saved result of the in-place op has the new tangent
        _remember_output(target, tangent_of(target))


_install_repr_hook()
