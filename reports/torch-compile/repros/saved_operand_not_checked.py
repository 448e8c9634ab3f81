"""A tensor eager's node saves (and checks the version of), modified in place before backward: eager
raises the version error; a compiled graph saves other tensors (what its backward reads, computed in the
forward) and computes the gradient at the forward's values.
1. binary_cross_entropy saves its target; the target's gradient does not read it;
2. amax saves its input (eager's backward compares it with the result; the compiled forward saves the
   comparison); found by the fuzzer (seed 1), with an optimizer step as the in-place update.
torch 2.13.0 CPU. Run: python saved_operand_not_checked.py"""
import torch


def bce(p, target):
    return torch.nn.functional.binary_cross_entropy(p, target)


def amax(t):
    return t.amax(dim=-1)


def run_bce(fn):
    p = torch.tensor([0.25, 0.5, 0.75])
    target = torch.tensor([0.0, 1.0, 0.5], requires_grad=True)
    loss = fn(p, target)
    with torch.no_grad():
        target.mul_(0.5)
    return torch.autograd.grad(loss, target)


def run_amax(fn):
    t = torch.tensor([-1.0, 1.0, 0.5], requires_grad=True)
    m = fn(t)
    with torch.no_grad():
        t.mul_(2)
    return torch.autograd.grad(m, t)


def run(thunk):
    try:
        return repr(thunk())
    except Exception as e:  # noqa: BLE001
        return f"raises {type(e).__name__}: {str(e).splitlines()[0]}"


for title, f, use in (("binary_cross_entropy(p, target), target.mul_(0.5), d loss / d target", bce, run_bce),
                      ("t.amax(-1), t.mul_(2), d max / d t", amax, run_amax)):
    print(title)
    print(f"  {'eager:':21} {run(lambda: use(f))}")
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        print(f"  {'compiled ' + backend + ':':21} {run(lambda: use(torch.compile(f, backend=backend)))}")
