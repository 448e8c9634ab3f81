"""torch.utils.checkpoint(..., use_reentrant=True) inside a compiled function behaves as use_reentrant=False:
Dynamo turns the call into its checkpoint higher-order op, which sets use_reentrant=False ("because this op
is going to be traced", torch/_higher_order_ops/wrap.py). So what the reentrant variant documents does not
hold: autograd.grad through it is allowed (eager raises), an output the region computes from a detached tensor
does not require grad (eager's reentrant Function marks it as requiring grad), and a create_graph backward through it is differentiable (eager's
is not: reentrant checkpoint does not support double backward). torch 2.13.0 CPU.
Run: python reentrant_checkpoint_as_non_reentrant.py"""
import warnings

import torch
from torch.utils.checkpoint import checkpoint


def grad_through(x):
    y = checkpoint(torch.exp, x, use_reentrant=True)
    return torch.autograd.grad(y.sum(), x)[0]


def output_flag(x):
    return checkpoint(lambda a: a.detach() * 2, x, use_reentrant=True)  # an output that does not require grad


def create_graph_flag(x):
    y = checkpoint(torch.sin, x, use_reentrant=True)
    y.sum().backward(create_graph=True)
    return x.grad


def run(fn, gives_grad=False):
    x = torch.tensor([0.5, 1.5], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = fn(x)
            if gives_grad:
                return f"autograd.grad gives {out.detach()}"
            return f"requires_grad={out.requires_grad}"
        except Exception as e:  # noqa: BLE001
            return f"raises {type(e).__name__}: {str(e).splitlines()[0][:70]}"


for name, fn in (("autograd.grad through the region", grad_through), ("an output computed from a detached tensor",
                 output_flag), ("x.grad after backward(create_graph=True)", create_graph_flag)):
    print(name)
    print(f"  {'eager:':21} {run(fn, fn is grad_through)}")
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        print(f"  {'compiled ' + backend + ':':21} {run(torch.compile(fn, backend=backend), fn is grad_through)}")
