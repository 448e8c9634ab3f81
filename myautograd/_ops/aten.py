"""torch's operator names: ``torch.ops.aten.<op>.<overload>`` objects, and which aten overload each op of
myautograd reports to a dispatch mode (``dispatch.py``).

``aten.mm`` is an ``OpOverloadPacket`` and ``aten.mm.default`` an ``OpOverload``; both are made on first
use, one object per name, so they compare and hash by identity as torch's do (a policy may test
``op == aten.mm.default`` or ``op in {...}``). myautograd keeps no schemas: any overload name gives an
object, and calling one is refused.

``OVERLOADS`` maps the name of a Tensor method, ``torch.<name>`` function or ``torch.nn.functional``
function to the overload torch's dispatcher sees when a script calls it: a string, or a function of the
call's arguments where torch picks the overload by them (``sum()`` is ``sum.default``, ``sum(0)``
``sum.dim_IntList``). The names are torch's for the ops listed. Where torch decomposes an op into several
(``F.linear`` is ``t`` then ``addmm``; ``matmul`` on batches is ``view``/``bmm``), the entry names the op
that does the work: a best guess. Ops not listed report nothing.
"""

from __future__ import annotations

from numbers import Number


class OpOverload:
    """One overload of an operator, e.g. ``aten.mm.default``."""

    def __init__(self, packet: OpOverloadPacket, overload: str) -> None:
        self.overloadpacket = packet
        self._overloadname = overload
        self.namespace = packet.namespace
        self.__name__ = f"{packet.__name__}.{overload}"

    def name(self) -> str:
        """``aten::mm`` for the default overload, ``aten::bernoulli_.float`` for another."""
        suffix = "" if self._overloadname == "default" else f".{self._overloadname}"
        return f"{self.namespace}::{self.overloadpacket.__name__}{suffix}"

    def __str__(self) -> str:
        return f"{self.namespace}.{self.__name__}"

    def __repr__(self) -> str:
        return f"<OpOverload(op='{self.namespace}.{self.overloadpacket.__name__}', overload='{self._overloadname}')>"

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(f"myautograd cannot call {self} directly: call the op through torch's API")


class OpOverloadPacket:
    """All the overloads of one operator, e.g. ``aten.mm``; ``.default``, ``.Tensor``... made on demand."""

    def __init__(self, namespace: str, name: str) -> None:
        self.namespace = namespace
        self.__name__ = name
        self._overloads: dict[str, OpOverload] = {}

    def __getattr__(self, overload: str) -> OpOverload:
        if overload.startswith("__"):
            raise AttributeError(overload)
        if overload not in self._overloads:
            self._overloads[overload] = OpOverload(self, overload)
        return self._overloads[overload]

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self.namespace}.{self.__name__}')>"

    def __str__(self) -> str:
        return f"{self.namespace}.{self.__name__}"


class OpNamespace:
    """``torch.ops.aten``: its packets by name, made on demand."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._packets: dict[str, OpOverloadPacket] = {}

    def __getattr__(self, op: str) -> OpOverloadPacket:
        if op.startswith("__"):
            raise AttributeError(op)
        if op not in self._packets:
            self._packets[op] = OpOverloadPacket(self.name, op)
        return self._packets[op]

    def __repr__(self) -> str:
        return f"<module 'torch.ops.{self.name}' from 'torch.ops'>"


aten = OpNamespace("aten")
prim = OpNamespace("prim")


def overload(qualified: str) -> OpOverload:
    """``"mm.default"`` -> ``aten.mm.default``."""
    op, name = qualified.split(".")
    return getattr(getattr(aten, op), name)


# -- which overload each op reports ------------------------------------------------------------------------
def _with_dims(without: str, with_dims: str):
    """A reduction: ``without`` for the whole tensor, ``with_dims`` when a dim is given."""
    plain, by_dim = overload(without), overload(with_dims)

    def pick(args, kwargs):
        given = len(args) > 1 and args[1] is not None or kwargs.get("dim") is not None
        return by_dim if given else plain
    return pick


def _scalar_or_tensor(scalar: str, tensor: str):
    """An op whose second operand picks the overload (a Python number or a tensor)."""
    by_scalar, by_tensor = overload(scalar), overload(tensor)

    def pick(args, kwargs):
        other = args[1] if len(args) > 1 else next(iter(kwargs.values()), None)
        return by_scalar if isinstance(other, Number) else by_tensor
    return pick


def _matmul(args, kwargs):
    """``matmul``/``@``: ``mm`` for two matrices (what torch's decomposition runs), else ``matmul``."""
    if len(args) == 2 and all(getattr(arg, "ndim", 0) == 2 for arg in args):
        return overload("mm.default")
    return overload("matmul.default")


_DEFAULT = ("abs", "addmm", "bmm", "cat", "clone", "cos", "detach", "empty_like", "exp", "expand", "gelu", "log",
            "mm", "mse_loss", "neg", "ones_like", "permute", "relu", "relu_", "rsqrt", "sigmoid", "sigmoid_", "silu",
            "sin", "sqrt", "squeeze", "stack", "t", "tanh", "tanh_", "unsqueeze", "view", "zero_", "zeros_like")
_TENSOR_OVERLOAD = {"add": "add", "sub": "sub", "mul": "mul", "div": "div", "add_": "add_", "sub_": "sub_",
                    "mul_": "mul_", "div_": "div_", "__add__": "add", "__radd__": "add", "__sub__": "sub",
                    "__mul__": "mul", "__rmul__": "mul", "__truediv__": "div", "__iadd__": "add_",
                    "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_"}

OVERLOADS: dict = {name: overload(f"{name}.default") for name in _DEFAULT}
OVERLOADS.update({name: overload(f"{op}.Tensor") for name, op in _TENSOR_OVERLOAD.items()})
OVERLOADS.update({
    "__neg__": overload("neg.default"),
    "__rsub__": overload("rsub.Scalar"),
    "__matmul__": _matmul,
    "matmul": _matmul,
    "reshape": overload("view.default"),  # a contiguous input: torch's reshape is a view
    "transpose": overload("transpose.int"),
    "softmax": overload("_softmax.default"),
    "log_softmax": overload("_log_softmax.default"),
    "linear": overload("addmm.default"),
    "layer_norm": overload("native_layer_norm.default"),
    "conv2d": overload("convolution.default"),
    "fill_": overload("fill_.Scalar"),
    "sum": _with_dims("sum.default", "sum.dim_IntList"),
    "mean": _with_dims("mean.default", "mean.dim"),
    "pow": _scalar_or_tensor("pow.Tensor_Scalar", "pow.Tensor_Tensor"),
    "__pow__": _scalar_or_tensor("pow.Tensor_Scalar", "pow.Tensor_Tensor"),
})
