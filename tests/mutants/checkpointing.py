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
