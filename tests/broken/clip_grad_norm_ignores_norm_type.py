"""Broken: ``torch.nn.utils.clip_grad_norm_`` takes every norm to be the 2-norm, whatever ``norm_type`` says
(``get_total_norm`` and the other clipping functions are untouched)."""

import functools

from ._fault import exports as _exports


def _install(torch):
    original = torch.nn.utils.clip_grad_norm_

    @functools.wraps(original)
    def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
        return original(parameters, max_norm, 2.0, error_if_nonfinite, foreach)

    torch.nn.utils.clip_grad_norm_ = clip_grad_norm_


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
