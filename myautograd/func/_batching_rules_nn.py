"""The batching rules of the neural-network ops: normalization, losses, convolution and pooling, and the
ops around them (``addmm``, ``gather``/``scatter``, ``embedding``, ``pad``...); registered in the same table
as the others (``_batching_rules.RULES``), with the same families of treatment.
"""

from __future__ import annotations

import functools
import operator
import warnings

from .._batched import RAW, aligned, batched, level_size, levels_of, union_of_levels
from .._ops.losses import KL_MEAN_WARNING
from .._ops.registry import FUNCTIONS
from .._tensor import Tensor
from ._batching_rules import INPLACE_ERROR, _broadcast, _shift, _shift_any, elementwise, matmul, rule
from ._per_sample import _map_tensors, _tensors, fallback

# -- normalization -------------------------------------------------------------------------------------------
BATCH_NORM_PARAMETERS = ("input", "running_mean", "running_var", "weight", "bias", "training", "momentum", "eps")


UNBATCHED_RUNNING_STATS = (
    "Batch norm got a batched tensor as input while the running_mean or running_var, which will be updated in place, "
    "were not batched.\nIf you are using a module and do not need eval mode, please set `track_running_stats` to be "
    "False.If you are using a prebuilt module and do not need eval mode, please see the functorch website for "
    "resources on how to patch your module to work with vmap")


@rule("batch_norm")
def batch_norm(op, args, kwargs):
    """Each sample normalized by its own statistics (or the running ones, in eval mode): the reductions
    over the sample's dimensions 0, 2, 3... of the physical tensor; running statistics, batched as the
    input is, updated per sample."""
    bound = dict(zip(BATCH_NORM_PARAMETERS, args))
    bound.update(kwargs)
    x, running_mean, running_var = bound["input"], bound.get("running_mean"), bound.get("running_var")
    weight, bias = bound.get("weight"), bound.get("bias")
    training, momentum, eps = bound.get("training", False), bound.get("momentum", 0.1), bound.get("eps", 1e-5)
    levels = union_of_levels([value for value in bound.values() if isinstance(value, Tensor)])
    rank, count = x.dim(), len(levels)
    if training and any(s is not None and levels_of(s) != levels for s in (running_mean, running_var)):
        if x.requires_grad:  # under a gradient transform, torch's update of the statistics meets this first
            raise RuntimeError("mutating directly with `.data` inside functorch transform is not allowed.")
        raise RuntimeError(UNBATCHED_RUNNING_STATS)
    physical = aligned(x, levels, rank)
    channels = x.shape[1]

    def per_channel(value):
        aligned_value = aligned(value, levels)
        return RAW["reshape"](aligned_value, list(aligned_value.shape[:count]) + [1, channels] + [1] * (rank - 2))

    if training or running_mean is None:
        dims = (count,) + tuple(range(count + 2, count + rank))
        mean = RAW["mean"](physical, dims, keepdim=True)
        var = RAW["var"](physical, dims, correction=0, keepdim=True)
        if training and running_mean is not None:
            _update_running(running_mean, running_var, mean, var, x.numel() // channels, momentum, channels)
    else:
        mean, var = per_channel(running_mean), per_channel(running_var)
    out = RAW["mul"](RAW["sub"](physical, mean), RAW["rsqrt"](RAW["add"](var, eps)))
    if weight is not None:
        out = RAW["mul"](out, per_channel(weight))
    if bias is not None:
        out = RAW["add"](out, per_channel(bias))
    return batched(out, levels)


def _update_running(running_mean, running_var, mean, var, values: int, momentum: float, channels: int) -> None:
    from .._grad_mode import no_grad  # noqa: PLC0415 - grad modes import nothing of vmap

    with no_grad():
        for running, batch in ((running_mean, mean), (running_var, RAW["mul"](var, values / max(values - 1, 1)))):
            target = running.physical
            update = RAW["reshape"](batch, list(target.shape))
            RAW["add_"](RAW["mul_"](target, 1 - momentum), RAW["mul"](update, momentum))


NORM_PARAMETERS = {"layer_norm": ("input", "normalized_shape", "weight", "bias", "eps"),
                   "group_norm": ("input", "num_groups", "weight", "bias", "eps")}


@rule("layer_norm", "group_norm")
def affine_norm(op, args, kwargs):
    """Normalized without the affine part, then scaled and shifted by the (batched or not) weight and bias
    through the elementwise rules. layer_norm normalizes a sample's last dimensions, which are the physical
    tensor's last ones too; group_norm gets the samples flattened into its own batch dimension."""
    bound = dict(zip(NORM_PARAMETERS[op.__name__], args))
    bound.update(kwargs)
    x, weight, bias, eps = bound["input"], bound.get("weight"), bound.get("bias"), bound.get("eps", 1e-5)
    if not levels_of(x):
        out = op(x, bound[NORM_PARAMETERS[op.__name__][1]], None, None, eps)
    elif op.__name__ == "layer_norm":
        out = batched(op(x.physical, bound["normalized_shape"], None, None, eps), x.levels)
    else:
        physical = x.physical
        flat = RAW["reshape"](physical, [-1] + list(physical.shape[len(x.levels) + 1:]))
        out = batched(RAW["reshape"](op(flat, bound["num_groups"], None, None, eps), list(physical.shape)), x.levels)
    affine_shape = [-1] + [1] * (x.dim() - 2) if op.__name__ == "group_norm" else None
    for value, combine in ((weight, "mul"), (bias, "add")):
        if value is not None:
            value = value.reshape(affine_shape) if affine_shape else value
            out = elementwise(RAW[combine], (out, value), {})
    return out


# -- losses, convolutions and pooling --------------------------------------------------------------------------
SIZE_WARNING_LOSSES = ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss")
#: the losses whose mean with ``weight=`` divides by the weights' sum (huber_loss's divides by the count)
WEIGHTED_MEAN_LOSSES = ("mse_loss", "l1_loss")
POINTWISE_LOSSES = ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
                    "binary_cross_entropy_with_logits", "kl_div")


@rule(*POINTWISE_LOSSES)
def pointwise_loss(op, args, kwargs):
    """The elementwise losses of each sample (``reduction="none"``), then the sample's reduction. Input and
    target are broadcast to one shape first, after the warning torch gives a sample of two shapes."""
    reduction = kwargs.pop("reduction", "mean")
    x, target = args[0], args[1] if len(args) > 1 else kwargs.pop("target")
    if op.__name__ == "kl_div" and reduction == "mean":  # the sample's own warning, once
        warnings.warn(KL_MEAN_WARNING, UserWarning, stacklevel=4)
    if any(key in kwargs for key in ("size_average", "reduce")) or len(args) > 3 or \
            (x.shape != target.shape and op.__name__ not in SIZE_WARNING_LOSSES):
        return fallback(op, (x, target, *args[2:]), dict(kwargs, reduction=reduction))
    if x.shape != target.shape:
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({x.size()}). This "
                      "will likely lead to incorrect results due to broadcasting. Please ensure they have the same "
                      "size.", UserWarning, stacklevel=4)
    levels = union_of_levels((x, target))
    rank = max(x.dim(), target.dim())
    pair = [aligned(t, levels, rank, expand=True) for t in (x, target)]
    shape = _broadcast(list(pair[0].shape), list(pair[1].shape))
    pair = [RAW["expand"](t, shape) for t in pair]
    if any(levels_of(t) for t in _tensors(args[2:], kwargs)):  # batched weights: broadcast with the pair
        levels = union_of_levels([x, target, *_tensors(args[2:], kwargs)])
        pair = [aligned(t, levels, rank, expand=True) for t in (x, target)]
        shape = _broadcast(list(pair[0].shape), list(pair[1].shape))
        pair = [RAW["expand"](t, shape) for t in pair]
    weight = kwargs.get("weight")
    rest, kwargs = _map_tensors(lambda t: aligned(t, levels, rank), args[2:], kwargs)
    losses = batched(op(*pair, *rest, **dict(kwargs, reduction="none")), levels)
    if reduction == "none":
        return losses
    if reduction == "batchmean":
        return losses.sum() / args[0].shape[0] if args[0].dim() else losses.sum()
    if reduction == "mean" and weight is not None and op.__name__ in WEIGHTED_MEAN_LOSSES:
        return losses.sum() / weight.sum()
    return losses.sum() if reduction == "sum" else losses.mean()


@rule("cross_entropy", "nll_loss")
def class_loss(op, args, kwargs):
    """Each sample's losses with the samples flattened into the loss's own batch dimension."""
    x, target = args[0], args[1]
    reduction = kwargs.pop("reduction", "mean")
    if len(args) > 2 or any(key in kwargs for key in ("size_average", "reduce")) or \
            (target.is_floating_point() and (kwargs.get("weight") is not None or "ignore_index" in kwargs)):
        return fallback(op, args, dict(kwargs, reduction=reduction))
    if not target.is_floating_point() and not kwargs.get("label_smoothing") and \
            (reduction != "none" or kwargs.get("weight") is not None or "ignore_index" in kwargs):
        log_probabilities = x.log_softmax(1 if x.dim() > 1 else 0) if op.__name__ == "cross_entropy" else x
        return weighted_class_loss(log_probabilities, target, kwargs.get("weight"), kwargs.get("ignore_index", -100),
                                   reduction)
    levels = union_of_levels((x, target))
    inputs, targets = aligned(x, levels, expand=True), aligned(target, levels, expand=True)
    count, single = len(levels), x.dim() == 1
    batch = list(inputs.shape[:count])
    probabilities = target.is_floating_point()
    flat_inputs = RAW["reshape"](inputs, [-1] + list(inputs.shape[count + (0 if single else 1):]))
    flat_targets = RAW["reshape"](targets, [-1] + list(targets.shape[count + (0 if single and not probabilities
                                                                             else 1):]))
    losses = op(flat_inputs, flat_targets, **dict(kwargs, reduction="none"))
    losses = batched(RAW["reshape"](losses, batch + ([] if single else list(x.shape[:1])) +
                                    list(losses.shape[1:])), levels)
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.mean()


def weighted_class_loss(log_probabilities, target, weight, ignore_index: int, reduction: str):
    """nll_loss written with the sample's own ops (each batched by its rule): the log-probability of each
    target class, weighted by its class weight, zero where the target is ``ignore_index``; the mean divides
    by the total weight of the targets kept. Ignored targets pass no gradient back, and a mean over no kept
    target is NaN (its gradient zero), as torch's kernel has it."""
    class_dim = 1 if log_probabilities.dim() > 1 else 0
    kept = target.ne(ignore_index)
    classes = target.masked_fill(kept.logical_not(), 0).unsqueeze(class_dim)
    picked = log_probabilities.gather(class_dim, classes).squeeze(class_dim)
    if weight is None:
        weights = kept.to(picked.dtype)
    else:
        table = weight.reshape([-1] + [1] * (log_probabilities.dim() - class_dim - 1)).expand(log_probabilities.shape)
        weights = table.gather(class_dim, classes).squeeze(class_dim) * kept
    if reduction == "none":
        return picked.neg() * weights
    if reduction == "sum":
        return (picked.neg() * weights).sum()
    total = weights.sum()
    scale = (weights / total).masked_fill(kept.logical_not(), 0.0)
    return (picked.neg() * scale).sum() + (total - total) / total  # the last term: 0, or NaN for no kept target


SPATIAL = {"conv1d": 1, "conv_transpose1d": 1, "conv2d": 2, "conv_transpose2d": 2, "conv3d": 3, "conv_transpose3d": 3,
           **{f"{pool}{n}d": n for n in (1, 2, 3) for pool in ("max_pool", "avg_pool", "adaptive_avg_pool",
                                                               "adaptive_max_pool", "lp_pool")}}


@rule(*SPATIAL)
def spatial(op, args, kwargs):
    """Samples (and each sample's own batch, if it has one) flattened into the op's batch dimension;
    the weights must be the same for every sample."""
    x = args[0]
    if op.__name__ in CONV_PARAMETERS and levels_of(args[1] if len(args) > 1 else kwargs.get("weight")):
        return convolution(op, args, kwargs)
    if any(levels_of(t) for t in _tensors(args[1:], kwargs)) or not levels_of(x):
        return fallback(op, args, kwargs)
    keep = SPATIAL[op.__name__] + 1
    physical = x.physical
    leading = list(physical.shape[:physical.dim() - keep])
    result = op(RAW["reshape"](physical, [-1] + list(physical.shape[-keep:])), *args[1:], **kwargs)

    def restored(value):
        return RAW["reshape"](value, leading + list(value.shape[1:]))

    result = tuple(restored(v) for v in result) if isinstance(result, tuple) else restored(result)
    return batched(result, x.levels)


CONV_PARAMETERS = {
    "conv1d": ("input", "weight", "bias", "stride", "padding", "dilation", "groups"),
    "conv2d": ("input", "weight", "bias", "stride", "padding", "dilation", "groups"),
    "conv_transpose1d": ("input", "weight", "bias", "stride", "padding", "output_padding", "groups", "dilation"),
    "conv_transpose2d": ("input", "weight", "bias", "stride", "padding", "output_padding", "groups", "dilation"),
    "conv3d": ("input", "weight", "bias", "stride", "padding", "dilation", "groups"),
    "conv_transpose3d": ("input", "weight", "bias", "stride", "padding", "output_padding", "groups", "dilation"),
}


def convolution(op, args, kwargs):
    """A batched weight: the samples become groups of one convolution. The input, every sample given its
    own copy, has the samples' channels side by side ``(N, B*C, ...)``, the weights are stacked ``(B*O, ...)``
    and ``groups`` is multiplied by ``B``, so that group ``b*g + j`` is group ``j`` of sample ``b``; the output
    ``(N, B*O, ...)`` is split back. The bias is added afterwards, through the elementwise rules."""
    bound = dict(zip(CONV_PARAMETERS[op.__name__], args))
    bound.update(kwargs)
    x, weight, bias = bound.pop("input"), bound.pop("weight"), bound.pop("bias", None)
    levels = union_of_levels((x, weight))
    spatial_rank = SPATIAL[op.__name__]
    single = x.dim() == spatial_rank + 1  # a sample without its own batch dimension
    count = len(levels)
    inputs = aligned(x, levels, expand=True)
    if single:
        inputs = RAW["unsqueeze"](inputs, count)
    sizes = list(inputs.shape[:count])
    samples = functools.reduce(operator.mul, sizes, 1)
    inputs = RAW["reshape"](inputs, [samples] + list(inputs.shape[count:]))  # (B, N, C, ...)
    inputs = RAW["movedim"](inputs, 0, 1)
    inputs = RAW["reshape"](inputs, [inputs.shape[0], -1] + list(inputs.shape[3:]))  # (N, B*C, ...)
    weights = aligned(weight, levels, expand=True)
    weights = RAW["reshape"](weights, [-1] + list(weights.shape[count + 1:]))  # (B*O or B*C, ...)
    bound["groups"] = bound.get("groups", 1) * samples
    out = op(inputs, weights, None, **bound)
    out = RAW["reshape"](out, [out.shape[0], samples, -1] + list(out.shape[2:]))  # (N, B, O, ...)
    out = RAW["movedim"](out, 1, 0)
    out = RAW["reshape"](out, sizes + list(out.shape[1:]))
    if single:
        out = RAW["squeeze"](out, count)
    out = batched(out, levels)
    if bias is not None:
        out = elementwise(RAW["add"], (out, bias.reshape([-1] + [1] * spatial_rank)), {})
    return out


@rule("addmm")
def addmm(op, args, kwargs):
    x, first, second = args[:3]
    beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
    product = matmul(RAW["matmul"], (first, second), {})
    product = product if alpha == 1 else product * alpha
    if beta == 0:  # the input is ignored, NaNs and all
        return product
    return product + (x if beta == 1 else x * beta)


@rule("masked_fill")
def masked_fill(op, args, kwargs):
    """A batched fill value is one value per sample: ``where(mask, value, x)``."""
    x, mask = args[0], args[1]
    value = args[2] if len(args) > 2 else kwargs["value"]
    if levels_of(value):
        return elementwise(FUNCTIONS["where"], (mask, value.to(x.dtype), x), {})
    return elementwise(op, args, kwargs)


@rule("cumsum_", "cumprod_", "scatter_", "scatter_add_")
def inplace_with_dim(op, args, kwargs):
    """In-place ops along a dimension: the target batched over every level of the others, the dimension shifted."""
    target = args[0]
    levels = union_of_levels(_tensors(args, kwargs))
    if levels_of(target) != levels:
        raise RuntimeError(INPLACE_ERROR)
    dim = args[1] if len(args) > 1 else kwargs.pop("dim")
    rest, kwargs = _map_tensors(lambda t: aligned(t, levels, expand=True), args[2:], kwargs)
    op(target.physical, _shift(dim, target.dim(), levels), *rest, **kwargs)
    return target


@rule("gather", "scatter", "scatter_add")
def indexed_by_tensor(op, args, kwargs):
    """The input, index (and source) given every level, the dimension shifted."""
    x = args[0]
    dim = args[1] if len(args) > 1 else kwargs.pop("dim")
    rest = list(args[2:])
    levels = union_of_levels([x, *rest, *kwargs.values()])
    physical = [aligned(t, levels, expand=True) if isinstance(t, Tensor) else t for t in rest]
    kwargs = {k: aligned(v, levels, expand=True) if isinstance(v, Tensor) else v for k, v in kwargs.items()}
    return batched(op(aligned(x, levels, expand=True), _shift(dim, x.dim(), levels), *physical, **kwargs), levels)


@rule("roll")
def rolled(op, args, kwargs):
    x = args[0]
    shifts = args[1] if len(args) > 1 else kwargs["shifts"]
    dims = args[2] if len(args) > 2 else kwargs.get("dims")
    if dims is None:
        flat = RAW["reshape"](x.physical, [level_size(n) for n in x.levels] + [-1])
        return batched(RAW["reshape"](op(flat, shifts, -1), list(x.physical.shape)), x.levels)
    return batched(op(x.physical, shifts, _shift_any(dims, x.dim(), x.levels)), x.levels)


@rule("trace")
def trace(op, args, kwargs):
    x = args[0]
    return batched(RAW["sum"](RAW["diagonal"](x.physical, 0, -2, -1), -1), x.levels)


@rule("cosine_similarity")
def cosine_similarity(op, args, kwargs):
    tensors = [t for t in args[:2]]
    levels = union_of_levels(tensors)
    rank = max(t.dim() for t in tensors)
    dim = args[2] if len(args) > 2 else kwargs.pop("dim", 1)
    physical = [aligned(t, levels, rank) for t in tensors]
    return batched(op(*physical, _shift(dim, rank, levels), *args[3:], **kwargs), levels)


@rule("unfold")
def unfolded(op, args, kwargs):
    x = args[0]
    return batched(op(x.physical, _shift(args[1], x.dim(), x.levels), *args[2:]), x.levels)


@rule("one_hot", "view_as_real", "view_as_complex")
def on_the_last_dimension(op, args, kwargs):
    x = args[0]
    if op.__name__ == "one_hot" and (args[1] if len(args) > 1 else kwargs.get("num_classes", -1)) <= 0:
        raise RuntimeError("When vmap-ing torch.nn.functional.one_hot, please provide an explicit positive "
                           "num_classes argument.")
    return batched(op(x.physical, *args[1:], **kwargs), x.levels)


@rule("pad")
def padded(op, args, kwargs):
    """The padded last dimensions, with every other one (the batch's included) flattened into one batch
    dimension and a channel dimension of one: the form every mode accepts."""
    x = args[0]
    pads = args[1] if len(args) > 1 else kwargs["pad"]
    mode = args[2] if len(args) > 2 else kwargs.get("mode", "constant")
    if any(levels_of(t) for t in _tensors(args[1:], kwargs)):
        return fallback(op, args, kwargs)
    if mode == "constant":
        return batched(op(x.physical, *args[1:], **kwargs), x.levels)
    physical, kept = x.physical, len(pads) // 2
    leading = list(physical.shape[:physical.dim() - kept])
    flat = RAW["unsqueeze"](RAW["reshape"](physical, [-1] + list(physical.shape[physical.dim() - kept:])), 1)
    out = op(flat, *args[1:], **kwargs)
    return batched(RAW["reshape"](out, leading + list(out.shape[2:])), x.levels)


@rule("embedding")
def embedding(op, args, kwargs):
    """A batched weight: the samples' tables stacked into one, each sample's indices offset to its own rows;
    the rows looked up at ``padding_idx`` pass no gradient back."""
    indices, weight = args[0], args[1] if len(args) > 1 else kwargs["weight"]
    rest = {key: value for key, value in kwargs.items() if key not in ("weight", "padding_idx")}
    padding_idx = args[2] if len(args) > 2 else kwargs.get("padding_idx")
    if levels_of(weight) and (len(args) > 3 or rest):
        return fallback(op, args, kwargs)
    if not levels_of(weight):
        return batched(op(indices.physical, *args[1:], **kwargs), indices.levels)
    levels = union_of_levels((indices, weight))
    count = len(levels)
    tables = aligned(weight, levels, expand=True)
    sizes, rows = list(tables.shape[:count]), tables.shape[count]
    samples = functools.reduce(operator.mul, sizes, 1)
    positions = RAW["reshape"](aligned(indices, levels, expand=True), [samples, -1])
    offsets = RAW["mul"](RAW["unsqueeze"](FUNCTIONS["arange"](samples, device=positions.device), 1), rows)
    out = op(RAW["add"](positions, offsets), RAW["reshape"](tables, [samples * rows, -1]))
    if padding_idx is not None:
        padding = RAW["unsqueeze"](RAW["eq"](positions, padding_idx % rows), -1)
        out = FUNCTIONS["where"](padding, out.detach(), out)
    return batched(RAW["reshape"](out, sizes + list(indices.shape) + [tables.shape[-1]]), levels)


def masked_select(x, mask):
    """An unbatched mask selects as many elements from every sample: the physical tensor indexed by the mask
    after the batch dimensions, both broadcast to the sample's shape first."""
    shape = _broadcast(list(x.shape), list(mask.shape))
    physical = aligned(x, x.levels, len(shape))
    physical = RAW["expand"](physical, list(physical.shape[:len(x.levels)]) + shape)
    return batched(RAW["__getitem__"](physical, (slice(None),) * len(x.levels) + (RAW["expand"](mask, shape),)),
                   x.levels)


DYNAMIC_SHAPE = ("vmap: We do not support batching operators that can output dynamic shape. Attempted to vmap over "
                 "aten::{}. Please file an issue at https://github.com/pytorch/pytorch/issues if you need this feature.")


@rule("nonzero", "argwhere", "masked_select")
def dynamic_shape(op, args, kwargs):
    if op.__name__ == "masked_select" and not levels_of(args[1] if len(args) > 1 else kwargs["mask"]):
        return masked_select(args[0], args[1] if len(args) > 1 else kwargs["mask"])
    if op.__name__ == "masked_select":
        raise RuntimeError("vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We cannot support "
                           "this because for each batch this would return a differently shaped Tensor. Please file an "
                           "issue at https://github.com/pytorch/pytorch/issues if you need this feature.")
    raise RuntimeError(DYNAMIC_SHAPE.format(op.__name__))
