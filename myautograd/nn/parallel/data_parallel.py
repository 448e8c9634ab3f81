"""``DataParallel``: torch splits a batch over several GPUs; myautograd runs it on one device.

Without CUDA (as torch does when it finds no accelerator) the wrapper only calls the module, and
``device_ids`` is empty. With CUDA, the module must already be on the first device, as torch
checks, and the inputs are moved there; the whole batch runs on that one device (no replicas,
so no scatter/gather). Parameters and the state dict live under ``module.``, as in torch.
"""

from __future__ import annotations

from ... import _backend
from ..._device import device as make_device
from ..._tensor import Tensor
from ..modules.module import Module


def _to_device(value, target):
    if isinstance(value, Tensor):
        return value.to(target)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_device(item, target) for item in value)
    if isinstance(value, dict):
        return {key: _to_device(item, target) for key, item in value.items()}
    return value


class DataParallel(Module):
    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.dim = dim
        if not _backend.cuda_available():
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(_backend.cuda_device_count()))
        self.device_ids = [getattr(d, "index", d) for d in device_ids]
        self.output_device = self.device_ids[0] if output_device is None else getattr(output_device, "index",
                                                                                       output_device)
        self.src_device_obj = make_device("cuda", self.device_ids[0])

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for tensor in list(self.module.parameters()) + list(self.module.buffers()):
            if tensor.device != self.src_device_obj:
                raise RuntimeError(f"module must have its parameters and buffers on device {self.src_device_obj} "
                                   f"(device_ids[0]) but found one of them on device: {tensor.device}")
        return self.module(*_to_device(inputs, self.src_device_obj), **_to_device(kwargs, self.src_device_obj))


__all__ = ["DataParallel"]
