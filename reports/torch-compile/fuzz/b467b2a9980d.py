"""Found by the fuzzer: torch-compile-aot-eager differs from torch at level api
(float32, cpu): step 20: s10: gradients of t7 with respect to t0, t1: exception: torch UnboundLocalError: cannot access local variable 't7' where it is not associated with a value / implementation NameError: cannot access free variable 't7' where it is not associated with a value in enclosing scope

Shrunk by hypothesis in 106 runs, from 30 steps to 17.
Replay: python -m conformance fuzz --impl torch-compile-aot-eager --device cpu --seed 1 --level api --max-steps 20 --shrinker hypothesis (the difference is in chunk 0).
To promote it, move the function into a topic module of conformance/catalog/ and give it a title,
the documentation it checks and its features."""

from conformance import docs
from conformance.case import case
from conformance.operators.tolerances import COMPOSITE


@case("A fuzzed program (b467b2a9980d)", doc=docs.HISTORY, dtypes=('float32',), tags=("hard",), tolerances={'float32': COMPOSITE.per_dtype()['float32']})
def fuzzed_b467b2a9980d(torch, rec):
    F = torch.nn.functional
    t0 = torch.tensor([-1.0, -1.0, -1.0], dtype=rec.float_dtype, device=rec.device, requires_grad=True)
    t1 = torch.tensor([-1.0, -1.0, -1.0], dtype=rec.float_dtype, device=rec.device, requires_grad=True)
    with rec.attempt('s1: t2, = torch.autograd.grad(t1 * t1, [t1], grad_outputs=torch.stack([torch.tensor([0.5, -1.5, 2.0], dtype=rec.float_dtype, device=rec.device), torch.tensor([0.25, -0.75, 1.25], dtype=rec.float_dtype, device=rec.device)]), is_grads_batched=True)'):
        t2, = torch.autograd.grad(t1 * t1, [t1], grad_outputs=torch.stack([torch.tensor([0.5, -1.5, 2.0], dtype=rec.float_dtype, device=rec.device), torch.tensor([0.25, -0.75, 1.25], dtype=rec.float_dtype, device=rec.device)]), is_grads_batched=True)
        rec('t2', t2)
    with rec.attempt('s2: t3 = t2.sum(dim=0, keepdim=False)'):
        t3 = t2.sum(dim=0, keepdim=False)
        rec('t3', t3)
    with rec.attempt('s3: class Fn0(torch.autograd.Function)'):
        class Fn0(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                rec('Fn0.forward: ctx.needs_input_grad', ctx.needs_input_grad)
                ctx.save_for_backward(a, b)
                return a * b + a
        
            @staticmethod
            def backward(ctx, grad):
                a, b = ctx.saved_tensors
                rec('Fn0.backward: ctx.needs_input_grad', ctx.needs_input_grad)
                return (grad * (b + 1) if ctx.needs_input_grad[0] else None,
                        grad * a if ctx.needs_input_grad[1] else None)
    with rec.attempt('s4: t4 = Fn0.apply(t0, t1)'):
        t4 = Fn0.apply(t0, t1)
        rec('t4', t4)
    t5 = torch.tensor([[-2.0, -2.0], [-2.0, -2.0], [-2.0, -2.0]], dtype=rec.float_dtype, device=rec.device)
    with rec.attempt('s5: t6 = embedding: F.embedding(idx, w, padding_idx=0)'):
        t6 = (lambda idx, w: F.embedding(idx, w, padding_idx=0))(torch.tensor([0, 2, 0, 1], device=rec.device), t5)
        rec('t6', t6)
    with rec.attempt('s6: t0.grad = None'):
        t0.grad = None
        rec('t0.grad', t0.grad)
    with rec.attempt('s7: t6.mul_(1.5)'):
        t6.mul_(1.5)
        rec('t6', t6, version=True)
    with rec.attempt('s8: t7, = torch.autograd.grad(t0.sum(), [t1], create_graph=True)'):
        t7, = torch.autograd.grad(t0.sum(), [t1], create_graph=True)
        rec('t7', t7)
    with rec.attempt('s9: gradients of t4 with respect to t0, t1'):
        grads = torch.autograd.grad(t4, [t0, t1], grad_outputs=torch.tensor([0.5, -1.5, 2.0], dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt4/dt0', grads[0])
        rec('dt4/dt1', grads[1])
    with rec.attempt('s10: gradients of t7 with respect to t0, t1'):
        grads = torch.autograd.grad(t7, [t0, t1], grad_outputs=torch.tensor([0.5, -1.5, 2.0], dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt7/dt0', grads[0])
        rec('dt7/dt1', grads[1])
    with rec.attempt('s11: t7.sum().backward()'):
        t7.sum().backward()
        rec('t0.grad', t0.grad)
        rec('t1.grad', t1.grad)
    rec('t0.grad', t0.grad)
    rec('t1.grad', t1.grad)
