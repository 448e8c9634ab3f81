"""Broken: ``torch.nn.functional.conv1d`` with ``padding='same'`` pads for the kernel's size alone, leaving
its dilation out (``k - 1`` in all where torch pads ``dilation * (k - 1)``); with dilation 1 it is torch's
own call, so the hand-written operator table (``op.conv1d.*``, 'same' with a kernel of 3) passes it;
op_db's sample with a kernel of 4 and dilation 2 (``opinfo.nn.functional.conv1d.default``) catches it."""

from ._fault import exports as _exports


def conv1d_ignoring_dilation(original, pad):
    """``original`` conv1d whose 'same' padding leaves the dilation out; ``pad`` is ``F.pad``."""

    def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
        if padding == "same" and dilation not in (1, (1,)):
            total = weight.shape[-1] - 1  # the planted bug: torch's is dilation * (kernel size - 1)
            input = pad(input, (total // 2, total - total // 2))
            padding = 0
        return original(input, weight, bias, stride, padding, dilation, groups)

    return conv1d


def _install(torch):
    functional = torch.nn.functional
    functional.conv1d = conv1d_ignoring_dilation(functional.conv1d, functional.pad)


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
