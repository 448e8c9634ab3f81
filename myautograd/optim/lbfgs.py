"""``LBFGS``: limited-memory BFGS over all parameters as one flat vector, with an optional strong
Wolfe line search. ``step(closure)`` needs the closure (it evaluates the loss several times).

Each iteration of a step:

1. the search direction ``d``: the negated gradient at the first iteration ever; afterwards the
   two-loop recursion over the stored pairs (``y`` gradient change, ``s`` step taken; a pair is
   kept only when ``y.s > 1e-10``, at most ``history_size``), started from ``H_diag * -g`` with
   ``H_diag = y.s / y.y`` of the newest pair;
2. the step length ``t``: ``min(1, 1 / |g|_1) * lr`` at the very first iteration, ``lr`` after;
   with ``line_search_fn="strong_wolfe"``, the length a bracketing and cubic-interpolation search
   finds (sufficient decrease ``c1 = 1e-4``, curvature ``c2 = 0.9``, at most the evaluations left);
3. stop when ``g.d > -tolerance_change``, after ``max_iter`` iterations or ``max_eval`` evaluations,
   when ``max |g| <= tolerance_grad``, or when the step or the change of loss is below
   ``tolerance_change``.

The state (of the first parameter, as torch keeps it) holds ``func_evals``, ``n_iter``, ``d``, ``t``,
``old_dirs``, ``old_stps``, ``ro``, ``H_diag``, ``prev_flat_grad``, ``prev_loss`` and ``al``; its
numbers keep the types torch gives them (0-dim tensors where they come from dot products).
"""

from __future__ import annotations

from .._grad_mode import enable_grad
from .._ops.creation import zeros
from .._ops.shape import cat
from .optimizer import Optimizer, as_number, check_lr, no_grad_step

SUFFICIENT_DECREASE = 1e-4  # c1
CURVATURE = 0.9  # c2
SEARCH_LIMIT = 25
MEMORY = ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss")


def cubic_minimum(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through ``(x1, f1)`` and ``(x2, f2)`` with slopes ``g1`` and ``g2``,
    clamped to ``bounds`` (default the interval between the points); its middle when the cubic has none."""
    low, high = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    discriminant = d1**2 - g1 * g2
    if discriminant < 0:
        return (low + high) / 2.0
    d2 = discriminant.sqrt()
    if x1 <= x2:
        position = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        position = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(position, low), high)


class _Point:
    """A trial step length with the loss, gradient and directional derivative found there."""

    def __init__(self, t, loss, grad, slope) -> None:
        self.t, self.loss, self.grad, self.slope = t, loss, grad, slope


def strong_wolfe(evaluate, t, d, loss, grad, slope, tolerance_change=1e-9, limit=SEARCH_LIMIT):
    """Search a step length along ``d`` meeting the strong Wolfe conditions: bracket, then zoom.
    Returns ``(loss, grad, t, evaluations)`` at the best point found."""
    d_norm = d.abs().max()
    start = _Point(0, loss, grad.clone(), slope)
    new_loss, new_grad = evaluate(t, d)
    evaluations, iterations = 1, 0
    current = _Point(t, new_loss, new_grad, new_grad.dot(d))
    previous = start
    bracket = None
    while iterations < limit:
        decreased_enough = current.loss <= loss + SUFFICIENT_DECREASE * current.t * slope
        if not decreased_enough or (iterations > 1 and current.loss >= previous.loss):
            bracket = [previous, _Point(current.t, current.loss, current.grad.clone(), current.slope)]
            break
        if abs(current.slope) <= -CURVATURE * slope:
            return current.loss, current.grad, current.t, evaluations
        if current.slope >= 0:
            bracket = [previous, _Point(current.t, current.loss, current.grad.clone(), current.slope)]
            break
        next_t = cubic_minimum(previous.t, previous.loss, previous.slope, current.t, current.loss, current.slope,
                               bounds=(current.t + 0.01 * (current.t - previous.t), current.t * 10))
        previous = _Point(current.t, current.loss, current.grad.clone(), current.slope)
        new_loss, new_grad = evaluate(next_t, d)
        evaluations += 1
        iterations += 1
        current = _Point(next_t, new_loss, new_grad, new_grad.dot(d))
    if iterations == limit:
        bracket = [_Point(0, loss, grad, None), _Point(current.t, current.loss, current.grad, None)]
    return _zoom(evaluate, bracket, d, d_norm, loss, slope, tolerance_change, limit, iterations, evaluations)


def _zoom(evaluate, bracket, d, d_norm, loss, slope, tolerance_change, limit, iterations, evaluations):
    """Shrink a bracket around an acceptable step length by safeguarded cubic interpolation."""
    low, high = (0, 1) if bracket[0].loss <= bracket[-1].loss else (1, 0)
    stalled = False
    done = False
    while not done and iterations < limit:
        if abs(bracket[1].t - bracket[0].t) * d_norm < tolerance_change:
            break
        t = cubic_minimum(bracket[0].t, bracket[0].loss, bracket[0].slope, bracket[1].t, bracket[1].loss,
                          bracket[1].slope)
        top, bottom = max(bracket[0].t, bracket[1].t), min(bracket[0].t, bracket[1].t)
        margin = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < margin:
            if stalled or t >= top or t <= bottom:
                t = top - margin if abs(t - top) < abs(t - bottom) else bottom + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        new_loss, new_grad = evaluate(t, d)
        evaluations += 1
        iterations += 1
        point = _Point(t, new_loss, new_grad.clone(), new_grad.dot(d))
        if point.loss > loss + SUFFICIENT_DECREASE * t * slope or point.loss >= bracket[low].loss:
            bracket[high] = point
            low, high = (0, 1) if bracket[0].loss <= bracket[1].loss else (1, 0)
        else:
            if abs(point.slope) <= -CURVATURE * slope:
                done = True
            elif point.slope * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = point
    best = bracket[low]
    return best.loss, best.grad, best.t, evaluations


class LBFGS(Optimizer):
    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None) -> None:
        check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval, "tolerance_grad": tolerance_grad,
                    "tolerance_change": tolerance_change, "history_size": history_size,
                    "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        return cat([p.grad.reshape(-1) if p.grad is not None else zeros(p.numel(), dtype=p.dtype, device=p.device)
                    for p in self._params], 0)

    def _move(self, step_size, direction) -> None:
        offset = 0
        for p in self._params:
            p.add_(direction[offset:offset + p.numel()].view_as(p), alpha=step_size)
            offset += p.numel()

    def _evaluate_along(self, closure, start, t, d):
        """The loss and flat gradient at ``start + t d``; the parameters are put back at ``start``."""
        self._move(t, d)
        loss = float(closure())
        grad = self._flat_grad()
        for p, value in zip(self._params, start, strict=True):
            p.copy_(value)
        return loss, grad

    @staticmethod
    def _direction(state, memory, flat_grad, history_size):
        """The two-loop recursion: ``-H g`` with the stored pairs, after storing the newest one."""
        y = flat_grad.sub(memory["prev_flat_grad"])
        s = memory["d"].mul(memory["t"])
        ys = y.dot(s)
        if ys > 1e-10:
            if len(memory["old_dirs"]) == history_size:
                for key in ("old_dirs", "old_stps", "ro"):
                    memory[key].pop(0)
            memory["old_dirs"].append(y)
            memory["old_stps"].append(s)
            memory["ro"].append(1.0 / ys)
            memory["H_diag"] = ys / y.dot(y)
        dirs, steps, ro = memory["old_dirs"], memory["old_stps"], memory["ro"]
        if "al" not in state:
            state["al"] = [None] * history_size
        al = state["al"]
        q = flat_grad.neg()
        for i in reversed(range(len(dirs))):
            al[i] = steps[i].dot(q) * ro[i]
            q.add_(dirs[i], alpha=-al[i])
        r = q * memory["H_diag"]
        for i in range(len(dirs)):
            r.add_(steps[i], alpha=al[i] - dirs[i].dot(r) * ro[i])
        return r

    @no_grad_step
    def step(self, closure):
        group = self.param_groups[0]
        lr = as_number(group["lr"])
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        closure = enable_grad()(closure)
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        first_loss = closure()
        loss = float(first_loss)
        evaluations = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return first_loss
        # what the step carries over, written back into the state at its end, in torch's order
        memory = {key: state.get(key) for key in MEMORY}
        iteration = 0
        while iteration < group["max_iter"]:
            iteration += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                memory.update(d=flat_grad.neg(), old_dirs=[], old_stps=[], ro=[], H_diag=1)
            else:
                memory["d"] = self._direction(state, memory, flat_grad, group["history_size"])
            d = memory["d"]
            if memory["prev_flat_grad"] is None:
                memory["prev_flat_grad"] = flat_grad.clone()
            else:
                memory["prev_flat_grad"].copy_(flat_grad)
            memory["prev_loss"] = prev_loss = loss
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            memory["t"] = t
            slope = flat_grad.dot(d)
            if slope > -tolerance_change:
                break
            spent = 0
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                start = [p.clone() for p in self._params]
                loss, flat_grad, t, spent = strong_wolfe(
                    lambda step, direction: self._evaluate_along(closure, start, step, direction),
                    t, d, loss, flat_grad, slope, limit=group["max_eval"] - evaluations)
                memory["t"] = t
                self._move(t, d)
                converged = flat_grad.abs().max() <= tolerance_grad
            else:
                self._move(t, d)
                converged = False
                if iteration != group["max_iter"]:
                    with enable_grad():
                        loss = closure()
                    loss = float(loss)
                    flat_grad = self._flat_grad()
                    converged = flat_grad.abs().max() <= tolerance_grad
                    spent = 1
            evaluations += spent
            state["func_evals"] += spent
            if iteration == group["max_iter"] or evaluations >= group["max_eval"] or converged:
                break
            if d.mul(t).abs().max() <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break
        state.update(memory)
        return first_loss

__all__ = ["LBFGS"]
