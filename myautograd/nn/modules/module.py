"""``Module``: the base class of every layer, with torch's registration rules and printing.

Assigning a Parameter, a Module or (for a registered name) a buffer to an attribute registers it
in ``_parameters``, ``_modules`` or ``_buffers``; ``__getattr__`` finds them there. Traversals
(``named_parameters``, ``named_modules``, ...) visit the module itself first, then its children
in registration order, each object once. ``state_dict`` and ``load_state_dict`` use the same
dotted names and messages as torch; ``repr`` nests children two spaces deeper per level.
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from ..._grad_mode import no_grad
from ..._tensor import Tensor
from ...utils.hooks import RemovableHandle
from .._utils import typename
from ..parameter import Buffer, Parameter
from . import _module_hooks as hooks
from ._module_hooks import (  # noqa: F401  (torch.nn.modules.module's global hook functions)
    register_module_backward_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
)

_INTERNALS = ("_parameters", "_buffers", "_modules")


def _addindent(text: str, spaces: int) -> str:
    """Indent every line of ``text`` but the first by ``spaces`` spaces."""
    first, *rest = text.split("\n")
    if not rest:
        return text
    pad = " " * spaces
    return "\n".join([first] + [pad + line for line in rest])


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it did not find and the keys it did not use."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, unexpected_keys={self.unexpected_keys!r})"

    __str__ = __repr__


def _check_member_name(kind: str, name, owner: Module, table: dict) -> None:
    """torch's checks on a parameter or buffer name about to be registered."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
    if "." in name:
        raise KeyError(f"{kind} name can't contain \".\"")
    if name == "":
        raise KeyError(f"{kind} name can't be empty string \"\"")
    if hasattr(owner, name) and name not in table:
        raise KeyError(f"attribute '{name}' already exists")


def _add_hook(hooks: dict, hook: Callable, prepend: bool, *extras: dict) -> RemovableHandle:
    handle = RemovableHandle(hooks, extra_dict=extras or None)
    if prepend:
        rest = list(hooks.items())
        hooks.clear()
        hooks[handle.id] = hook
        hooks.update(rest)
    else:
        hooks[handle.id] = hook
    return handle


class Module:
    """Base class for all neural network modules."""

    T_destination = TypeVar("T_destination", bound=dict)
    _version = 1
    call_super_init = False
    training: bool

    def __init__(self, *args, **kwargs) -> None:
        if not self.call_super_init and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if not self.call_super_init and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} "
                            "were given")
        put = object.__setattr__
        put(self, "training", True)
        put(self, "_parameters", {})
        put(self, "_buffers", {})
        put(self, "_non_persistent_buffers_set", set())
        put(self, "_forward_hooks", OrderedDict())
        put(self, "_forward_hooks_with_kwargs", OrderedDict())
        put(self, "_forward_pre_hooks", OrderedDict())
        put(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        put(self, "_forward_hooks_always_called", OrderedDict())
        put(self, "_backward_hooks", OrderedDict())
        put(self, "_backward_pre_hooks", OrderedDict())
        put(self, "_is_full_backward_hook", None)
        put(self, "_modules", {})

    def forward(self, *input: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # -- registration ---------------------------------------------------------------------------------
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_member_name("buffer", name, self, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_member_name("parameter", name, self, self._parameters)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                             f"explicitly. To express '{name}' as a function of another Tensor, compute the value in "
                             "the forward() method.")
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f"module name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError("module name can't be empty string \"\"")
        self._modules[name] = module

    register_module = add_module

    def _forget(self, name: str, keep: str) -> None:
        """Drop ``name`` from the instance dict and from the registries other than ``keep`` (where
        it stays in place, so that reassigning a member keeps its position)."""
        self.__dict__.pop(name, None)
        for table in _INTERNALS:
            if table != keep:
                getattr(self, table).pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        modules = self.__dict__.get("_modules")
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, "_parameters")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, "_modules")
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = value
        elif isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        state = self.__dict__
        for table in _INTERNALS:
            members = state.get(table)
            if members is not None and name in members:
                return members[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        keys = list(dir(type(self))) + list(self.__dict__) + list(self._parameters) + list(self._modules) \
            + list(self._buffers)
        return sorted(key for key in keys if not key[0].isdigit())

    # -- traversal ------------------------------------------------------------------------------------
    def named_modules(self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True):
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def _named_members(self, table: str, prefix: str, recurse: bool, remove_duplicate: bool):
        seen: set[int] = set()
        owners = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for owner_prefix, owner in owners:
            for name, value in getattr(owner, table).items():
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield owner_prefix + ("." if owner_prefix else "") + name, value

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def get_submodule(self, target: str) -> Module:
        module = self
        for item in target.split(".") if target else []:
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    # -- modes and gradients --------------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for param in self.parameters():
            _clear_grad(param, set_to_none)

    def apply(self, fn: Callable[[Module], None]) -> Module:
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -- conversions ----------------------------------------------------------------------------------
    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                converted = fn(param)
            param.data = converted
            grad = param._grad
            if grad is not None:
                with no_grad():
                    grad.data = fn(grad)
        for name, buffer in self._buffers.items():
            if buffer is not None:
                self._buffers[name] = fn(buffer)
        return self

    def to(self, *args, **kwargs) -> Module:
        device, dtype = _parse_to(args, kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")

        def convert(t: Tensor) -> Tensor:
            target = dtype if dtype is not None and (t.is_floating_point() or t.is_complex()) else None
            options = {key: value for key, value in (("device", device), ("dtype", target)) if value is not None}
            return t.to(**options) if options else t

        return self._apply(convert)

    def _cast_floats(self, method: str) -> Module:
        return self._apply(lambda t: getattr(t, method)() if t.is_floating_point() else t)

    def float(self) -> Module:
        return self._cast_floats("float")

    def double(self) -> Module:
        return self._cast_floats("double")

    def half(self) -> Module:
        return self._cast_floats("half")

    def cpu(self) -> Module:
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None) -> Module:
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type) -> Module:
        return self._apply(lambda t: t.type(dst_type))

    # -- calling --------------------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        handle = _add_hook(self._forward_pre_hooks, hook, prepend, self._forward_pre_hooks_with_kwargs)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        handle = _add_hook(self._forward_hooks, hook, prepend, self._forward_hooks_with_kwargs,
                           self._forward_hooks_always_called)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return _add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        if self._is_full_backward_hook is False:
            raise RuntimeError(hooks.MIXED_HOOKS_MESSAGE)
        self._is_full_backward_hook = True
        return _add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        if self._is_full_backward_hook is True:
            raise RuntimeError(hooks.MIXED_HOOKS_MESSAGE)
        self._is_full_backward_hook = False
        return _add_hook(self._backward_hooks, hook, False)

    def _backward_hooks_by_kind(self) -> tuple[list, list]:
        """(full backward hooks, deprecated ones), the global ones first."""
        full, plain = [], []
        for full_kind, table in ((hooks.GLOBAL_HOOKS_ARE_FULL[0], hooks.GLOBAL_BACKWARD_HOOKS),
                                 (self._is_full_backward_hook, self._backward_hooks)):
            (full if full_kind else plain).extend(table.values())
        return full, plain

    def _call_impl(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or self._backward_pre_hooks
                or hooks.any_global_hooks()):
            return self.forward(*args, **kwargs)
        called = set()
        try:
            return hooks.call_with_hooks(self, args, kwargs, called)
        except Exception:
            hooks.run_always_called_hooks(self, args, kwargs, called)
            raise

    __call__ = _call_impl

    # -- state dict -----------------------------------------------------------------------------------
    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()

    def state_dict(self, *, destination=None, prefix: str = "", keep_vars: bool = False):
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = {"version": self._version}
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _local_state(self) -> dict:
        """The parameters and persistent buffers that ``state_dict`` saves for this module alone."""
        state = {name: param for name, param in self._parameters.items() if param is not None}
        state.update((name, buffer) for name, buffer in self._buffers.items()
                     if buffer is not None and name not in self._non_persistent_buffers_set)
        return state

    def _load_from_state_dict(self, state_dict: Mapping, prefix: str, missing: list, unexpected: list,
                              errors: list, assign: bool) -> None:
        local = self._local_state()
        for name, current in local.items():
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(value)}")
                continue
            if current.dim() == 0 and value.dim() == 1:
                value = value[0]
            if value.shape != current.shape:
                errors.append(f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, "
                              f"the shape in current model is {current.shape}.")
                continue
            try:
                with no_grad():
                    if assign:
                        if isinstance(current, Parameter):
                            value = Parameter(value, requires_grad=current.requires_grad)
                        setattr(self, name, value)
                    else:
                        current.copy_(value)
            except Exception as exc:  # noqa: BLE001 - torch reports any failure of the copy
                errors.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                              f"{current.size()} and whose dimensions in the checkpoint are {value.size()}, an "
                              f"exception occurred : {exc.args}.")
        for key in state_dict:
            if key.startswith(prefix):
                head = key[len(prefix):].split(".", 1)[0]
                if head not in self._modules and head not in local:
                    unexpected.append(key)

    def load_state_dict(self, state_dict: Mapping, strict: bool = True, assign: bool = False) -> _IncompatibleKeys:
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []

        def load(module: Module, local: Mapping, prefix: str) -> None:
            module._load_from_state_dict(local, prefix, missing, unexpected, errors, assign)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local.items() if k.startswith(child_prefix)}, child_prefix)

        load(self, OrderedDict(state_dict), "")
        if strict:
            if unexpected:
                errors.insert(0, f"Unexpected key(s) in state_dict: {_quoted(unexpected)}. ")
            if missing:
                errors.insert(0, f"Missing key(s) in state_dict: {_quoted(missing)}. ")
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__,
                                                                                     "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # -- printing -------------------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _addindent(repr(module), 2) for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        if not lines:
            return self._get_name() + "()"
        if len(extra_lines) == 1 and not child_lines:
            return f"{self._get_name()}({extra_lines[0]})"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


def _quoted(keys: list[str]) -> str:
    return ", ".join(f'"{key}"' for key in keys)


def _clear_grad(param: Tensor, set_to_none: bool) -> None:
    """torch's zero_grad on one tensor: drop the gradient, or detach it and fill it with zeros."""
    grad = param._grad
    if grad is None:
        return
    if set_to_none:
        param.grad = None
        return
    if grad.grad_fn is not None:
        grad.detach_()
    else:
        grad.requires_grad_(False)
    grad.zero_()


def _parse_to(args: tuple, kwargs: dict):
    """``(device, dtype)`` from the arguments of ``Module.to``: a device, a dtype, a tensor, or keywords."""
    from ..._device import as_device
    from ..._dtype import dtype as dtype_class

    device = kwargs.get("device")
    dtype = kwargs.get("dtype")
    for arg in args:
        if isinstance(arg, Tensor):
            device, dtype = arg.device, arg.dtype
        elif isinstance(arg, dtype_class):
            dtype = arg
        elif arg is not None and not isinstance(arg, bool):
            device = arg
    return (as_device(device) if device is not None else None), dtype


__all__ = ["Module"]
