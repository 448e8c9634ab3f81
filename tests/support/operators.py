"""More operators for ``tests/test_ops_against_torch.py``: one entry per node class of the derivative
table that the first list there does not produce (``tests/test_derivative_table.py`` checks that
every node class is produced by some entry).

An entry runs the same function on torch and on myautograd, for inputs drawn uniformly from
``[low, high]`` of the given shapes, and compares values, node names, first derivatives and (with
``second_order``) second derivatives.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Op:
    name: str
    fn: Callable
    shapes: tuple
    low: float = -2.0
    high: float = 2.0
    second_order: bool = True


POINTWISE_OPS = [
    Op("div_floor", lambda t, x, y: t.div(x, y, rounding_mode="floor"), ((3, 4), (3, 4)), 0.5, 3.0),
    Op("remainder", lambda t, x, y: t.remainder(x * 3, y), ((3, 4), (3, 4)), 0.5, 2.0),
    Op("remainder_scalar", lambda t, x: x % 0.7, ((5,),)),
    Op("fmod", lambda t, x, y: t.fmod(x * 3, y), ((3, 4), (3, 4)), 0.5, 2.0),
    Op("fmod_scalar", lambda t, x: x.fmod(0.7), ((5,),)),
    Op("round_decimals", lambda t, x: x.round(decimals=1), ((5,),)),
    Op("clamp_tensors", lambda t, x, lo, hi: t.clamp(x, lo - 1.5, hi), ((3, 4), (3, 4), (3, 4))),
    Op("lerp_tensor", lambda t, x, y, w: t.lerp(x, y, w), ((3, 4), (3, 4), (3, 4)), 0.0, 1.0),
    Op("addcdiv", lambda t, s, x, y: t.addcdiv(s, x, y, value=0.5), ((3,), (3,), (3,)), 0.5, 2.0),
    Op("erfc", lambda t, x: x.erfc(), ((5,),)),
    Op("asinh", lambda t, x: x.asinh(), ((5,),)),
    Op("acosh", lambda t, x: x.acosh(), ((5,),), 1.2, 3.0),
    Op("atanh", lambda t, x: x.atanh(), ((5,),), -0.9, 0.9),
    # pointwise math (myautograd/_ops/pointwise_math.py)
    Op("deg2rad", lambda t, x: x.deg2rad(), ((5,),)),
    Op("rad2deg", lambda t, x: t.rad2deg(x), ((5,),)),
    Op("sinc", lambda t, x: t.sinc(x), ((5,),)),
    Op("logit_eps", lambda t, x: t.logit(x, 0.1), ((6,),), 0.02, 0.98),
    Op("logaddexp", lambda t, x, y: t.logaddexp(x, y), ((3, 4), (4,))),
    Op("logaddexp2", lambda t, x, y: x.logaddexp2(y), ((3, 4), (4,))),
    Op("hypot", lambda t, x, y: t.hypot(x, y), ((3, 4), (3, 4)), 0.5, 2.0),
    Op("copysign", lambda t, x, y: t.copysign(x, y), ((3, 4), (4,))),
    Op("copysign_number", lambda t, x: x.copysign(-1.5), ((5,),)),
    Op("fmax", lambda t, x, y: t.fmax(x, y), ((3, 4), (3, 4))),
    Op("fmin", lambda t, x, y: x.fmin(y), ((3, 4), (3, 4))),
    # special functions (myautograd/_ops/special_math.py)
    Op("lgamma", lambda t, x: t.lgamma(x), ((5,),), 0.5, 4.0),
    Op("digamma", lambda t, x: x.digamma(), ((5,),), 0.5, 4.0),
    Op("polygamma_2", lambda t, x: t.polygamma(2, x), ((5,),), 0.5, 4.0),
    Op("mvlgamma", lambda t, x: t.mvlgamma(x, 3), ((2, 3),), 1.5, 4.0),
    Op("erfinv", lambda t, x: t.erfinv(x), ((5,),), -0.9, 0.9),
    Op("i0", lambda t, x: t.i0(x), ((5,),)),
    Op("special_i0e", lambda t, x: t.special.i0e(x), ((5,),)),
    Op("special_i1", lambda t, x: t.special.i1(x), ((5,),)),
    Op("special_i1e", lambda t, x: t.special.i1e(x), ((5,),)),
    Op("special_entr", lambda t, x: t.special.entr(x), ((5,),), 0.2, 3.0),
    Op("special_ndtr", lambda t, x: t.special.ndtr(x), ((5,),)),
    Op("special_log_ndtr", lambda t, x: t.special.log_ndtr(x), ((5,),), -3.0, 2.0),
    Op("special_erfcx", lambda t, x: t.special.erfcx(x), ((5,),)),
    Op("special_xlog1py", lambda t, x, y: t.special.xlog1py(x, y), ((3, 4), (4,)), 0.2, 2.0),
    Op("special_xlog1py_number", lambda t, x: t.special.xlog1py(x, 1.5), ((5,),)),
    Op("special_xlog1py_number_self", lambda t, y: t.special.xlog1py(1.5, y), ((5,),), 0.2, 2.0),
    Op("frexp_mantissa", lambda t, x: t.frexp(x).mantissa, ((5,),), 0.6, 0.9),
    Op("ldexp", lambda t, x, y: t.ldexp(x, y), ((3, 4), (4,))),
    Op("nextafter", lambda t, x, y: t.nextafter(x, y), ((3, 4), (3, 4))),
    Op("igamma", lambda t, x: t.igamma(t.ones_like(x) * 2.5, x), ((5,),), 0.5, 4.0),
    Op("igammac", lambda t, x: (t.ones_like(x) * 1.5).igammac(x), ((5,),), 0.5, 4.0),
]

# Complex numbers from real inputs (torch.complex), so that the real-input harness runs them; the fft
# transforms are linear (no second derivative).
COMPLEX_OPS = [
    Op("angle", lambda t, x: x.angle(), ((5,),), second_order=False),
    Op("angle_complex", lambda t, x, y: t.complex(x, y).angle(), ((5,), (5,))),
    Op("sgn_complex", lambda t, x, y: t.view_as_real(t.complex(x, y).sgn()), ((5,), (5,))),
    Op("polar", lambda t, r, a: t.view_as_real(t.polar(r, a)), ((4,), (4,)), 0.5, 2.0),
    Op("vdot", lambda t, x, y, u, v: t.view_as_real(t.vdot(t.complex(x, y), t.complex(u, v))), ((4,),) * 4),
    Op("fft_real", lambda t, x: t.view_as_real(t.fft.fft(x, norm="ortho")), ((6,),), second_order=False),
    Op("fft_complex", lambda t, x, y: t.view_as_real(t.fft.fft2(t.complex(x, y))), ((3, 4), (3, 4)), second_order=False),
    Op("irfft", lambda t, x, y: t.fft.irfft(t.complex(x, y), n=7), ((4,), (4,)), second_order=False),
    Op("conj_physical_", lambda t, x, y: t.view_as_real(t.complex(x, y).conj_physical_()), ((4,), (4,))),
]

ACTIVATION_OPS = [
    Op("leaky_relu_", lambda t, x: t.nn.functional.leaky_relu_(x * 1, 0.2), ((5,),)),
    Op("elu_", lambda t, x: t.nn.functional.elu_(x * 1, 0.5), ((5,),)),
    Op("selu", lambda t, x: t.nn.functional.selu(x), ((5,),)),
    Op("celu", lambda t, x: t.nn.functional.celu(x, 0.5), ((5,),)),
    Op("mish", lambda t, x: t.nn.functional.mish(x), ((5,),), -4.0, 4.0),
    Op("logsigmoid", lambda t, x: t.nn.functional.logsigmoid(x), ((5,),), -4.0, 4.0),
    Op("hardswish", lambda t, x: t.nn.functional.hardswish(x), ((6,),), -4.0, 4.0),
    Op("hardshrink", lambda t, x: t.nn.functional.hardshrink(x, 0.5), ((6,),), -2.0, 2.0),
    Op("softshrink", lambda t, x: t.nn.functional.softshrink(x, 0.5), ((6,),), -2.0, 2.0),
    Op("threshold", lambda t, x: t.nn.functional.threshold(x, 0.1, 2.0), ((6,),)),
    Op("threshold_", lambda t, x: t.nn.functional.threshold(x * 1, 0.1, -3.0, inplace=True), ((6,),)),
    Op("glu", lambda t, x: t.nn.functional.glu(x, 1), ((2, 4, 3),), -3.0, 3.0),
    Op("prelu_per_channel", lambda t, x, w: t.nn.functional.prelu(x, w), ((2, 3, 4), (3,))),
    Op("prelu_one", lambda t, x, w: t.nn.functional.prelu(x, w), ((5,), (1,))),
    # torch has no second derivative of hardsigmoid
    Op("hardsigmoid", lambda t, x: t.nn.functional.hardsigmoid(x), ((6,),), -4.0, 4.0, second_order=False),
]

REDUCTION_OPS = [
    Op("prod_dim", lambda t, x: x.prod(1), ((3, 4),), 0.5, 1.5),
    Op("cumprod", lambda t, x: x.cumprod(1), ((3, 4),), 0.5, 1.5),
    # torch has no second derivative of cdist
    Op("cdist", lambda t, a, b: t.cdist(a, b), ((3, 2), (4, 2)), second_order=False),
    Op("cdist_p1", lambda t, a, b: t.cdist(a, b, p=1.0), ((2, 3, 2), (4, 2)), second_order=False),
    Op("sort", lambda t, x: x.sort(1).values, ((3, 4),)),
    Op("sort_descending", lambda t, x: t.sort(x, 0, descending=True).values, ((3, 4),)),
    Op("sort_stable", lambda t, x: t.sort(x, stable=True, dim=0).values, ((3, 4),)),  # SortBackward1
    Op("topk", lambda t, x: t.topk(x, 2, 0, largest=False).values, ((3, 4),)),
    Op("kthvalue", lambda t, x: x.kthvalue(2, 1, keepdim=True).values, ((3, 4),)),
    Op("median", lambda t, x: x.median(), ((3, 4),)),
    Op("median_dim", lambda t, x: t.median(x, 0).values, ((3, 4),)),
    Op("nanmedian", lambda t, x: t.nanmedian(x), ((3, 4),)),
    Op("nanmedian_dim", lambda t, x: x.nanmedian(-1).values, ((3, 4),)),
    Op("mode", lambda t, x: t.mode(x, 0).values, ((3, 4),)),
    Op("cummax", lambda t, x: t.cummax(x, 1).values, ((3, 4),)),
    Op("cummin", lambda t, x: x.cummin(0).values, ((3, 4),)),
    Op("logcumsumexp", lambda t, x: t.logcumsumexp(x, 1), ((3, 4),)),
    Op("nansum", lambda t, x: t.nansum(x, 1), ((3, 4),)),
    Op("aminmax", lambda t, x: (lambda r: r.min * 2 + r.max)(t.aminmax(x, dim=0)), ((3, 4),)),
    # a 0-dim input: dim 0 is the tensor itself
    Op("max_dim_0d", lambda t, x: x.max(0)[0], ((),)),
    Op("amax_0d", lambda t, x: x.amax(0), ((),)),
    Op("amin_0d_keepdim", lambda t, x: x.amin(-1, keepdim=True), ((),)),
    Op("cumprod_zeros", lambda t, x: (x * t.tensor([[1.0, 0.0, 1.0, 0.0]], dtype=x.dtype, device=x.device)).cumprod(1),
       ((3, 4),), 0.5, 1.5),
]

def _unpacked_primal(t, x):
    """The primal ``forward_ad.unpack_dual`` gives back: a view whose node torch names ``Identity``."""
    fw = t.autograd.forward_ad
    with fw.dual_level():
        return fw.unpack_dual(fw.make_dual(x, t.ones_like(x))).primal


SHAPE_OPS = [
    Op("unpack_dual_primal", _unpacked_primal, ((3,),)),
    Op("reshape_alias", lambda t, x: x[:, ::2].reshape(6), ((3, 4),)),
    Op("roll", lambda t, x: x.roll((1, -1), (0, 1)), ((3, 4),)),
    Op("roll_flat", lambda t, x: x.roll(2), ((3, 4),)),
    Op("diag_embed", lambda t, x: t.diag(x, 1), ((3,),)),
    Op("diag_copy", lambda t, x: t.diag(x, -1), ((3, 4),)),
    Op("trace", lambda t, x: x.trace(), ((3, 4),)),
    Op("take", lambda t, x: t.take(x, t.tensor([[0, 5], [5, 11]], device=x.device)), ((3, 4),)),
    Op("einsum", lambda t, x, y: t.einsum("bij,bjk->bik", x, y), ((2, 3, 4), (2, 4, 2))),
    Op("einsum_repeated_subscript", lambda t, x, y: t.einsum("iij,jk->ik", x, y), ((3, 3, 2), (2, 4))),
    Op("tensordot", lambda t, x, y: t.tensordot(x, y, dims=([1, 0], [0, 1])), ((3, 2, 2), (2, 3))),
    Op("matmul_fold_transposed", lambda t, x, y: x @ y, ((3, 4), (2, 4, 2))),
    Op("as_strided", lambda t, x: x.as_strided((2, 2), (1, 2), 1), ((3, 4),)),
    # a view's gradient under create_graph: slice_backward, select_backward, diagonal_backward, _index_put_impl_
    Op("slice_grad", lambda t, x, g: _gradient(t, x[::2] * x[::2], x, g), ((4, 3), (2, 3))),
    Op("select_grad", lambda t, x, g: _gradient(t, x[:, 1] * x[:, 1], x, g), ((4, 3), (4,))),
    Op("diagonal_grad", lambda t, x, g: _gradient(t, x.diagonal() * x.diagonal(), x, g), ((3, 3), (3,))),
    Op("index_grad", lambda t, x, g: _gradient(t, x[[0, 2, 2]] * x[[0, 2, 2]], x, g), ((4, 3), (3, 3))),
    Op("tensor_split_indices", lambda t, x: t.tensor_split(x, t.tensor([1, 3]), 1)[1], ((3, 4),)),
    Op("tensor_split_sections", lambda t, x: t.tensor_split(x, 3, 0)[0], ((4, 2),)),
    Op("transpose_0d", lambda t, x: x.transpose(0, -1), ((),)),
    Op("unfold_0d", lambda t, x: x.unfold(0, 1, 1), ((),)),
    Op("sum_to_size_0d", lambda t, x: x.sum_to_size(()), ((),)),
    Op("rot90", lambda t, x: t.rot90(x, 3, (1, -1)), ((2, 3, 4),)),
    Op("unsafe_split", lambda t, x: t.unsafe_split(x, 2, 1)[1] * x.unsafe_chunk(3, 0)[0].sum(), ((3, 5),)),
    # the *_copy functions: each view's values in new memory, under the view node's name with _copy
    Op("alias_copy", lambda t, x: t.alias_copy(x), ((3, 4),)),
    Op("expand_copy", lambda t, x: t.expand_copy(x, (2, 3, 4)), ((3, 1),)),
    Op("permute_copy", lambda t, x: t.permute_copy(x, (2, 0, 1)), ((2, 3, 4),)),
    Op("squeeze_copy", lambda t, x: t.squeeze_copy(x) * t.squeeze_copy(x, 0).sum() * t.squeeze_copy(x, (0, 2)).sum(),
       ((1, 3, 1),)),
    Op("t_copy", lambda t, x: t.t_copy(x), ((3, 4),)),
    Op("transpose_copy", lambda t, x: t.transpose_copy(x, 0, -1), ((2, 3, 4),)),
    Op("unbind_copy", lambda t, x: t.unbind_copy(x, 1)[2], ((3, 4),)),
    Op("unfold_copy", lambda t, x: t.unfold_copy(x, 1, 2, 1), ((3, 4),)),
    Op("unsqueeze_copy", lambda t, x: t.unsqueeze_copy(x, 1), ((3, 4),)),
    Op("view_copy", lambda t, x: t.view_copy(x, (4, 3)), ((3, 4),)),
    Op("narrow_copy", lambda t, x: t.narrow_copy(x, 1, 1, 2), ((3, 4),)),
    Op("split_with_sizes_copy", lambda t, x: t.split_with_sizes_copy(x, (1, 3), 1)[1], ((3, 4),)),
]

INDEXING_OPS = [
    # gather and scatter: an index smaller than the input apart from dim; a 0-dim tensor as one element
    Op("gather_smaller_index", lambda t, x: x.gather(0, t.tensor([[0, 3, 1], [2, 2, 0]], device=x.device)), ((4, 5),)),
    Op("gather_0d", lambda t, x: x.gather(0, t.tensor([0, 0], device=x.device)), ((),)),
    Op("scatter_smaller_index", lambda t, x, y: x.scatter(0, t.tensor([[0, 3, 1]], device=x.device), y),
       ((4, 5), (1, 3))),
    Op("scatter_add_0d", lambda t, x, y: x.scatter_add(0, t.tensor(0, device=x.device), y), ((), ())),
    Op("index_select_0d", lambda t, x: x.index_select(0, t.tensor([0], device=x.device)), ((),)),
    Op("take_along_dim_broadcast", lambda t, x: t.take_along_dim(x, t.tensor([[0], [-1]], device=x.device), 1),
       ((1, 5),)),
    Op("take_along_dim_flat", lambda t, x: t.take_along_dim(x, t.tensor([3, 7], device=x.device)), ((2, 5),)),
    Op("scatter", lambda t, x, y: x.scatter(1, t.tensor([[0, 3], [2, 1]], device=x.device), y), ((2, 4), (2, 2))),
    Op("scatter_value", lambda t, x: x.scatter(1, t.tensor([[0], [2]], device=x.device), 2.5), ((2, 4),)),
    Op("scatter_add", lambda t, x, y: x.scatter_add(1, t.tensor([[0, 0, 3], [1, 2, 1]], device=x.device), y),
       ((2, 4), (2, 3))),
    Op("masked_fill_tensor", lambda t, x, v: x.masked_fill(x > 0, v.sum()), ((3, 4), (2,))),
    Op("masked_select", lambda t, x: x.masked_select(t.tensor([True, False, True, True], device=x.device)),
       ((3, 4),)),
    # writes at indices, out of place: repeated indices add (index_add, put accumulating)
    Op("index_add", lambda t, x, y: x.index_add(1, t.tensor([0, 2, 0], device=x.device), y, alpha=2), ((2, 4), (2, 3))),
    Op("index_copy", lambda t, x, y: t.index_copy(x, 0, t.tensor([2, 0], device=x.device), y), ((3, 4), (2, 4))),
    Op("index_fill", lambda t, x: x.index_fill(1, t.tensor([3, 1, 3], device=x.device), -1.5), ((2, 4),)),
    Op("index_fill_tensor", lambda t, x, v: t.index_fill(x, 0, t.tensor([1, 1], device=x.device), v.sum()),
       ((3, 4), (2,))),
    Op("put", lambda t, x, y: x.put(t.tensor([5, -1, 5], device=x.device), y, accumulate=True), ((2, 4), (3,))),
    Op("masked_scatter", lambda t, x, y: x.masked_scatter(t.tensor([True, False, True, True], device=x.device), y),
       ((3, 4), (10,))),
]

LOSS_OPS = [
    Op("mse_broadcast", lambda t, x, y: t.nn.functional.mse_loss(x, y.sum(1)), ((3,), (3, 2))),
    Op("smooth_l1", lambda t, x, y: t.nn.functional.smooth_l1_loss(x, y, beta=0.5), ((3, 4), (3, 4))),
    Op("huber", lambda t, x, y: t.nn.functional.huber_loss(x, y, delta=0.5, reduction="sum"), ((3, 4), (3, 4))),
    Op("nll_2d", lambda t, x: t.nn.functional.nll_loss(x, t.tensor([[0, 2], [1, 1]], device=x.device)), ((2, 3, 2),)),
    Op("bce_weighted", lambda t, x, y, w: t.nn.functional.binary_cross_entropy(
        x.sigmoid(), y.sigmoid(), weight=w.detach().abs(), reduction="sum"), ((4,), (4,), (4,))),
    Op("bce_logits_pos_weight", lambda t, x, y, w: t.nn.functional.binary_cross_entropy_with_logits(
        x, y.sigmoid(), pos_weight=w.detach().abs() + 0.5), ((3, 4), (3, 4), (4,))),
    Op("kl_div", lambda t, x, y: t.nn.functional.kl_div(x, y.sigmoid(), reduction="batchmean"), ((3, 4), (3, 4)),
       -2.0, -0.1),
    Op("xlogy_scalar", lambda t, x: t.xlogy(x, 2.5), ((4,),)),
    Op("xlogy_number_self", lambda t, y: t.xlogy(2.5, y), ((4,),), 0.5, 2.0),
    Op("cross_entropy_probabilities", lambda t, x, y: t.nn.functional.cross_entropy(x, y.softmax(1)), ((3, 4), (3, 4))),
    Op("margin_ranking", lambda t, x, y: t.nn.functional.margin_ranking_loss(
        x, y, t.tensor([1.0, -1.0, 1.0, -1.0], device=x.device), margin=0.3, reduction="none"), ((4,), (4,))),
    Op("cosine_embedding", lambda t, x, y: t.nn.functional.cosine_embedding_loss(
        x, y, t.tensor([1.0, -1.0, -1.0], device=x.device), margin=-0.5, reduction="none"), ((3, 4), (3, 4))),
    Op("soft_margin", lambda t, x, y: t.nn.functional.soft_margin_loss(x, y.detach().sign()), ((3, 4), (3, 4))),
    Op("multi_margin", lambda t, x: t.nn.functional.multi_margin_loss(
        x, t.tensor([0, 2, 1], device=x.device), p=2, margin=0.8,
        weight=t.tensor([0.5, 1.0, 2.0, 1.5], dtype=x.dtype, device=x.device)),
       ((3, 4),), second_order=False),  # torch cannot differentiate its gradient (NotImplemented)
    Op("multilabel_margin", lambda t, x: t.nn.functional.multilabel_margin_loss(
        x, t.tensor([[0, 3, -1, 1], [2, 2, 1, 0], [3, -1, 0, 0]], device=x.device), reduction="none"),
       ((3, 4),), second_order=False),
    Op("ctc", lambda t, x: t.nn.functional.ctc_loss(
        x.log_softmax(2), t.tensor([[1, 2, 2], [3, 1, 0]], device=x.device), [5, 4], [3, 2], reduction="sum"),
       ((5, 2, 4),), second_order=False),  # torch cannot differentiate its gradient (NotImplemented)
    Op("var_mean", lambda t, x: t.var_mean(x, 1)[0] * 2 + t.var_mean(x, 1)[1], ((3, 4),)),
    Op("std_mean", lambda t, x: t.std_mean(x)[0] + t.std_mean(x)[1], ((3, 4),)),
]

def _gradient(t, out, x, g):
    """The gradient of ``out`` in ``x`` for the incoming gradient ``g``, taken with create_graph."""
    return t.autograd.grad(out, x, g, create_graph=True)[0]


def _running(t, x, values):
    return t.tensor(values, dtype=x.dtype, device=x.device)


NN_OPS = [
    Op("conv1d", lambda t, x, w, b: t.nn.functional.conv1d(x, w, b, stride=2, padding=1), ((2, 2, 6), (3, 2, 3), (3,))),
    Op("conv2d_groups", lambda t, x, w: t.nn.functional.conv2d(x, w, groups=2, dilation=(1, 2)), ((1, 4, 4, 5),
                                                                                                   (2, 2, 2, 2))),
    Op("conv_transpose2d", lambda t, x, w, b: t.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1,
                                                                                output_padding=1),
       ((1, 2, 3, 3), (2, 3, 3, 3), (3,))),
    # a convolution's gradient (ConvolutionBackwardBackward0), whose derivative in the incoming gradient is the
    # convolution itself, composed under create_graph of im2col (a weight gradient's) or col2im (a transposed
    # convolution's input gradient's)
    Op("conv2d_weight_grad", lambda t, x, w, g: _gradient(t, t.nn.functional.conv2d(x, w, padding=1), w, g),
       ((1, 2, 4, 4), (3, 2, 3, 3), (1, 3, 4, 4))),
    Op("conv_transpose2d_input_grad", lambda t, x, w, g: _gradient(t, t.nn.functional.conv_transpose2d(x, w, stride=2),
                                                                   x, g), ((1, 2, 3, 3), (2, 3, 2, 2), (1, 3, 6, 6))),
    Op("max_pool2d", lambda t, x: t.nn.functional.max_pool2d(x, 2, stride=1, padding=1), ((1, 2, 4, 4),)),
    Op("avg_pool2d", lambda t, x: t.nn.functional.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
       ((1, 2, 5, 5),)),
    Op("adaptive_avg_pool2d", lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, (2, 3)), ((2, 1, 5, 4),)),
    Op("max_pool1d", lambda t, x: t.nn.functional.max_pool1d(x, 3, stride=2, padding=1), ((2, 2, 7),)),
    Op("max_pool3d", lambda t, x: t.nn.functional.max_pool3d(x, 2, stride=(1, 2, 1), dilation=(1, 1, 2)),
       ((1, 2, 3, 4, 5),)),
    Op("avg_pool1d", lambda t, x: t.nn.functional.avg_pool1d(x, 3, stride=2, padding=1, count_include_pad=False),
       ((2, 7),)),
    Op("avg_pool3d", lambda t, x: t.nn.functional.avg_pool3d(x, (2, 3, 2), stride=2, padding=1, ceil_mode=True),
       ((1, 2, 4, 5, 3),)),
    Op("adaptive_avg_pool3d", lambda t, x: t.nn.functional.adaptive_avg_pool3d(x, (2, None, 3)), ((2, 1, 5, 3, 4),)),
    Op("adaptive_max_pool1d", lambda t, x: t.nn.functional.adaptive_max_pool1d(x, 3), ((2, 2, 7),)),
    Op("adaptive_max_pool2d", lambda t, x: t.nn.functional.adaptive_max_pool2d(x, (2, 3)), ((2, 1, 5, 4),)),
    Op("adaptive_max_pool3d", lambda t, x: t.nn.functional.adaptive_max_pool3d(x, (2, 2, 3)), ((1, 5, 3, 4),)),
    Op("fractional_max_pool2d", lambda t, x: t.nn.functional.fractional_max_pool2d(
        x, 2, output_size=(3, 2), _random_samples=t.tensor([[[0.3, 0.8], [0.6, 0.1]]], dtype=x.dtype)), ((1, 2, 5, 4),)),
    Op("fractional_max_pool3d", lambda t, x: t.nn.functional.fractional_max_pool3d(
        x, (2, 1, 2), output_size=(2, 3, 2), _random_samples=t.tensor([[[0.3, 0.8, 0.5]]], dtype=x.dtype)),
       ((1, 4, 5, 4),)),
    Op("max_unpool2d", lambda t, x: t.nn.functional.max_unpool2d(*t.nn.functional.max_pool2d(x, 2, return_indices=True),
                                                                 2, output_size=(5, 5)), ((1, 2, 5, 4),)),
    Op("max_unpool3d", lambda t, x: t.nn.functional.max_unpool3d(*t.nn.functional.max_pool3d(x, 2, return_indices=True),
                                                                 2), ((1, 4, 4, 2),)),
    Op("lp_pool2d", lambda t, x: t.nn.functional.lp_pool2d(x, 3.0, 2, stride=1), ((1, 2, 3, 4),), 0.2, 2.0),
    Op("pad_constant", lambda t, x: t.nn.functional.pad(x, (1, -1, 2, 0), value=0.5), ((2, 3),)),
    Op("pad_reflect_1d", lambda t, x: t.nn.functional.pad(x, (2, 1), mode="reflect"), ((2, 4),)),
    Op("pad_reflect_2d", lambda t, x: t.nn.functional.pad(x, (1, 1, 2, 0), mode="reflect"), ((1, 3, 3),)),
    Op("pad_reflect_3d", lambda t, x: t.nn.functional.pad(x, (1, 0, 0, 1, 1, 1), mode="reflect"), ((1, 2, 2, 3),)),
    Op("pad_replicate_1d", lambda t, x: t.nn.functional.pad(x, (2, 1), mode="replicate"), ((1, 2, 3),)),
    Op("pad_replicate_2d", lambda t, x: t.nn.functional.pad(x, (1, 2, 1, 0), mode="replicate"), ((1, 2, 2),)),
    Op("pad_replicate_3d", lambda t, x: t.nn.functional.pad(x, (1, 1, 0, 1, 2, 0), mode="replicate"),
       ((1, 1, 2, 2, 2),)),
    Op("pad_circular", lambda t, x: t.nn.functional.pad(x, (1, 2), mode="circular"), ((1, 2, 3),)),
    Op("embedding", lambda t, w: t.nn.functional.embedding(t.tensor([[0, 2], [2, 3]], device=w.device), w,
                                                            padding_idx=3), ((4, 3),)),
    Op("layer_norm", lambda t, x, w, b: t.nn.functional.layer_norm(x, (4,), w, b), ((3, 4), (4,), (4,))),
    Op("batch_norm_training", lambda t, x, w, b: t.nn.functional.batch_norm(x, None, None, w, b, training=True),
       ((4, 3, 2), (3,), (3,))),
    Op("batch_norm_eval", lambda t, x: t.nn.functional.batch_norm(x, _running(t, x, [0.1, -0.2]),
                                                                   _running(t, x, [0.5, 2.0])), ((3, 2),)),
    Op("group_norm", lambda t, x, w, b: t.nn.functional.group_norm(x, 2, w, b), ((2, 4, 3), (4,), (4,))),
    Op("bilinear", lambda t, x, y, w, b: t.nn.functional.bilinear(x, y, w, b), ((2, 3), (2, 2), (4, 3, 2), (4,))),
    Op("cosine_similarity", lambda t, x, y: t.nn.functional.cosine_similarity(x, y), ((3, 4), (1, 4))),
    Op("normalize", lambda t, x: t.nn.functional.normalize(x, dim=0), ((3, 4),)),
    # scaled_dot_product_attention: 4-D inputs are torch's CPU flash kernel (which has no second derivative in
    # torch), 3-D ones its math fallback
    Op("sdpa_flash", lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(q, k, v),
       ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)), second_order=False),
    Op("sdpa_flash_causal", lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True),
       ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)), second_order=False),
    Op("sdpa_flash_mask_and_causal", lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=t.tensor([[True, False, True, True, True]] * 3, device=q.device), is_causal=True),
       ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)), second_order=False),
    Op("sdpa_flash_grouped_query", lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(
        q, k, v, enable_gqa=True), ((1, 4, 3, 2), (1, 2, 3, 2), (1, 2, 3, 2)), second_order=False),
    Op("sdpa_math", lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(q, k, v, scale=0.3),
       ((2, 3, 4), (2, 5, 4), (2, 5, 4))),
]

# products and linear algebra implemented for torch's op_db (tests/test_opdb_linalg.py)
LINALG_OPS = [
    Op("addmv", lambda t, b, m, v: t.addmv(b, m, v, beta=0.5, alpha=2.0), ((1,), (3, 4), (4,))),
    Op("addbmm", lambda t, b, x, y: t.addbmm(b, x, y, beta=0.5, alpha=2.0), ((3, 1), (2, 3, 4), (2, 4, 2))),
    Op("addr", lambda t, b, x, y: t.addr(b, x, y), ((3, 2), (3,), (2,))),
    Op("linalg_cross", lambda t, x, y: t.linalg.cross(x, y, dim=0), ((3, 2), (3, 1))),
    Op("block_diag", lambda t, x, y, z: t.block_diag(x, y, z), ((), (3,), (2, 2))),
    Op("diag_embed", lambda t, x: t.diag_embed(x, offset=-1, dim1=0, dim2=2), ((2, 3),)),
    # invertible matrices: a random one plus (or minus) 3 times the identity
    Op("linalg_inv", lambda t, a: t.linalg.inv(a + 3 * _eye3(t, a)), ((2, 3, 3),)),
    Op("linalg_solve", lambda t, a, b: t.linalg.solve(a + 3 * _eye3(t, a), b), ((2, 3, 3), (3,))),
    Op("linalg_solve_matrix", lambda t, a, b: t.linalg.solve(a + 3 * _eye3(t, a), b), ((3, 3), (2, 3, 2))),
    Op("linalg_det", lambda t, a: t.linalg.det(a + 3 * _eye3(t, a)), ((2, 3, 3),)),
    Op("linalg_slogdet", lambda t, a: t.linalg.slogdet(a - 3 * _eye3(t, a)).logabsdet, ((3, 3),)),
]


def _eye3(t, like):
    return t.eye(3, dtype=like.dtype, device=like.device)
