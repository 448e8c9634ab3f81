"""Mutants of activation checkpointing (``myautograd.utils.checkpoint``): backward that does not run the
checkpointed function again and uses what the forward computed, as a cache would."""

from __future__ import annotations

from myautograd.utils import checkpoint as checkpointing

from ._registry import mutant, replace


@mutant("checkpointing", "non-reentrant checkpoint skips the recomputation: the forward's tensors are kept and "
                         "backward uses them, stale where the function would now compute other values")
def checkpoint_recomputation_skipped():
    def keep_forward_tensor(original):
        def pack(frame, tensor):
            holder = original(frame, tensor)
            holder.stale = tensor.detach()
            return holder

        return pack

    replace(checkpointing._Frame, "pack", keep_forward_tensor)
    replace(checkpointing._Frame, "unpack", lambda original: lambda frame, holder: holder.stale)


@mutant("checkpointing", "selective checkpointing never reads its cache at recomputation: every op runs again, "
                         "so a second backward through the region is not refused and a mutated cached output "
                         "goes unnoticed")
def selective_checkpoint_cache_unused():
    replace(checkpointing._CachedMode, "dispatch",
            lambda original: lambda mode, op, run, args, kwargs: run())


@mutant("checkpointing", "selective checkpointing hands the policy the op's packet (aten.mm) instead of its "
                         "overload (aten.mm.default)")
def selective_checkpoint_policy_sees_packet():
    replace(checkpointing._CachingMode, "dispatch",
            lambda original: lambda mode, op, run, args, kwargs: original(mode, op.overloadpacket, run, args, kwargs))
