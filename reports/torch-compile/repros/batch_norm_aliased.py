"""F.batch_norm in training with one tensor passed as several of running_mean, running_var, weight and
bias: eager updates the running statistics one after the other in that one tensor, and normalizes
with what it holds then; AOTAutograd gives other outputs and leaves another value in the tensor.
torch 2.13.0 CPU. Run: python batch_norm_aliased.py"""
import torch

F = torch.nn.functional
X = [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [3.0, 3.0, 1.0], [-2.0, 0.1, 0.3]]


def stats_one_tensor(x, stats):
    F.batch_norm(x, stats, stats, training=True, momentum=0.3)
    return stats


def every_argument_one_tensor(x, shared):
    out = F.batch_norm(x, shared, shared, shared, shared, training=True, momentum=0.3)
    return out[0], shared


def run(f):
    result = f(torch.tensor(X), torch.tensor([0.5, -1.5, 2.0]))
    return repr([t.tolist() for t in result] if isinstance(result, tuple) else result.tolist())


torch.set_printoptions(precision=4)
for f in (stats_one_tensor, every_argument_one_tensor):
    print(f.__name__)
    print(f"  {'eager:':21} {run(f)}")
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        print(f"  {'compiled ' + backend + ':':21} {run(torch.compile(f, backend=backend))}")
