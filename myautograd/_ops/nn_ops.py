"""Neural-network ops behind ``myautograd.nn.functional`` that are neither activations, losses,
convolutions, pooling nor normalization: dropout, embedding, one_hot, bilinear, cosine_similarity
and normalize, each recording the node torch records.
"""

from __future__ import annotations

import numpy as np

from .. import _backend
from .._autograd.record import recorded
from .._tensor import make_tensor
from .creation import default_generator
from .derivatives import NODES


def dropout(input, p=0.5, training=True, inplace=False):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return input * 0
    uniform = _backend.to_device(default_generator.rng.random(input._data.shape), input.device)
    keep = (uniform >= p).astype(input._data.dtype)
    scale = 1.0 / (1 - p)
    if _backend.is_cpu_array(input._data):
        # torch's CPU kernel: the input times a noise tensor of 0 and 1 / (1 - p), MulBackward0
        return input * make_tensor(keep * np.asarray(scale, dtype=keep.dtype))
    # torch's fused CUDA kernel: NativeDropoutBackward0
    return recorded(NODES["NativeDropoutBackward0"], input._data * keep * scale, (input,),
                     {"mask": make_tensor(keep), "scale": scale})
