"""Not broken, only rounded differently: ``exp`` returns the next float above torch's result (one
unit in the last place, as NumPy's ``expf`` does now and then). A program that amplifies it
(``sin`` of a large ``exp``) differs beyond any fixed tolerance; the fuzzer must judge that
difference ill-conditioned (``conformance.fuzz.conditioning``), not a finding."""

from ._fault import exports as _exports


def _install(torch):
    plain = torch.exp
    method = torch.Tensor.exp

    def rounded_up(result):
        with torch.no_grad():
            bumped = torch.nextafter(result, torch.full_like(result, float("inf")))
        return result + (bumped - result).detach()

    torch.exp = lambda input, *args, **kwargs: rounded_up(plain(input, *args, **kwargs))
    torch.Tensor.exp = lambda self: rounded_up(method(self))


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
