"""toygrad: a toy scalar autograd engine with names of its own, the engine of the worked example in
``docs/writing-an-adapter.md`` (its adapter is ``toygrad_adapter.py``).

A ``Number`` holds a float (double precision). One made with ``tracked=True`` is differentiated: ``backprop()`` on a
result fills ``gradient`` (a ``Number``) of every tracked number it depends on, adding to what is
there. A result remembers its inputs and the derivative with respect to each (``inputs``) and the
name of the operation that made it (``operation``; ``None`` for a number made by hand).
"""

from __future__ import annotations

__version__ = "1.0"


class Number:
    precision = "double"  # every value is a Python float

    def __init__(self, value: float, tracked: bool = False) -> None:
        self.value = float(value)
        self.tracked = tracked
        self.gradient: Number | None = None
        self.inputs: tuple[tuple[Number, float], ...] = ()
        self.operation: str | None = None

    @staticmethod
    def _result(value: float, operation: str, inputs: tuple[tuple[Number, float], ...]) -> Number:
        out = Number(value, tracked=any(number.tracked for number, _ in inputs))
        if out.tracked:
            out.inputs, out.operation = inputs, operation
        return out

    @staticmethod
    def lift(value: Number | float) -> Number:
        return value if isinstance(value, Number) else Number(value)

    def plus(self, other: Number | float) -> Number:
        other = Number.lift(other)
        return Number._result(self.value + other.value, "plus", ((self, 1.0), (other, 1.0)))

    def times(self, other: Number | float) -> Number:
        other = Number.lift(other)
        return Number._result(self.value * other.value, "times", ((self, other.value), (other, self.value)))

    def power(self, exponent: float) -> Number:
        return Number._result(self.value ** exponent, "power", ((self, exponent * self.value ** (exponent - 1)),))

    def backprop(self) -> None:
        if not self.tracked:
            raise ValueError("backprop() of a number that is not tracked")
        order: list[Number] = []
        seen: set[int] = set()

        def visit(number: Number) -> None:
            if id(number) not in seen:
                seen.add(id(number))
                for parent, _ in number.inputs:
                    visit(parent)
                order.append(number)

        visit(self)
        upstream = {id(self): 1.0}
        for number in reversed(order):
            incoming = upstream.get(id(number), 0.0)
            if number.operation is None and number.tracked:
                previous = number.gradient.value if number.gradient is not None else 0.0
                number.gradient = Number(previous + incoming)
            for parent, derivative in number.inputs:
                upstream[id(parent)] = upstream.get(id(parent), 0.0) + incoming * derivative

    def __repr__(self) -> str:
        return f"Number({self.value}{', tracked' if self.tracked else ''})"
