"""In-place ops on tensors whose elements share memory: eager writes through the memory (zero_() and
fill_() of an expanded tensor) or refuses (an operand overlapping the written tensor); AOTAutograd
functionalizes them, so the written values come out wrong, or the refused op runs.
torch 2.13.0 CPU. Run: python expanded_inplace.py"""
import torch


def zero_expanded(base):
    t = base.expand(4, 3)  # 4 rows, one memory row
    t.zero_()
    return base


def fill_expanded(base):
    t = base.expand(4, 3)
    t.fill_(2.0)
    return base


def add_shifted(a):
    a[1:].add_(a[:-1])  # operand and written tensor partially overlap
    return a


def add_to_expanded(base):
    t = base.expand(2, 3)
    t.add_(1)  # more than one element of the written tensor in one memory location
    return base


def run(f, make):
    try:
        return repr(f(make()).tolist())
    except Exception as e:  # noqa: BLE001
        return f"raises {type(e).__name__}: {str(e).splitlines()[0]}"


for f, make in ((zero_expanded, lambda: torch.tensor([[1.0, 2.0, 3.0]])),
                (fill_expanded, lambda: torch.tensor([[1.0, 2.0, 3.0]])),
                (add_shifted, lambda: torch.arange(6.0)),
                (add_to_expanded, lambda: torch.tensor([[1.0, 2.0, 3.0]]))):
    print(f.__name__)
    print(f"  {'eager:':21} {run(f, make)}")
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        print(f"  {'compiled ' + backend + ':':21} {run(torch.compile(f, backend=backend), make)}")
