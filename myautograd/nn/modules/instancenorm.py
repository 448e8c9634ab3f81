"""``InstanceNorm1d``, ``InstanceNorm2d`` and ``InstanceNorm3d``: each sample's channels normalized
over their own spatial elements. They hold what ``BatchNorm`` holds (no weight or bias unless
``affine``, running statistics only with ``track_running_stats``, both off by default), and use
the running statistics only in eval mode with ``track_running_stats``. An input without its batch
dim is normalized as a batch of one. torch's checks, warning and ``repr``."""

from __future__ import annotations

import warnings

from .. import functional as F
from .batchnorm import _BatchNorm


class _InstanceNorm(_BatchNorm):
    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _normalized(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               0.0 if self.momentum is None else self.momentum, self.eps)

    def forward(self, input):
        self._check_input_dim(input)
        unbatched_rank = self._ranks[0]
        feature_dim = input.dim() - unbatched_rank
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          UserWarning, stacklevel=2)
        if input.dim() == unbatched_rank:
            return self._normalized(input.unsqueeze(0)).squeeze(0)
        return self._normalized(input)


class InstanceNorm1d(_InstanceNorm):
    _ranks = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    _ranks = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    _ranks = (4, 5)


__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]
