"""Found by the fuzzer: torch-compile-aot-eager differs from torch at level api
(float32, cpu): step 24: Fn1.forward: ctx.needs_input_grad[0]: torch False / implementation True

Shrunk by hypothesis in 85 runs, from 33 steps to 30.
Replay: python -m conformance fuzz --impl torch-compile-aot-eager --device cpu --seed 1 --level api --max-steps 20 --shrinker hypothesis (the difference is in chunk 0).
To promote it, move the function into a topic module of conformance/catalog/ and give it a title,
the documentation it checks and its features."""

from conformance import docs
from conformance.case import case
from conformance.operators.tolerances import COMPOSITE


@case("A fuzzed program (98d4b0300bf0)", doc=docs.HISTORY, dtypes=('float32',), tags=("hard",), tolerances={'float32': COMPOSITE.per_dtype()['float32']})
def fuzzed_98d4b0300bf0(torch, rec):
    F = torch.nn.functional
    t0 = torch.tensor(-1.0, dtype=rec.float_dtype, device=rec.device, requires_grad=True)
    with rec.attempt('s1: class Fn0(torch.autograd.Function)'):
        class Fn0(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                sign = a.sign()
                ctx.mark_non_differentiable(sign)
                return a * 2, sign
        
            @staticmethod
            def backward(ctx, grad, grad_sign):
                rec('Fn0.backward: the gradient of the non-differentiable output', grad_sign)
                return grad * 2
    with rec.attempt('s2: t1, t2 = Fn0.apply(t0)'):
        t1, t2 = Fn0.apply(t0)
        rec('t1', t1)
        rec('t2', t2)
    t3 = torch.tensor([-1.0, -1.0, -1.0], dtype=rec.float_dtype, device=rec.device, requires_grad=True)
    with rec.attempt('s3: t4, = torch.autograd.grad(t3 * t3, [t3], grad_outputs=torch.stack([torch.tensor([0.5, -1.5, 2.0], dtype=rec.float_dtype, device=rec.device), torch.tensor([0.25, -0.75, 1.25], dtype=rec.float_dtype, device=rec.device)]), is_grads_batched=True)'):
        t4, = torch.autograd.grad(t3 * t3, [t3], grad_outputs=torch.stack([torch.tensor([0.5, -1.5, 2.0], dtype=rec.float_dtype, device=rec.device), torch.tensor([0.25, -0.75, 1.25], dtype=rec.float_dtype, device=rec.device)]), is_grads_batched=True)
        rec('t4', t4)
    with rec.attempt('s4: t5 = t4 * 2'):
        t5 = t4 * 2
        rec('t5', t5)
    with rec.attempt('s5: t6 = t0.detach()'):
        t6 = t0.detach()
        rec('t6', t6, version=True)
    with rec.attempt('s6: t7 = t3[1:]'):
        t7 = t3[1:]
        rec('t7', t7)
    with rec.attempt('s7: t0.sum().item()'):
        rec('t0.sum().item()', t0.sum().item())
    with rec.attempt('s8: t8 = F.silu(t0)'):
        t8 = F.silu(t0)
        rec('t8', t8)
    with rec.attempt('s9: t3.detach_()'):
        t3.detach_()
        rec('t3', t3)
    with rec.attempt('s10: t9 = t3.sum(dim=0, keepdim=False)'):
        t9 = t3.sum(dim=0, keepdim=False)
        rec('t9', t9)
    with rec.attempt('s11: t10 = (lambda spread, mean: spread * 2 + mean)(*torch.var_mean(t2))'):
        t10 = (lambda spread, mean: spread * 2 + mean)(*torch.var_mean(t2))
        rec('t10', t10)
    with rec.attempt('s12: class Fn1(torch.autograd.Function)'):
        class Fn1(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                rec('Fn1.forward: ctx.needs_input_grad', ctx.needs_input_grad)
                ctx.save_for_backward(a, b)
                return a * b + a
        
            @staticmethod
            def backward(ctx, grad):
                a, b = ctx.saved_tensors
                rec('Fn1.backward: ctx.needs_input_grad', ctx.needs_input_grad)
                return (grad * (b + 1) if ctx.needs_input_grad[0] else None,
                        grad * a if ctx.needs_input_grad[1] else None)
    with rec.attempt('s13: t11 = Fn1.apply(t10, t9)'):
        t11 = Fn1.apply(t10, t9)
        rec('t11', t11)
    with rec.attempt('s14: t1.sum().backward(retain_graph=True, inputs=[t0])'):
        t1.sum().backward(retain_graph=True, inputs=[t0])
        rec('t0.grad', t0.grad)
    t12 = torch.tensor([[-1.0], [0.5], [0.0]], dtype=rec.float_dtype, device=rec.device)
    with rec.attempt('s15: t13 = F.leaky_relu(t12, 0.25)'):
        t13 = F.leaky_relu(t12, 0.25)
        rec('t13', t13)
    t14 = torch.tensor([[-0.5, 0.5]], dtype=rec.float_dtype, device=rec.device)
    with rec.attempt('s16: t15 = t13 @ t14'):
        t15 = t13 @ t14
        rec('t15', t15)
    t16 = torch.tensor([-1.0], dtype=rec.float_dtype, device=rec.device)
    with rec.attempt('s17: t8.sum().backward(retain_graph=True)'):
        t8.sum().backward(retain_graph=True)
        rec('t0.grad', t0.grad)
    with rec.attempt('s18: Adam(lr=0.1, betas=(0.8, 0.9), eps=0.1, weight_decay=0.1, amsgrad=True) steps on t0'):
        opt = torch.optim.Adam([t0], lr=0.1, betas=(0.8, 0.9), eps=0.1, weight_decay=0.1, amsgrad=True)
        opt.step()
        for p in [t0]:
            if p.grad is not None:
                p.grad.mul_(-0.5)
        opt.step()
        for p in [t0]:
            if p.grad is not None:
                p.grad.mul_(0.25)
        opt.step()
        rec('t0', t0, version=True)
        rec('t0.grad', t0.grad)
    with rec.attempt('s19: t17 = t6.detach()'):
        t17 = t6.detach()
        rec('t17', t17, version=True)
    with rec.attempt('s20: gradients of t1 with respect to t0'):
        grads = torch.autograd.grad(t1, [t0], grad_outputs=torch.tensor(0.5, dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt1/dt0', grads[0])
    with rec.attempt('s21: gradients of t7 with respect to t0'):
        grads = torch.autograd.grad(t7, [t0], grad_outputs=torch.tensor([0.5, -1.5], dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt7/dt0', grads[0])
    with rec.attempt('s22: gradients of t8 with respect to t0'):
        grads = torch.autograd.grad(t8, [t0], grad_outputs=torch.tensor(0.5, dtype=rec.float_dtype, device=rec.device), retain_graph=True, allow_unused=True)
        rec('dt8/dt0', grads[0])
    with rec.attempt('s23: t8.sum().backward()'):
        t8.sum().backward()
        rec('t0.grad', t0.grad)
    rec('t0.grad', t0.grad)
