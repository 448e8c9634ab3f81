"""Found by the fuzzer: torch-compile-aot-eager differs from torch at level api
(float32, cpu): step 15 (the runs part here: one side raised or ended where the other went on): torch observed 't0.grad' at line 27: rec('t0.grad', t0.grad) / implementation s8: t7.sum().backward(create_graph=True) raised RuntimeError: a leaf Variable that requires grad is being used in an in-place operation. at l…

Shrunk by hypothesis in 178 runs, from 23 steps to 19.
Replay: python -m conformance fuzz --impl torch-compile-aot-eager --device cpu --seed 2 --level api --max-steps 20 --shrinker hypothesis (the difference is in chunk 0).
To promote it, move the function into a topic module of conformance/catalog/ and give it a title,
the documentation it checks and its features."""

from conformance import docs
from conformance.case import case
from conformance.operators.tolerances import COMPOSITE


@case("A fuzzed program (d4addddea28e)", doc=docs.HISTORY, dtypes=('float32',), tags=("hard",), tolerances={'float32': COMPOSITE.per_dtype()['float32']})
def fuzzed_d4addddea28e(torch, rec):
    t0 = torch.tensor([-1.0], dtype=rec.float_dtype, device=rec.device, requires_grad=True)
    with rec.attempt('s1: t1 = torch.add(t0, t0)'):
        t1 = torch.add(t0, t0)
        rec('t1', t1)
    with rec.attempt('s2: t2 = torch.add(t0, t0)'):
        t2 = torch.add(t0, t0)
        rec('t2', t2)
    t3 = torch.tensor([[-2.0, -1.6, -2.0, -2.0], [-2.0, -2.0, -2.0, -2.0], [-2.0, -2.0, -2.0, -2.0]], dtype=rec.float_dtype, device=rec.device)
    with rec.attempt('s3: t4 = abs: torch.abs(x)'):
        t4 = (lambda x: torch.abs(x))(t3)
        rec('t4', t4)
    with rec.attempt('s4: t5 = torch.add(t0, t0)'):
        t5 = torch.add(t0, t0)
        rec('t5', t5)
    with rec.attempt('s5: t6 = torch.add(t0, t0)'):
        t6 = torch.add(t0, t0)
        rec('t6', t6)
    with rec.attempt('s6: t7 = torch.add(t0, t0)'):
        t7 = torch.add(t0, t0)
        rec('t7', t7)
    with rec.attempt('s7: t7.mul_(1.5)'):
        t7.mul_(1.5)
        rec('t7', t7, version=True)
    with rec.attempt('s8: t7.sum().backward(create_graph=True)'):
        t7.sum().backward(create_graph=True)
        rec('t0.grad', t0.grad)
    with rec.attempt('s9: t0.grad.zero_()'):
        t0.grad.zero_()
        rec('t0.grad', t0.grad)
    t8 = torch.tensor([-0.5], dtype=rec.float_dtype, device=rec.device)
    with rec.attempt('s10: gradients of t1 with respect to t0'):
        grads = torch.autograd.grad(t1, [t0], grad_outputs=torch.tensor([0.5], dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt1/dt0', grads[0])
    with rec.attempt('s11: gradients of t2 with respect to t0'):
        grads = torch.autograd.grad(t2, [t0], grad_outputs=torch.tensor([0.5], dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt2/dt0', grads[0])
    with rec.attempt('s12: gradients of t5 with respect to t0'):
        grads = torch.autograd.grad(t5, [t0], grad_outputs=torch.tensor([0.5], dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt5/dt0', grads[0])
    with rec.attempt('s13: gradients of t6 with respect to t0'):
        grads = torch.autograd.grad(t6, [t0], grad_outputs=torch.tensor([0.5], dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt6/dt0', grads[0])
    with rec.attempt('s14: gradients of t7 with respect to t0'):
        grads = torch.autograd.grad(t7, [t0], grad_outputs=torch.tensor([0.5], dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt7/dt0', grads[0])
    with rec.attempt('s15: t7.sum().backward()'):
        t7.sum().backward()
        rec('t0.grad', t0.grad)
    rec('t0.grad', t0.grad)
