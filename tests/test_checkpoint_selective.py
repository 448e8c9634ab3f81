"""Selective activation checkpointing and the per-op dispatch it runs on, against torch: the ops a policy
sees, outputs saved by the forward reused at recomputation, the errors, and no wrapper left behind."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import myautograd
from myautograd._ops import dispatch

LIBRARIES = [torch, myautograd]


def _checkpointed(lib, region, args, policy, **options):
    contexts = lambda: lib.utils.checkpoint.create_selective_checkpoint_contexts(policy, **options)  # noqa: E731
    return lib.utils.checkpoint.checkpoint(region, *args, use_reentrant=False, context_fn=contexts)


def _policy(lib, seen, save=()):
    def policy(ctx, op, *args, **kwargs):
        seen.append((op.__name__, ctx.is_recompute))
        return (lib.utils.checkpoint.CheckpointPolicy.MUST_SAVE if op.__name__ in save
                else lib.utils.checkpoint.CheckpointPolicy.PREFER_RECOMPUTE)
    return policy


def _ops_seen(lib, region, shape):
    x = lib.ones(shape, requires_grad=True)
    seen = []
    lib.manual_seed(0)
    _checkpointed(lib, region, (x,), _policy(lib, seen)).backward()
    return seen


@pytest.mark.parametrize("region", [
    lambda lib, a: lib.mm(a, a).sin().sum(),
    lambda lib, a: lib.nn.functional.dropout(a * 2, p=0.5, training=True).sum(),
    lambda lib, a: (a @ a.t() + a).exp().mean(1).sum(),
    lambda lib, a: lib.nn.functional.relu(a - 1).pow(2).sum(0).sum(),
], ids=["mm-sin-sum", "dropout", "matmul-add-exp-mean", "relu-pow"])
def test_the_policy_sees_the_aten_ops_torch_sees(region):
    seen = [_ops_seen(lib, lambda a, lib=lib: region(lib, a), (3, 3)) for lib in LIBRARIES]
    assert seen[1] == seen[0]
    assert seen[0] and not any(recompute for _, recompute in seen[0])


def test_op_overloads_are_one_object_per_name_with_torch_names():
    aten = myautograd.ops.aten
    assert aten.mm.default is aten.mm.default and aten.mm.default != aten.mm.out
    assert {aten.mm.default: 1}[aten.mm.default] == 1
    for name in ("mm.default", "bernoulli_.float"):
        packet, overload = name.split(".")
        ours, theirs = getattr(getattr(aten, packet), overload), getattr(getattr(torch.ops.aten, packet), overload)
        assert (ours.__name__, str(ours), repr(ours), ours.name()) == (
            theirs.__name__, str(theirs), repr(theirs), theirs.name())
    assert repr(aten.mm) == repr(torch.ops.aten.mm)
    assert aten.detach.default in myautograd.utils.checkpoint.SAC_IGNORED_OPS


def test_a_saved_output_is_reused_at_recomputation():
    """The mul's factor changes between forward and backward: saving the mul keeps the forward's value
    (torch's gradient); recomputing it would give sin' of the new product."""
    grads = []
    for lib in LIBRARIES:
        factor = [2.0]
        x = lib.tensor([0.5, 1.0, 1.5], requires_grad=True)
        y = _checkpointed(lib, lambda a: (a * factor[0]).sin().sum(), (x,), _policy(lib, [], save=("mul.Tensor",)))
        factor[0] = 5.0
        y.backward()
        grads.append(x.grad.detach().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6)
    np.testing.assert_allclose(grads[0], 2 * np.cos(2 * np.array([0.5, 1.0, 1.5])), rtol=1e-6)


def _error(lib, run) -> str:
    with pytest.raises(RuntimeError) as caught:
        run(lib)
    return str(caught.value)


def test_a_second_backward_through_a_saving_region_raises_torchs_error():
    def run(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = _checkpointed(lib, lambda a: lib.mm(a, a).sin().sum(), (x,), [lib.ops.aten.mm.default])
        y.backward(retain_graph=True)
        y.backward()

    messages = [_error(lib, run) for lib in LIBRARIES]
    assert messages[1] == messages[0]
    assert messages[0].startswith("Trying to backward an extra time.")


@pytest.mark.parametrize("allow", [False, True])
def test_a_mutated_cached_output_raises_unless_allowed(allow):
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        lib.manual_seed(1)
        y = _checkpointed(lib, lambda a: lib.nn.functional.dropout(a * 2, p=0.5).sum(), (x,),
                          lambda ctx, op, *args, **kwargs: True, allow_cache_entry_mutation=allow)
        y.backward()
        return x.grad

    if allow:
        for lib in LIBRARIES:
            assert run(lib).shape == (4,)
    else:
        messages = [_error(lib, run) for lib in LIBRARIES]
        assert messages[1] == messages[0] == "Tensor cached during selective activation checkpoint has been mutated"


def test_a_list_of_packets_is_refused_as_torch_refuses_it():
    for lib in LIBRARIES:
        with pytest.raises(ValueError, match="change it to `torch.ops.aten.mm.default`"):
            lib.utils.checkpoint.create_selective_checkpoint_contexts([lib.ops.aten.mm])


def test_outside_a_mode_the_ops_are_the_unwrapped_functions():
    originals = (myautograd.Tensor.sin, myautograd.Tensor.__mul__, myautograd.mm, myautograd.nn.functional.linear)
    _ops_seen(myautograd, lambda a: myautograd.mm(a, a).sin().sum(), (2, 2))
    assert not dispatch.active()
    assert (myautograd.Tensor.sin, myautograd.Tensor.__mul__, myautograd.mm,
            myautograd.nn.functional.linear) == originals
    assert not hasattr(myautograd.Tensor.sin, "__wrapped__")


def test_dropout_keeps_its_node_and_scale():
    x = myautograd.ones(1000, requires_grad=True)
    y = myautograd.nn.functional.dropout(x, p=0.3)
    assert y.grad_fn.name() == "MulBackward0"
    values = set(np.unique(y.detach().numpy()).tolist())
    assert values == {0.0, np.float32(np.float32(1) / np.float32(0.7)).item()}
