"""The connectionist temporal classification loss, ``ctc_loss``, as torch's CPU kernels compute it.

``ctc_loss`` composes as torch's ATen function does: the kernel ``_ctc_loss`` (one op, torch's node
``CtcLossBackward0``: each sequence's negative log-likelihood), then ``zero_infinity``'s ``where``
and the reduction (a mean divides each loss by its target length, at least 1, first).

The kernel runs the forward (alpha) recursion over the blank-extended target ``l'`` (a blank before,
between and after the labels) in log space; its gradient runs the backward (beta) recursion and is
torch's ``exp(lp) - exp(log(sum of alpha beta over the positions of class c) + nll - lp)``, for
log-probabilities ``lp`` (torch's formula assumes they are normalized, as ``log_softmax`` gives).
Steps past a sequence's input length get no gradient. torch cannot differentiate that gradient:
under ``create_graph`` it is recorded as its ``NotImplemented`` node. The recursions run on the host
(a loop over time steps), whatever the device; their results go back to it.
"""

from __future__ import annotations

import numpy as np

from .. import _backend
from .._autograd.formula_math import BACKWARD_KERNELS
from .._autograd.record import recorded
from .._tensor import Tensor
from .derivatives import NODES
from .losses import reduction_code
from .ternary import where


def _log_add(*terms):
    """torch's CTC log-sum-exp of two or three log values (-inf where all are)."""
    top = np.maximum.reduce(terms)
    shift = np.where(np.isneginf(top), 0, top)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.log(sum(np.exp(term - shift) for term in terms)) + shift


def _shifted(row, by: int):
    """``row`` moved ``by`` places later (earlier for a negative ``by``), -inf where nothing moved in."""
    out = np.full_like(row, -np.inf)
    if abs(by) < row.size:
        if by > 0:
            out[by:] = row[:-by]
        else:
            out[:by] = row[-by:]
    return out


def _extended(labels, blank: int):
    """The blank-extended target ``l'``, and where a label may be reached by skipping a blank
    (s odd, l'[s] != l'[s - 2])."""
    extended = np.full(2 * len(labels) + 1, blank, dtype=np.int64)
    extended[1::2] = labels
    skip = np.zeros(extended.shape, dtype=bool)
    skip[3::2] = extended[3::2] != extended[1:-2:2]
    return extended, skip


def _alphas(lp, extended, skip):
    """log alpha over (time, position) of one sequence's log-probabilities ``lp`` (its steps only)."""
    steps, positions = lp.shape[0], extended.size
    minus_inf = lp.dtype.type(-np.inf)
    alpha = np.full((steps, positions), minus_inf, dtype=lp.dtype)
    alpha[0, 0] = lp[0, extended[0]]
    if positions > 1:
        alpha[0, 1] = lp[0, extended[1]]
    for t in range(1, steps):
        previous = alpha[t - 1]
        two_back = np.where(skip, _shifted(previous, 2), minus_inf)
        alpha[t] = _log_add(previous, _shifted(previous, 1), two_back) + lp[t, extended]
    return alpha


def _betas(lp, extended, skip):
    """log beta over (time, position), the alpha recursion run from the end."""
    steps, positions = lp.shape[0], extended.size
    minus_inf = lp.dtype.type(-np.inf)
    beta = np.full((steps, positions), minus_inf, dtype=lp.dtype)
    beta[-1, -1] = lp[-1, extended[-1]]
    if positions > 1:
        beta[-1, -2] = lp[-1, extended[-2]]
    skip_ahead = _shifted(np.where(skip, 0.0, -np.inf), -2) == 0  # position s may jump to s + 2
    for t in range(steps - 2, -1, -1):
        following = beta[t + 1]
        two_ahead = np.where(skip_ahead, _shifted(following, -2), minus_inf)
        beta[t] = _log_add(following, _shifted(following, -1), two_ahead) + lp[t, extended]
    return beta


def _sequences(targets, target_lengths):
    """Each sequence's labels: rows of a padded 2-D ``targets``, or consecutive runs of a 1-D one."""
    if targets.ndim == 2:
        return [targets[b, :n] for b, n in enumerate(target_lengths)]
    starts = np.concatenate(([0], np.cumsum(target_lengths)[:-1])).astype(int)
    return [targets[start:start + n] for start, n in zip(starts, target_lengths)]


def _negative_log_likelihoods(lp, targets, input_lengths, target_lengths, blank: int):
    losses = np.empty(lp.shape[1], dtype=lp.dtype)
    for b, labels in enumerate(_sequences(targets, target_lengths)):
        steps = input_lengths[b]
        if steps == 0:
            losses[b] = np.inf if len(labels) else 0  # an empty target of no steps has probability 1
            continue
        extended, skip = _extended(labels, blank)
        last = _alphas(lp[:steps, b], extended, skip)[-1]
        losses[b] = -_log_add(last[-1], last[-2] if last.size > 1 else lp.dtype.type(-np.inf))
    return losses


def ctc_backward(grad, lp, targets, input_lengths, target_lengths, blank: int, zero_infinity: bool, nll, **_):
    """torch's ctc_loss_backward kernel on (time, batch, class) log-probabilities."""
    device_lp, grad, lp, nll = lp, _backend.to_numpy(grad), _backend.to_numpy(lp), _backend.to_numpy(nll)
    out = np.zeros_like(lp)
    for b, labels in enumerate(_sequences(targets, target_lengths)):
        steps = input_lengths[b]
        if steps == 0 or (zero_infinity and np.isinf(nll[b])):
            continue
        extended, skip = _extended(labels, blank)
        sequence = lp[:steps, b]
        products = _alphas(sequence, extended, skip) + _betas(sequence, extended, skip)
        summed = np.full(sequence.shape, -np.inf, dtype=lp.dtype)
        for s in range(extended.size - 1, -1, -1):  # torch's order: the log-sums round as its do
            c = extended[s]
            summed[:, c] = _log_add(summed[:, c], products[:, s])
        if extended.size > 1:  # torch sets the last step's last label (a label equal to blank included)
            summed[-1, extended[-2]] = products[-1, -2]
        with np.errstate(invalid="ignore", over="ignore"):
            out[:steps, b] = (np.exp(sequence) - np.exp(summed + nll[b] - sequence)) * grad[b]
    return _backend.host_value(out, device_lp)


BACKWARD_KERNELS["ctc_loss_backward"] = ctc_backward


def _lengths(lengths, name: str, batch: int) -> tuple[int, ...]:
    values = tuple(int(n) for n in (lengths.tolist() if isinstance(lengths, Tensor) else lengths))
    if len(values) != batch:
        raise RuntimeError(f"{name} must be of size batch_size")
    return values


def _check(lp, targets, input_lengths, target_lengths, blank: int) -> None:
    if blank < 0 or blank >= lp.shape[2]:
        raise RuntimeError("blank must be in label range")
    where_ = "(while checking arguments for ctc_loss_allocate_outputs)"
    if targets.ndim == 1:
        total = sum(target_lengths)
        if targets.shape[0] != total:
            raise RuntimeError(f"Expected tensor to have size {total} at dimension 0, but got size {targets.shape[0]} "
                               f"for argument #2 'targets' {where_}")
    elif target_lengths and max(target_lengths) > targets.shape[1]:
        raise RuntimeError(f"Expected tensor to have size at least {max(target_lengths)} at dimension 1, but got size "
                           f"{targets.shape[1]} for argument #2 'targets' {where_}")
    for n in input_lengths:
        if n > lp.shape[0]:
            raise RuntimeError(f"Expected input_lengths to have value at most {lp.shape[0]}, but got value {n} "
                               f"{where_}")


def ctc_kernel(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int,
               zero_infinity: bool) -> Tensor:
    """``_ctc_loss`` on (time, batch, class) log-probabilities: CtcLossBackward0."""
    batch = log_probs.shape[1]
    input_lengths = _lengths(input_lengths, "input_lengths", batch)
    target_lengths = _lengths(target_lengths, "target_lengths", batch)
    lp, labels = _backend.to_numpy(log_probs._data), _backend.to_numpy(targets._data).astype(np.int64)
    _check(lp, labels, input_lengths, target_lengths, blank)
    losses = _negative_log_likelihoods(lp, labels, input_lengths, target_lengths, blank)
    return recorded(NODES["CtcLossBackward0"], _backend.host_value(losses, log_probs._data), (log_probs,),
                    {"targets": labels, "input_lengths": input_lengths, "target_lengths": target_lengths,
                     "blank": blank, "zero_infinity": zero_infinity})


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    code = reduction_code(reduction)
    batched = log_probs.dim() == 3
    losses = ctc_kernel(log_probs if batched else log_probs.unsqueeze(1), targets if batched else targets.unsqueeze(0),
                        input_lengths, target_lengths, blank, zero_infinity)
    if zero_infinity:
        losses = where(losses == float("inf"), losses.new_zeros(()), losses)
    if code == 1:
        lengths = _lengths(target_lengths, "target_lengths", losses.shape[0])
        return (losses / losses.new_tensor([max(n, 1) for n in lengths])).mean()
    if code == 2:
        return losses.sum()
    return losses if batched else losses.squeeze(0)
