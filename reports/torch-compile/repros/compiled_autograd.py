"""Divergences seen only with compiled autograd (torch._dynamo.config.compiled_autograd = True, with
torch.compile(backend="aot_eager")): each function below runs its backward inside the compiled
function. torch 2.13.0 CPU. Run: python compiled_autograd.py"""
import warnings

import torch


def adopted_gradient():
    # eager: reshape's backward makes a view of g, which x.grad adopts: writing x.grad writes g
    x = torch.zeros(2, 3, requires_grad=True)
    g = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    x.reshape(6).backward(g)
    x.grad.mul_(10)
    return g


def stacked_leaves():
    # eager: sum's gradient is one expanded element; stack's backward gives each leaf a 0-d view of it
    a = torch.tensor(1.5, requires_grad=True)
    b = torch.tensor(2.5, requires_grad=True)
    torch.stack([a, b]).sum().backward()
    a.grad.mul_(-0.5)
    return b.grad


def nan_under_anomaly_mode():
    x = torch.tensor([0.0, 4.0], requires_grad=True)
    with torch.autograd.detect_anomaly():
        (x.sqrt() * 0).sum().backward()


def hook_on_a_view():
    x = torch.tensor([-0.5, 1.5], requires_grad=True)
    y = x.view(2, 1)
    y.register_hook(lambda g: None)
    y.sum().backward()
    return x.grad


def hooks_around_an_inplace_op():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: None)
    y.mul_(3)
    y.register_hook(lambda g: None)
    y.sum().backward()
    return x.grad


class MaxWithIndex(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        idx = x.argmax()
        ctx.save_for_backward(idx)
        ctx.mark_non_differentiable(idx)
        return x.max(), idx

    @staticmethod
    def backward(ctx, g_value, g_idx):
        (idx,) = ctx.saved_tensors
        grad = torch.zeros(3)
        grad[idx] = g_value
        return grad


def index_with_a_saved_tensor_in_backward():
    x = torch.tensor([1.0, 5.0, 2.0], requires_grad=True)
    value, idx = MaxWithIndex.apply(x)
    value.backward()
    return x.grad


def post_accumulate_hook_of_a_leaf_detached_later():
    seen = []
    x = torch.tensor(-2.0, requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad))
    y = x * 2
    x.detach_()
    y.backward()
    return seen


def hooks_of_outputs_without_a_path_to_the_inputs():
    seen = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    unrelated = torch.tensor([3.0], requires_grad=True)
    z = x * 3
    z.retain_grad()
    z.register_hook(lambda g: seen.append(g))
    torch.autograd.grad(z, [unrelated], grad_outputs=torch.ones(2), allow_unused=True)
    return seen, z.grad


def run(f):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = repr(f())
        except Exception as e:  # noqa: BLE001
            lines = [line.strip() for line in str(e).splitlines() if line.strip()]
            out = f"raises {type(e).__name__}: {' / '.join(lines[:2])[:230]}"
    kept = [str(w.message).splitlines()[0] for w in caught if "torch/_" not in w.filename]
    return out + (f"; warnings: {kept}" if kept else "")


for f in (adopted_gradient, stacked_leaves, nan_under_anomaly_mode, hook_on_a_view, hooks_around_an_inplace_op,
          index_with_a_saved_tensor_in_backward, post_accumulate_hook_of_a_leaf_detached_later,
          hooks_of_outputs_without_a_path_to_the_inputs):
    print(f.__name__)
    print(f"  {'eager:':30} {run(f)}")
    torch._dynamo.reset()
    with torch._dynamo.config.patch(compiled_autograd=True):
        print(f"  {'compiled autograd (aot_eager):':30} {run(torch.compile(f, backend='aot_eager'))}")
