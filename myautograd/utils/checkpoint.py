"""``myautograd.utils.checkpoint``: activation checkpointing, with torch's two variants.

A checkpointed function runs without keeping the tensors its ops save for backward; backward runs
it again to get them back.

* Reentrant (``use_reentrant=True``, what ``checkpoint`` does when ``use_reentrant`` is not given,
  with torch's warning): ``CheckpointFunction``, a custom Function whose forward runs the function
  under no_grad and whose backward runs it again with grad enabled and backpropagates through that
  graph in a backward pass of its own. It refuses a backward pass that has ``inputs``
  (``autograd.grad``, ``backward(inputs=)``), as torch's does.
* Non-reentrant: the forward runs under saved-tensor hooks whose pack hook keeps only a holder
  (and the tensor's shape, dtype and device). The first unpack in a backward pass runs the function
  again under hooks that put each tensor it saves, in order, into the holders; ``early_stop`` ends
  that run once every holder is filled. The determinism check compares the counts and metadata.
  Holders are filled per backward pass (the engine's ``GraphTask``), so a second backward through a
  retained graph recomputes again.

Both variants stash the RNG state before the forward and replay it in the recomputation
(``preserve_rng_state``); myautograd's CUDA random numbers come from the CPU generator, so its
state is the whole RNG state.

Selective checkpointing: ``create_selective_checkpoint_contexts`` returns two dispatch modes
(``_ops/dispatch.py``). The forward's calls the policy after each op with the op's
``torch.ops.aten`` overload, arguments and output, and keeps (detached, with its version) the output of
each op the policy saves; the recomputation's gives each kept output back, once: a second backward
through the region, or an output changed in place since, raises torch's error. Only the ops the
dispatch table names are seen (see ``_ops/aten.py``); the others always run again. ``debug=True`` gives
torch's error header, without the operator traces torch records through its dispatcher.
"""

from __future__ import annotations

import collections
import contextlib
import enum
import warnings
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from .. import _grad_mode, autograd
from .._autograd.engine import current_task
from .._autograd.node import SavedTensor, unpack_saved_tensor
from .._autograd.record import save_for_backward
from .._ops.aten import OpOverload, OpOverloadPacket, aten
from .._ops.creation import default_generator
from .._ops.dispatch import DispatchMode
from .._tensor import Tensor, make_tensor
from ..accelerator import current_accelerator
from ..autograd.function import Function
from ..autograd.graph import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "check_backward_validity",
           "detach_variable", "get_device_states", "set_device_states", "noop_context_fn", "set_checkpoint_early_stop",
           "DefaultDeviceType", "set_checkpoint_debug_enabled", "CheckpointPolicy", "SelectiveCheckpointContext",
           "create_selective_checkpoint_contexts", "SAC_IGNORED_OPS", "GraphExecGroup"]

USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
    "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.")
SEQUENTIAL_USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. In "
    "version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but "
    "if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.")
REENTRANT_WITH_INPUTS = (
    "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an `inputs` parameter "
    "to .backward(). To resolve this error, you can either set use_reentrant=False, or call .backward() without "
    "passing the `inputs` argument.")
DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint\u2011debug mode globally.

If this error occurs under torch.compile with automatic_dynamic_shapes enabled,
it may be because the recomputation selected a different compiled graph than the
forward pass (e.g., a dynamic graph instead of the original static graph).
To fix this, either:
  - Use torch._dynamo.mark_dynamic() to explicitly mark varying dimensions as
    dynamic upfront, avoiding the static-to-dynamic transition.
  - Call torch._C._dynamo.eval_frame._set_lru_cache(False) to disable LRU cache
    reordering, which can change which graph is checked first between forward
    and recompute.
See https://github.com/pytorch/pytorch/issues/166926 for more details and
workaround examples.
"""
DEBUG_HEADER = (" An error happened while unpacking tensors; dumping logs of latest computation\n"
                "because you passed `debug=True` to `torch.utils.checkpoint.checkpoint()`.\n")
DEBUG_NO_TRACES = ("myautograd has no operator dispatcher, so it cannot list the operators of the original forward "
                   "and of the recomputation. The error found:\n")


class CheckpointError(RuntimeError):
    pass


# -- switches ----------------------------------------------------------------------------------------
_debug_enabled: bool | None = None
_early_stop_enabled: bool | None = None


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None):
    """While active, overrides checkpoint's ``debug`` (None defers to it)."""
    global _debug_enabled
    previous, _debug_enabled = _debug_enabled, enabled
    try:
        yield
    finally:
        _debug_enabled = previous


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """While active (around the forward), overrides checkpoint's ``early_stop``."""
    global _early_stop_enabled
    previous, _early_stop_enabled = _early_stop_enabled, enable
    try:
        yield
    finally:
        _early_stop_enabled = previous


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


# -- helpers torch exports -----------------------------------------------------------------------------
def detach_variable(inputs):
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for value in inputs:
        if isinstance(value, Tensor):
            detached = value.detach()
            detached.requires_grad = value.requires_grad
            value = detached
        out.append(value)
    return tuple(out)


def check_backward_validity(inputs: Iterable[Any]) -> None:
    if not any(value.requires_grad for value in inputs if isinstance(value, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


class DefaultDeviceType:
    """The device type whose RNG state checkpointing saves when no argument is on another device."""

    _default_device_type: str | None = None

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        if not DefaultDeviceType._default_device_type:
            accelerator = current_accelerator(True)
            DefaultDeviceType._default_device_type = accelerator.type if accelerator else "cpu"
        return DefaultDeviceType._default_device_type


def get_device_states(*args) -> tuple[list[int], list]:
    """The devices of the CUDA tensors among ``args`` and their RNG states (myautograd's CUDA random
    numbers come from the CPU generator: its state)."""
    devices = sorted({arg.device.index or 0 for arg in args if isinstance(arg, Tensor) and arg.device.type == "cuda"})
    return devices, [default_generator.get_state() for _ in devices]


def set_device_states(devices, states, *, device_type=None) -> None:
    for state in states:
        default_generator.set_state(state)


@contextlib.contextmanager
def _replayed_rng(state):
    """Run with the RNG state ``state`` (None: as it is), and restore the state found on entry."""
    if state is None:
        yield
        return
    surrounding = default_generator.get_state()
    default_generator.set_state(state)
    try:
        yield
    finally:
        default_generator.set_state(surrounding)


# -- the reentrant variant -----------------------------------------------------------------------------
class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng_state = default_generator.get_state() if preserve_rng_state else None
        ctx.inputs = [None if isinstance(arg, Tensor) else arg for arg in args]
        ctx.tensor_indices = [index for index, arg in enumerate(args) if isinstance(arg, Tensor)]
        ctx.save_for_backward(*(arg for arg in args if isinstance(arg, Tensor)))
        with _grad_mode.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grad_outputs):
        task = current_task()
        if task is not None and task.active is not None:  # the pass has inputs: autograd.grad or backward(inputs=)
            raise RuntimeError(REENTRANT_WITH_INPUTS)
        inputs = list(ctx.inputs)
        for index, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[index] = tensor
        with _replayed_rng(ctx.rng_state):
            detached = detach_variable(tuple(inputs))
            with _grad_mode.enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(out, grad) for out, grad in zip(outputs, grad_outputs) if isinstance(out, Tensor) and out.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        autograd.backward([out for out, _ in pairs], [grad for _, grad in pairs])
        return (None, None) + tuple(arg.grad if isinstance(arg, Tensor) else None for arg in detached)


# -- the non-reentrant variant -------------------------------------------------------------------------
def _metadata(tensor: Tensor) -> dict:
    return {"shape": tensor.shape, "dtype": tensor.dtype, "device": tensor.device}


DETERMINISM_CHECKS: dict[str, Callable] = {"default": _metadata, "none": lambda _: None}


class _Holder:
    """What the forward's pack hook keeps for one saved tensor: the recomputed tensor, per backward pass,
    and where the saved tensor was in the graph (``place``: the leaf itself, or its node and output number;
    None when it did not require grad), so that the recomputed value takes its place when it is unpacked:
    a backward with create_graph then differentiates through the forward's graph, as torch's does."""

    def __init__(self, tensor: Tensor) -> None:
        self.recomputed: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.place = None
        if tensor.requires_grad:
            self.place = tensor if tensor.grad_fn is None else (tensor.grad_fn, tensor._output_nr)

    def value(self, key) -> Tensor:
        recomputed = self.recomputed[key]
        if self.place is None:
            return recomputed
        if isinstance(self.place, Tensor):  # a leaf: the recomputation ran on its very values
            return self.place
        node, output_nr = self.place
        return make_tensor(recomputed._data, True, node, output_nr)


class _StopRecomputation(Exception):
    """Raised by the recomputation's pack hook once every holder is filled (early stop)."""


class _OutsideBackward:
    """The key of an unpack outside any backward pass (each one recomputes)."""


class _Frame:
    """One non-reentrant checkpointed call: how to run it again, and its holders in saving order."""

    def __init__(self, recompute: Callable, early_stop: bool, metadata_fn: Callable, debug: bool) -> None:
        self.recompute = recompute
        self.early_stop = early_stop
        self.metadata_fn = metadata_fn
        self.debug = debug
        self.saved_args: list = []
        self.holders: list[weakref.ref] = []
        self.metadata: list = []
        self.counts: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # backward pass -> tensors recomputed
        self.forward_completed = False
        self.ignore_count_mismatch = False

    def save_inputs(self, args: tuple) -> None:
        """Save the tensor arguments as an op saves its inputs (through an enclosing checkpoint's hooks)."""
        self.saved_args = [(save_for_backward(arg), arg.requires_grad) if isinstance(arg, Tensor) else arg
                           for arg in args]

    def inputs(self) -> list:
        """The arguments again. A tensor that an enclosing checkpoint recomputed comes back detached: it
        requires grad again, as the input did, so that the recomputation saves what the forward saved."""
        inputs = []
        for arg in self.saved_args:
            if isinstance(arg, tuple) and isinstance(arg[0], SavedTensor):
                saved, requires_grad = arg
                arg = unpack_saved_tensor(saved, None)
                if requires_grad and not arg.requires_grad:
                    arg = arg.detach().requires_grad_(True)
            inputs.append(arg)
        return inputs

    def pack(self, tensor: Tensor) -> _Holder:
        holder = _Holder(tensor)
        self.holders.append(weakref.ref(holder))
        with _grad_mode.no_grad():
            self.metadata.append(self.metadata_fn(tensor))
        return holder

    def unpack(self, holder: _Holder) -> Tensor:
        key = GraphExecGroup._current or current_task() or _OutsideBackward()
        if key not in self.counts:
            try:
                self.recompute_for(key)
            except CheckpointError as error:
                if self.debug:
                    raise CheckpointError(DEBUG_HEADER + DEBUG_NO_TRACES + str(error)) from error
                raise
        return holder.value(key)

    def recompute_for(self, key) -> None:
        """Run the function again for the backward pass ``key``, filling the holders, and check what it saved."""
        self.counts[key] = 0
        try:
            with _Recomputation(self, key), _grad_mode.enable_grad():
                self.recompute(*self.inputs())
        except _StopRecomputation:
            pass
        self.check(key)

    def check(self, key) -> None:
        """The determinism check: as many tensors saved as in the forward, with the same metadata."""
        if self.ignore_count_mismatch:
            return
        if len(self.holders) != self.counts[key]:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward and "
                f"recomputation.\nNumber of tensors saved during forward: {len(self.holders)}\n"
                f"Number of tensors saved during recomputation: {self.counts[key]}.\n{DEBUG_TIP}")
        mismatched = ""
        for index, reference in enumerate(self.holders):
            holder = reference()
            if holder is None:
                continue
            recomputed = self.metadata_fn(holder.recomputed[key])
            if recomputed != self.metadata[index]:
                mismatched += (f"tensor at position {index}:\nsaved metadata: {self.metadata[index]}\n"
                               f"recomputed metadata: {recomputed}\n")
        if mismatched:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have different metadata than "
                f"during the forward pass.\n{mismatched}.\n{DEBUG_TIP}")


class _Recomputation(saved_tensors_hooks):
    """The hooks of a recomputation: each saved tensor, detached, fills the next holder."""

    def __init__(self, frame: _Frame, key) -> None:
        def pack(tensor):
            tensor = tensor.detach() if tensor.requires_grad else tensor
            index = frame.counts[key]
            frame.counts[key] = index + 1
            if index >= len(frame.holders):
                if not frame.forward_completed:  # a backward inside the checkpointed function
                    frame.ignore_count_mismatch = True
                    return tensor
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors during recomputation "
                                      f"than during the original forward pass.\n{DEBUG_TIP}")
            holder = frame.holders[index]()
            if holder is not None:
                holder.recomputed[key] = tensor
            if frame.early_stop and index + 1 == len(frame.holders):
                raise _StopRecomputation
            return tensor

        super().__init__(pack, lambda tensor: tensor)


def _checkpoint_without_reentrant(function, preserve_rng_state, context_fn, determinism_check, debug, early_stop,
                                  args, kwargs):
    debug = _debug_enabled if _debug_enabled is not None else debug
    if debug and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in DETERMINISM_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(DETERMINISM_CHECKS)}, but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    rng_state = default_generator.get_state() if preserve_rng_state else None

    def recompute(*inputs):
        with _replayed_rng(rng_state), recompute_context:
            function(*inputs, **kwargs)

    if not _grad_mode.is_grad_enabled():
        return function(*args, **kwargs)
    stop_early = _early_stop_enabled if _early_stop_enabled is not None else early_stop
    frame = _Frame(recompute, stop_early, DETERMINISM_CHECKS[determinism_check], debug)
    frame.save_inputs(args)
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        output = function(*args, **kwargs)
    frame.forward_completed = True
    return output


# -- the public entry points ---------------------------------------------------------------------------
def checkpoint(function, *args, use_reentrant: bool | None = None, context_fn: Callable = noop_context_fn,
               determinism_check: str = "default", debug: bool = False, early_stop: bool = True, **kwargs):
    """Run ``function(*args, **kwargs)`` without keeping what it saves for backward; backward runs it again."""
    if use_reentrant is None:
        warnings.warn(USE_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, debug, early_stop,
                                         args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (a Sequential or a list) in order, checkpointing every segment but the last."""
    from ..nn import Sequential

    if use_reentrant is None:
        warnings.warn(SEQUENTIAL_USE_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run(start: int, end: int):
        def forward(value):
            for index in range(start, end + 1):
                value = functions[index](value)
            return value
        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)


# -- selective checkpointing (see the module's docstring) ---------------------------------------------------
class SelectiveCheckpointContext:
    """What a selective-checkpoint policy is given about the op it decides on."""

    def __init__(self, *, is_recompute, op_output=None) -> None:
        self.is_recompute = is_recompute
        self.op_output = op_output


class CheckpointPolicy(enum.Enum):
    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


SAVING = (CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_SAVE)
# torch's members that myautograd has: the detaches checkpointing itself runs, and the metadata queries
SAC_IGNORED_OPS: set = {getattr(aten, name).default for name in ("detach", "size", "stride", "dim", "numel",
                                                                  "storage_offset", "is_contiguous")}
SAC_MISMATCH = ("This can happen if the operations in the checkpointed region are nondeterministic or depend on "
                "global state that changed between forward and backward.")
_RECOMPUTE = object()  # a cache entry: the op runs again
_CONSUMED = object()  # a cache entry: its value was used by a recomputation


class _Cached:
    """An op's output kept by the forward (detached), and its version then: a later in-place change is refused."""

    def __init__(self, output) -> None:
        self.value = output.detach() if isinstance(output, Tensor) else output
        self.version = output._version if isinstance(output, Tensor) else None

    def get(self, allow_mutation: bool):
        if self.version is not None and not allow_mutation and self.value._version != self.version:
            raise RuntimeError("Tensor cached during selective activation checkpoint has been mutated")
        return self.value


class _CachingMode(DispatchMode):
    """The forward's mode: runs each op, asks the policy, keeps the outputs it says to save."""

    def __init__(self, policy_fn: Callable, storage: dict) -> None:
        self.policy_fn = policy_fn
        self.storage = storage
        self.counts: dict = collections.defaultdict(int)

    def dispatch(self, op, run, args, kwargs):
        if op in SAC_IGNORED_OPS:
            return run()
        output = run()
        index = self.counts[op]
        self.counts[op] += 1
        policy = self.policy_fn(SelectiveCheckpointContext(is_recompute=False, op_output=output), op, *args, **kwargs)
        if isinstance(policy, bool):
            policy = CheckpointPolicy.MUST_SAVE if policy else CheckpointPolicy.PREFER_RECOMPUTE
        outputs = output if isinstance(output, tuple) else (output,)
        self.storage[op][index] = [_Cached(out) for out in outputs] if policy in SAVING else _RECOMPUTE
        return output


class _CachedMode(DispatchMode):
    """The recomputation's mode: an op whose output the forward kept gives that output (once per region);
    the others run again. myautograd's ops compute and record in one step, so a cached op still runs: its
    node is recorded and saves its inputs, as torch's autograd (above its dispatch modes) records one;
    then its fresh output takes the cached values."""

    def __init__(self, storage: dict, allow_cache_entry_mutation: bool) -> None:
        self.storage = storage
        self.allow_mutation = allow_cache_entry_mutation
        self.counts: dict = collections.defaultdict(int)

    def __enter__(self):
        self.counts.clear()  # a second backward pass through a retained graph finds the entries consumed
        return super().__enter__()

    def dispatch(self, op, run, args, kwargs):
        if op in SAC_IGNORED_OPS:
            return run()
        index = self.counts[op]
        self.counts[op] += 1
        if op not in self.storage:
            raise RuntimeError(f"{op} encountered during backward but not found in storage. {SAC_MISMATCH}")
        entries = self.storage[op]
        if index not in entries:
            raise RuntimeError(f"{op} invocation index {index} encountered during backward but not found in "
                               f"storage. {SAC_MISMATCH}")
        entry = entries[index]
        if entry is _CONSUMED:
            raise RuntimeError("Trying to backward an extra time. You are only allowed to backward once on any "
                               "region computed under selective activation checkpoint.")
        if entry is _RECOMPUTE:
            return run()
        entries[index] = _CONSUMED
        cached = [kept.get(self.allow_mutation) for kept in entry]
        output = run()
        for out, value in zip(output if isinstance(output, tuple) else (output,), cached):
            fresh = isinstance(out, Tensor) and out._base is None and not any(out is arg for arg in args)
            if fresh and isinstance(value, Tensor):
                out._data = value._data  # a fresh output (not a view, not an input changed in place)
        return output


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """The two contexts of selective checkpointing for ``checkpoint(context_fn=...)``: the forward's, which
    calls the policy on each op and keeps the outputs of the ops to save, and the recomputation's, which
    gives those outputs back instead of computing them again. A list of ops saves those ops."""
    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            if not isinstance(op, OpOverload):
                hint = ("Please update the OpOverloadPacket to a specific OpOverload.For example, if you have "
                        "`torch.ops.aten.mm`, change it to `torch.ops.aten.mm.default`."
                        if isinstance(op, OpOverloadPacket) else "")
                raise ValueError(f"Expected op in `op_list` to be an OpOverload but got: {op} of type {type(op)}. "
                                 f"{hint}")
        ops = policy_fn_or_list

        def policy_fn(ctx, op, *args, **kwargs):
            return CheckpointPolicy.MUST_SAVE if op in ops else CheckpointPolicy.PREFER_RECOMPUTE
    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    storage: dict = collections.defaultdict(dict)
    return _CachingMode(policy_fn, storage), _CachedMode(storage, allow_cache_entry_mutation)


class GraphExecGroup:
    """Backward passes under one instance share one recomputation of each non-reentrant checkpoint."""

    _current: GraphExecGroup | None = None

    def __enter__(self) -> GraphExecGroup:
        if GraphExecGroup._current is not None:
            raise RuntimeError(f"GraphExecGroup contexts cannot be nested. Already inside group {GraphExecGroup._current}")
        GraphExecGroup._current = self
        return self

    def __exit__(self, *exc) -> None:
        GraphExecGroup._current = None
