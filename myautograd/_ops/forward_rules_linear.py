"""Forward-mode rules of the linear and structural entries of the derivative table.

An op linear in its input has the op itself as its derivative: its output tangent is the op applied
to the input's tangent (what torch's derivatives.yaml writes as ``result: auto_linear`` or
``self_t.<op>(...)``). The entries here, by kind:

* **views** (``VIEWS``): a view's tangent is the same view of its base's tangent, made by
  ``forward.view_tangents`` without a rule; the rule (the view op on the tangent) gives it where the
  tangent cannot be viewed so (laid out otherwise, or recorded for a backward through it);
* **linear ops** (``LINEAR``): copies, pads, pools, gathers and their kin, the op on the tangent;
  the backward kernels of linear ops recorded under ``create_graph`` (``...BackwardBackward0``:
  linear in the incoming gradient, not depending on the forward input's values) are the kernel on
  the incoming gradient's tangent, none where only the forward input has one, as torch's;
* **multilinear ops** (``RULES``): convolution, ``_trilinear``, ``complex(real, imag)`` and a
  convolution's gradient, the sum of the op with one argument replaced by its tangent; writes
  (``index_put``, ``scatter``, ``masked_fill``, ``copy_``, ``fill_``) the write of the tangents;
* ops whose result does not depend on the input (``fill_`` with a number, ``zero_``): no tangent
  (an in-place write then leaves zeros, ``forward.inplace_tangent``); ``bernoulli``: zeros, as torch;
* ``hardsigmoid_backward`` (the ``NotImplemented`` entry), which torch refuses with its own message.

Every rule is exact where the fallback (``forward.transposed``) is, and gives its values
(``tests/test_forward_rules.py``); ``install`` gives the table's entries these rules.
"""

from __future__ import annotations

from .._autograd.formulas import NODES
from .._grad_mode import STATE
from . import formula_helpers as H
from . import formula_helpers_nn as HN
from . import window_math as W
from .registry import FUNCTIONS


def _terms(*terms):
    """The sum of the terms that are not None (None when all are)."""
    total = None
    for term in terms:
        if term is not None:
            total = term if total is None else total + term
    return total


def _or_zeros(tangent, like, F):
    return tangent if tangent is not None else F.zeros_like(like)


def _cast_copy(tangent, result):
    """The tangent as a new tensor of the result's dtype and device (a copy or cast of its input)."""
    out = tangent.to(device=result.device, dtype=result.dtype)
    return out.clone() if out is tangent else out


# -- views: the view op on the tangent -----------------------------------------------------------------
def _reshaped(t, v, F):
    return F.reshape(t, tuple(v["result"].shape))


def _split(t, v, F):
    dim, start, parts = v["dim"], 0, []
    for shape in v["result_shapes"]:
        parts.append(F.narrow(t, dim, start, shape[dim]))
        start += shape[dim]
    return parts


VIEWS = {
    "ViewBackward0": _reshaped,
    "ReshapeAliasBackward0": _reshaped,
    "SqueezeBackward0": _reshaped,
    "SqueezeBackward1": _reshaped,
    "SqueezeBackward2": _reshaped,
    "SqueezeBackward4": _reshaped,
    "UnsqueezeBackward0": lambda t, v, F: F.unsqueeze(t, v["dim"]),
    "TBackward0": lambda t, v, F: F.t(t),
    "TransposeBackward0": lambda t, v, F: F.transpose(t, v["dim0"], v["dim1"]),
    "PermuteBackward0": lambda t, v, F: F.permute(t, v["dims"]),
    "SelectBackward0": lambda t, v, F: F.select(t, v["dim"], v["index"]),
    "SliceBackward0": lambda t, v, F: F.index(t, H.at(v["dim"], slice(v["start"], v["end"], v["step"]))),
    "DiagonalBackward0": lambda t, v, F: F.diagonal(t, v["offset"], v["dim1"], v["dim2"]),
    "AsStridedBackward0": lambda t, v, F: F.index(F.reshape(t, (-1,)), (v["positions"],)),
    "UnfoldBackward0": lambda t, v, F: F.index(F.reshape(t, (-1,)), (v["positions"],)),
    "UnbindBackward0": lambda t, v, F: [F.select(t, v["dim"], i) for i in range(len(v["result_shapes"]))],
    "SplitBackward0": _split,
    "SplitWithSizesBackward0": _split,
    "AliasBackward0": lambda t, v, F: t[...],
    "ViewAsRealBackward0": lambda t, v, F: F.view_as_real(t),
    "ViewAsComplexBackward0": lambda t, v, F: F.view_as_complex(t),
}


def _view(apply):
    """A view's rule: the view of its base's tangent, where ``forward.view_tangents`` cannot take it."""
    def rule(tangents, values, F):
        return apply(tangents[0], values, F)
    rule.__doc__ = _view.__doc__
    return rule


def _identity(tangents, values, F):
    """``unpack_dual``'s primal: a view of the dual tensor without its tangent, as torch's."""
    return None


# -- linear ops of one input: the op on the tangent ------------------------------------------------------
def _placed(name: str):
    """select/slice/diagonal_backward (zeros with the incoming gradient at ``key``) on the tangent."""
    def apply(t, v, F):
        return F.backward_op(name, t, kernel="placed", sizes=v["sizes"], key=v["key"])
    return apply


def _gather_pad_backward(name: str):
    """reflection/replication_pad*_backward on the incoming gradient's tangent."""
    def apply(t, v, F):
        return F.backward_op(name, t, v["self"], kernel="gather_pad_backward", key=v["key"])
    return apply


def _avg_pool_backward(name: str):
    """avg_pool*_backward on the incoming gradient's tangent."""
    def apply(t, v, F):
        return F.backward_op(name, t, v["self"], kernel="avg_pool_backward", kernel_size=v["kernel_size"],
                             stride=v["stride"], counts=v["counts"], pad=v["pad"], divisors=v["divisors"])
    return apply


def _adaptive_avg_backward(name: str):
    """adaptive_avg_pool*_backward on the incoming gradient's tangent."""
    def apply(t, v, F):
        return F.backward_op(name, t, v["self"], kernel="adaptive_avg_backward", matrices=v["matrices"])
    return apply


def _max_unpool(spatial: int):
    """max_unpool on the tangent: its elements placed at the indices in a zero result (where an index
    repeats, the last element placed there, as the forward)."""
    def apply(t, v, F):
        return HN.max_pool_backward(F, t, v["result"], v["indices"], spatial, accumulate=False)
    return apply


LINEAR = {
    "ToCopyBackward0": lambda t, v, F: _cast_copy(t, v["result"]),
    "ConjBackward0": lambda t, v, F: F.conj(t),  # recorded for complex tensors only
    "ConjPhysicalBackward0": lambda t, v, F: t.conj_physical(),  # a copy, not a conjugate view
    "ConjPhysicalBackward1": lambda t, v, F: t.conj_physical(),  # conj_physical_, in place
    "UnsafeViewBackward0": _reshaped,
    "UnsafeSplitBackward0": lambda t, v, F: [part.clone() for part in _split(t, v, F)],
    "Rot90Backward0": lambda t, v, F: F.rot90(t, v["k"], v["dims"]),
    "DiagonalBackward0_copy": lambda t, v, F: F.diagonal(t, v["offset"], v["dim1"], v["dim2"]).clone(),
    "DiagEmbedBackward0": lambda t, v, F: t.diag_embed(v["offset"], v["dim1"], v["dim2"]),
    "IndexBackward0": lambda t, v, F: F.index(t, v["indices"]),
    "TakeBackward0": lambda t, v, F: t.take(v["index"]),
    "MaskedSelectBackward0": lambda t, v, F: t.masked_select(v["mask"]),
    "RollBackward0": lambda t, v, F: F.roll(t, v["shifts"], v["dims"]),
    "ScatterBackward1": lambda t, v, F: F.scatter_zeros(t, v["dim"], F.array(v["index"])),
    "NativeDropoutBackward0": lambda t, v, F: t * v["mask"] * v["scale"],
    "ConstantPadNdBackward0": lambda t, v, F: F.constant_pad(t, v["pad"]),
    "Im2ColBackward0": lambda t, v, F: F.im2col(t, v["kernel_size"], v["stride"], v["dilation"]),
    "Col2ImBackward0": lambda t, v, F: F.col2im(t, tuple(v["result"].shape[2:]), v["kernel_size"], v["stride"],
                                                v["dilation"]),
    **{f"AvgPool{n}DBackward0": lambda t, v, F: W.avg_pool(F, t, v["kernel_size"], v["stride"], v["counts"],
                                                           v["pad"], v["divisors"]) for n in (2, 3)},
    **{f"AdaptiveAvgPool{n}DBackward0": lambda t, v, F: W.adaptive_avg(F, t, v["matrices"]) for n in (2, 3)},
    **{f"MaxUnpool{n}DBackward0": _max_unpool(n) for n in (2, 3)},
    # backward kernels of linear ops, in the incoming gradient (their first input)
    **{name: _avg_pool_backward(name) for name in ("AvgPool2DBackwardBackward0", "AvgPool3DBackwardBackward0")},
    **{name: _adaptive_avg_backward(name) for name in ("AdaptiveAvgPool2DBackwardBackward0",
                                                       "AdaptiveAvgPool3DBackwardBackward0")},
    **{name: _placed(name) for name in ("SelectBackwardBackward0", "SliceBackwardBackward0",
                                        "DiagonalBackwardBackward0")},
    **{f"{mode}Pad{dims}DBackward0": lambda t, v, F: F.index(t, v["key"])
       for mode in ("Reflection", "Replication") for dims in (1, 2, 3)},
    **{name: _gather_pad_backward(name) for name in (f"{mode}Pad{dims}DBackwardBackward0"
                                                     for mode in ("Reflection", "Replication") for dims in (1, 2, 3))},
}


def _linear(apply):
    """An op linear in its first input (the others, if any, carry no tangent into the result)."""
    def rule(tangents, values, F):
        return None if tangents[0] is None else apply(tangents[0], values, F)
    return rule


# -- multilinear ops: the sum of the op with one argument replaced by its tangent ----------------------------
def materialized(tangent, primal, partner, F):
    """A missing tangent as zeros where its product partner is recorded (requires grad, grad mode on):
    torch materializes it so, and the product's tangent then requires grad (a module's parameters
    made dual give an output tangent that requires grad)."""
    if tangent is None and partner._requires_grad and STATE.grad_enabled:
        return F.zeros_like(primal)
    return tangent


def _convolution(tangents, values, F):
    """torch's ``conv(input_t, weight) + conv(input, weight_t) + bias_t``."""
    input_t, weight_t, bias_t = tangents
    input_t = materialized(input_t, values["input"], values["weight"], F)
    weight_t = materialized(weight_t, values["weight"], values["input"], F)
    settings = tuple(values[name] for name in ("stride", "padding", "dilation", "transposed", "output_padding",
                                               "groups"))

    def conv(x, w):
        return W.convolution(F, x, w, *settings)

    spatial = values["result"].ndim - 2
    return _terms(None if input_t is None else conv(input_t, values["weight"]),
                  None if weight_t is None else conv(values["input"], weight_t),
                  None if bias_t is None else F.reshape(bias_t, (-1,) + (1,) * spatial))


def _convolution_gradient(tangents, values, F):
    """A convolution's gradient (``output_mask`` says which) is linear in the incoming gradient, and
    the input's in the weight, the weight's in the input; the bias's depends on the gradient alone."""
    grad_output_t, input_t, weight_t = tangents
    grad_output, input, weight = values["grad_output"], values["input"], values["weight"]
    which = values["output_mask"].index(True)
    settings = tuple(values[name] for name in ("stride", "padding", "dilation", "transposed", "output_padding",
                                               "groups"))

    def gradient(g, x, w):
        return W.convolution_backward(F, g, x, w, which, *settings)

    return _terms(None if grad_output_t is None else gradient(grad_output_t, input, weight),
                  None if which != 1 or input_t is None else gradient(grad_output, input_t, weight),
                  None if which != 0 or weight_t is None else gradient(grad_output, input, weight_t))


def _trilinear(tangents, values, F):
    operands = [values["i1"], values["i2"], values["i3"]]
    expands = (values["expand1"], values["expand2"], values["expand3"])
    terms = []
    for position, tangent in enumerate(tangents):
        if tangent is not None:
            replaced = operands[:position] + [tangent] + operands[position + 1:]
            terms.append(F.trilinear(*replaced, *expands, values["sumdim"]))
    return _terms(*terms)


def _complex(tangents, values, F):
    """``complex(real_t, imag_t)``, zeros for a part without a tangent."""
    shape = tuple(values["result"].shape)
    given = next(t for t in tangents if t is not None)
    parts = [F.expand(t, shape) if t is not None else F.zeros(shape, given) for t in tangents]
    return F.view_as_complex(F.stack(parts, -1))


# -- writes: the write of the tangents -------------------------------------------------------------------
def _index_put(tangents, values, F):
    """``self_t.index_put(indices, values_t, accumulate)``, zeros for a missing tangent."""
    self_t, values_t = tangents
    result, key = values["result"], values["indices"]
    placed = None if values_t is None else F.index_put_zeros(tuple(result.shape), result, key, values_t,
                                                             values["accumulate"])
    if self_t is not None:
        self_t = self_t.clone() if values["accumulate"] else F.where(F.mask_at(result, key), 0, self_t)
    return _terms(self_t, placed)


def _index_fill(tangents, values, F):
    """``self_t.index_fill(indices, value_t)``: a 0-dim value written at every index."""
    self_t, value_t = tangents
    result = values["result"]
    return F.where(F.mask_at(result, values["indices"]), 0 if value_t is None else value_t,
                   _or_zeros(self_t, result, F))


def _masked_fill(tangents, values, F):
    self_t, value_t = tangents
    return F.where(values["mask"], 0 if value_t is None else value_t, _or_zeros(self_t, values["result"], F))


def _scatter(tangents, values, F):
    self_t, src_t = tangents
    if src_t is None:
        return F.scatter_zeros(self_t, values["dim"], F.array(values["index"]))
    return _or_zeros(self_t, values["result"], F).scatter(values["dim"], values["index"], src_t)


def _scatter_add(tangents, values, F):
    self_t, src_t = tangents
    if src_t is None:
        return self_t.clone()
    return _or_zeros(self_t, values["result"], F).scatter_add(values["dim"], values["index"], src_t)


def _index_add(tangents, values, F):
    """``self_t.index_add(dim, index, source_t * alpha)``."""
    self_t, source_t = tangents
    if source_t is None:
        return self_t.clone()
    self_t = _or_zeros(self_t, values["result"], F)
    return self_t.index_add(values["dim"], values["index"], source_t, alpha=values["alpha"])


def _index_copy(tangents, values, F):
    """``self_t.index_copy(dim, index, source_t)`` (zeros for a missing tangent)."""
    self_t, source_t = tangents
    result = values["result"]
    if source_t is None:
        key = H.index_select_key(values["dim"], F.array(values["index"]), tuple(result.shape))
        return F.where(F.mask_at(result, key), 0, self_t)
    return _or_zeros(self_t, result, F).index_copy(values["dim"], values["index"], source_t)


def _index_fill_number(tangents, values, F):
    """``self_t.index_fill(dim, index, 0)``: a number's tangent is zero."""
    return F.where(F.mask_at(values["result"], values["indices"]), 0, tangents[0])


def _put(tangents, values, F):
    """``self_t.put(index, source_t, accumulate)`` (zeros for a missing tangent)."""
    self_t, source_t = tangents
    if source_t is None:
        return self_t.clone() if values["accumulate"] else H.put_zeros(F, self_t, values["index"])
    return _or_zeros(self_t, values["result"], F).put(values["index"], source_t, values["accumulate"])


def _masked_scatter(tangents, values, F):
    """``self_t.masked_scatter(mask, source_t)`` (zeros for a missing tangent)."""
    self_t, source_t = tangents
    like = values["result"]
    self_t = self_t if self_t is not None else F.zeros(values["self_sym_sizes"], like)
    source_t = source_t if source_t is not None else F.zeros(values["source_sym_sizes"], like)
    return self_t.masked_scatter(values["mask"], source_t)


def _copy(tangents, values, F):
    """``self.copy_(src)``: the source's tangent, cast to the target's dtype (None: the target's zeros)."""
    src_t = tangents[1]
    return None if src_t is None else _cast_copy(src_t, values["result"])


def _fill_with_tensor(tangents, values, F):
    """``fill_`` with a 0-dim tensor: its tangent everywhere."""
    value_t = tangents[1]
    return None if value_t is None else F.zeros_like(values["result"]) + value_t.to(values["result"].dtype)


def _overwritten(tangents, values, F):
    """The result does not depend on the input: no tangent (an in-place write leaves zeros)."""
    return None


def _bernoulli(tangents, values, F):
    """Draws do not depend on the probabilities: torch gives them a zero tangent."""
    return F.zeros_like(values["result"])


def _refused(tangents, values, F):
    """torch has no forward formula for the kernel, and refuses it with a message of its own."""
    raise NotImplementedError(f"Trying to use forward AD with aten::{values['op']} that does not support it.")


def _fft(primitive: str):
    """The transform on the tangent (each FFT primitive is linear), with the primal's settings."""
    def rule(tangents, values, F):
        from . import fourier  # noqa: PLC0415 - fourier builds on the derivative table, which installs these rules

        dims, normalization = values["dim"], values["normalization"]
        if primitive == "c2c":
            return fourier.fft_c2c(tangents[0], dims, normalization, values["forward"])
        if primitive == "r2c":
            return fourier.fft_r2c(tangents[0], dims, normalization, values["onesided"])
        return fourier.fft_c2r(tangents[0], dims, normalization, values["result"].shape[dims[-1]])
    return rule


def _vdot(tangents, values, F):
    """torch's ``vdot(self_t, other) + vdot(self, other_t)``."""
    self_t, other_t = tangents
    return _terms(None if self_t is None else self_t.vdot(values["other"]),
                  None if other_t is None else values["self"].vdot(other_t))


def _angle(tangents, values, F):
    """torch's ``Re(conj(angle_backward(conj(self_t), self)))``: Im(conj(z) t) / |z|^2, 0 at 0; 0 for a real input."""
    self = values["self"]
    if not H.is_complex(self):
        return F.zeros_like(values["result"])
    return F.real(F.conj(H.angle_backward(F, F.conj(tangents[0]), self)))


def _polar(tangents, values, F):
    """torch's ``abs_t * (cos + i sin)(angle) + angle_t * abs * (-sin + i cos)(angle)``."""
    abs_t, angle_t = tangents
    angle = values["angle"]
    return _terms(None if abs_t is None else abs_t * (F.cos(angle) + F.sin(angle) * 1j),
                  None if angle_t is None else angle_t * values["abs"] * (F.cos(angle) * 1j - F.sin(angle)))


def _block_diag(tangents, values, F):
    """The block_diag of the tangents, zeros for an input without one."""
    blocks = [t if t is not None else F.zeros(size, values["result"])
              for t, size in zip(tangents, values["tensors_args_sizes"])]
    return FUNCTIONS["block_diag"](*blocks)


RULES = {
    "BlockDiagBackward0": _block_diag,
    "FftC2CBackward0": _fft("c2c"),
    "FftR2CBackward0": _fft("r2c"),
    "FftC2RBackward0": _fft("c2r"),
    "VdotBackward0": _vdot,
    "AngleBackward0": _angle,
    "PolarBackward0": _polar,
    "Identity": _identity,
    "ConvolutionBackward0": _convolution,
    "ConvolutionBackwardBackward0": _convolution_gradient,
    "TrilinearBackward0": _trilinear,
    "ComplexBackward0": _complex,
    "IndexPutBackward0": _index_put,
    "IndexPutImplBackward0": _index_put,
    "IndexFillBackward1": _index_fill,
    "MaskedFillBackward1": _masked_fill,
    "ScatterBackward0": _scatter,
    "ScatterAddBackward0": _scatter_add,
    "IndexAddBackward0": _index_add,
    "IndexCopyBackward0": _index_copy,
    "IndexFillBackward0": _index_fill_number,
    "PutBackward0": _put,
    "MaskedScatterBackward0": _masked_scatter,
    "CopyBackwards": _copy,
    "FillBackward3": _fill_with_tensor,
    "FillBackward2": _overwritten,
    "ZeroBackward0": _overwritten,
    "BernoulliBackward0": _bernoulli,
    "NotImplemented": _refused,
}


def install() -> None:
    """Give the linear and structural entries of the table their forward rules."""
    for name, apply in VIEWS.items():
        NODES[name].forward_rule = _view(apply)
    for name, apply in LINEAR.items():
        NODES[name].forward_rule = _linear(apply)
    for name, rule in RULES.items():
        NODES[name].forward_rule = rule
