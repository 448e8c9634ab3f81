"""Found by the fuzzer: torch-compile-aot-eager differs from torch at level api
(float32, cpu): step 1: s1: t0.mul_(1.5): exception: torch RuntimeError: a leaf Variable that requires grad is being used in an in-place operation. / implementation torch._dynamo.exc.TorchRuntimeError: RuntimeError when making fake tensor call ⏎   Explanation: Dynamo failed to run FX node with fake tensors: call_m…

Replay: python -m conformance fuzz --impl torch-compile-aot-eager --device cpu --seed 3 --level api --max-steps 20 (the difference is in chunk 0).
To promote it, move the function into a topic module of conformance/catalog/ and give it a title,
the documentation it checks and its features."""

from conformance import docs
from conformance.case import case
from conformance.operators.tolerances import COMPOSITE


@case("A fuzzed program (69d43da58a0c)", doc=docs.HISTORY, dtypes=('float32',), tags=("hard",), tolerances={'float32': COMPOSITE.per_dtype()['float32']})
def fuzzed_69d43da58a0c(torch, rec):
    t0 = torch.tensor([[-1.0, -1.0, -1.0]], dtype=rec.float_dtype, device=rec.device, requires_grad=True)
    with rec.attempt('s1: t0.mul_(1.5)'):
        t0.mul_(1.5)
        rec('t0', t0, version=True)
    with rec.attempt('s2: t0.sum().backward(create_graph=True, inputs=[t0])'):
        t0.sum().backward(create_graph=True, inputs=[t0])
        rec('t0.grad', t0.grad)
    with rec.attempt('s3: t1 = t0[1:]'):
        t1 = t0[1:]
        rec('t1', t1)
    with rec.attempt('s4: t2 = t0.detach()'):
        t2 = t0.detach()
        rec('t2', t2, version=True)
    with rec.attempt('s5: t3, = torch.autograd.grad(t1.sum(), [t0], create_graph=True)'):
        t3, = torch.autograd.grad(t1.sum(), [t0], create_graph=True)
        rec('t3', t3)
    with rec.attempt('s6: t4 = t0[1:]'):
        t4 = t0[1:]
        rec('t4', t4)
    with rec.attempt('s7: t5 = t4.sum()'):
        t5 = t4.sum()
        rec('t5', t5)
    with rec.attempt('s8: t6 = t4[1:]'):
        t6 = t4[1:]
        rec('t6', t6)
    with rec.attempt('s9: t7 = torch.add(t0, t0)'):
        t7 = torch.add(t0, t0)
        rec('t7', t7)
    with rec.attempt('s10: t8 = torch.add(t0, t0)'):
        t8 = torch.add(t0, t0)
        rec('t8', t8)
    with rec.attempt('s11: t9 = torch.add(t8, t2)'):
        t9 = torch.add(t8, t2)
        rec('t9', t9)
    with rec.attempt('s12: gradients of t4 with respect to t0'):
        grads = torch.autograd.grad(t4, [t0], grad_outputs=torch.tensor([], dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt4/dt0', grads[0])
    with rec.attempt('s13: gradients of t5 with respect to t0'):
        grads = torch.autograd.grad(t5, [t0], grad_outputs=torch.tensor(0.5, dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt5/dt0', grads[0])
    with rec.attempt('s14: gradients of t6 with respect to t0'):
        grads = torch.autograd.grad(t6, [t0], grad_outputs=torch.tensor([], dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt6/dt0', grads[0])
    with rec.attempt('s15: gradients of t7 with respect to t0'):
        grads = torch.autograd.grad(t7, [t0], grad_outputs=torch.tensor([[0.5, -1.5, 2.0]], dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt7/dt0', grads[0])
    with rec.attempt('s16: gradients of t8 with respect to t0'):
        grads = torch.autograd.grad(t8, [t0], grad_outputs=torch.tensor([[0.5, -1.5, 2.0]], dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt8/dt0', grads[0])
    with rec.attempt('s17: gradients of t9 with respect to t0'):
        grads = torch.autograd.grad(t9, [t0], grad_outputs=torch.tensor([[0.5, -1.5, 2.0]], dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt9/dt0', grads[0])
    with rec.attempt('s18: t9.sum().backward()'):
        t9.sum().backward()
        rec('t0.grad', t0.grad)
    rec('t0.grad', t0.grad)
