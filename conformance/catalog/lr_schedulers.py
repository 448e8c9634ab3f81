"""Learning-rate schedulers: every scheduler of ``torch.optim.lr_scheduler`` over eight epochs, the
step-order warning, and ``state_dict``.

Each scheduler case builds SGD (lr 0.1, momentum 0.9: CyclicLR and OneCycleLR cycle the momentum
too) over one parameter, then runs eight epochs of ``optimizer.step()`` followed by
``scheduler.step()``, recording ``get_last_lr()`` and the group's ``lr`` and ``momentum`` after
each; it starts by recording them right after construction (a scheduler sets the first epoch's
rate when it is built, by one step of its own). It ends with the names in the scheduler's
``state_dict`` and its ``last_epoch``. ReduceLROnPlateau steps on a metric that stalls.
"""

from __future__ import annotations

from .. import docs
from ..case import REGISTRY, Registry, case, case_from_source
from ..features import detected
from ..operators.tolerances import CHAINED

EPOCHS = 8
FEATURES = ("non-scalar", "nn", "optim")
LR = "torch.optim.lr_scheduler"

#: Scheduler name -> the source of its construction's arguments after the optimizer (``opt``).
SCHEDULERS = {
    "LambdaLR": "lr_lambda=lambda epoch: 0.9 ** epoch",
    "MultiplicativeLR": "lr_lambda=lambda epoch: 0.8",
    "StepLR": "step_size=3, gamma=0.5",
    "MultiStepLR": "milestones=[2, 5], gamma=0.3",
    "ConstantLR": "factor=0.5, total_iters=3",
    "LinearLR": "start_factor=0.25, end_factor=1.0, total_iters=4",
    "ExponentialLR": "gamma=0.8",
    "PolynomialLR": "total_iters=5, power=2.0",
    "CosineAnnealingLR": "T_max=4, eta_min=0.01",
    "CosineAnnealingWarmRestarts": "T_0=2, T_mult=2, eta_min=0.01",
    "CyclicLR": "base_lr=0.01, max_lr=0.1, step_size_up=2",
    "OneCycleLR": "max_lr=0.5, total_steps=10",
    "SequentialLR": (f"schedulers=[{LR}.ConstantLR(opt, factor=0.5, total_iters=2), {LR}.ExponentialLR(opt, gamma=0.9)], "
                     "milestones=[3]"),
    "ChainedScheduler": f"[{LR}.ConstantLR(opt, factor=0.5, total_iters=3), {LR}.ExponentialLR(opt, gamma=0.9)]",
    "ReduceLROnPlateau": "mode='min', factor=0.5, patience=1",
}

TEMPLATE = '''\
def {name}(torch, rec):
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0], device=rec.device))
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.{name}(opt, {arguments})
    group = opt.param_groups[0]
    rec("after construction: lr, momentum", (group["lr"], group["momentum"]))
    metrics = [1.0, 0.9, 0.9, 0.9, 0.8, 0.8, 0.8, 0.8]
    for epoch in range({epochs}):
        opt.zero_grad()
        (w ** 2).sum().backward()
        opt.step()
        {step}
        rec(f"epoch {{epoch}}: get_last_lr(), lr, momentum", (scheduler.get_last_lr(), group["lr"], group["momentum"]))
    rec("state_dict names", sorted(scheduler.state_dict()))
    rec("last_epoch", scheduler.last_epoch)
'''


def build(name: str, arguments: str):
    step = "scheduler.step(metrics[epoch])" if name == "ReduceLROnPlateau" else "scheduler.step()"
    source = TEMPLATE.format(name=name, arguments=arguments, epochs=EPOCHS, step=step)
    title = f"torch.optim.lr_scheduler.{name}({arguments}): the rates of {EPOCHS} epochs, state_dict names"
    return case_from_source(source, f"lr_schedulers.{name}", title, docs.docstring(f"torch.optim.lr_scheduler.{name}"),
                            function=name, namespace={"__name__": __name__},
                            features=tuple(sorted(set(FEATURES) | detected(source))), devices=("cpu",),
                            tolerances=CHAINED.per_dtype())


def register(registry: Registry = REGISTRY) -> None:
    for name, arguments in SCHEDULERS.items():
        registry.add(build(name, arguments))


register()


@case("scheduler.step() before optimizer.step() warns that the first value of the schedule is skipped; the "
      "rate still moves on", doc=docs.docstring("torch.optim.lr_scheduler.StepLR"), features=FEATURES,
      devices=("cpu",))
def step_before_optimizer_warns(torch, rec):
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0], device=rec.device))
    opt = torch.optim.SGD([w], lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    scheduler.step()
    rec("rate after a scheduler step before any optimizer step", scheduler.get_last_lr())
    (w ** 2).sum().backward()
    opt.step()
    scheduler.step()
    rec("rate after the next epoch, in the right order", scheduler.get_last_lr())


@case("A scheduler's state_dict loaded into a fresh one continues the schedule where it stopped",
      doc=docs.docstring("torch.optim.lr_scheduler.MultiStepLR"), features=FEATURES, devices=("cpu",))
def state_dict_resumes(torch, rec):
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0], device=rec.device))
    opt = torch.optim.SGD([w], lr=0.1)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.5)
    for _ in range(3):
        opt.step()
        scheduler.step()
    saved = scheduler.state_dict()
    fresh = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[1], gamma=0.1)
    fresh.load_state_dict(saved)
    rec("milestones and last_epoch after loading", (sorted(fresh.milestones), fresh.last_epoch))
    for epoch in range(3):
        opt.step()
        fresh.step()
        rec(f"epoch {epoch} after resuming: get_last_lr()", fresh.get_last_lr())
