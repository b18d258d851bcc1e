"""Linear forms: a number that remembers how it was made from the scenario's symbols.

The model computes every time as sums and differences of the mechanisms' closed forms (a one-way
delay, a serialization time ``8000 (bytes + o) / B``, a timer, a think time) and picks between
alternatives with ``max``. Run on plain floats it is fast; run on :class:`Lin` values it computes
the very same numbers and, beside each, the linear combination of basis terms that produced it.
``max`` then keeps the form of the bound that binds, so the final form is the active piece of the
piecewise-linear (max-plus) expression for the page load time: exact for this scenario and every
scenario that takes the same path. :mod:`latency_lab.analysis.symbolic` turns a form into a sympy expression.
"""

from __future__ import annotations

Number = int | float


class Lin:
    """A value ``v`` with its linear form ``c`` (basis key -> coefficient)."""

    __slots__ = ("c", "v")

    def __init__(self, v: float, c: dict[object, float]) -> None:
        self.v = v
        self.c = c

    @staticmethod
    def const(v: Number) -> Lin:
        return Lin(v, {"1": v} if v else {})

    def __add__(self, other: Lin | Number) -> Lin:
        if not isinstance(other, Lin):
            if not other:
                return self
            other = Lin.const(other)
        c = dict(self.c)
        for k, x in other.c.items():
            y = c.get(k, 0) + x
            if y:
                c[k] = y
            else:
                c.pop(k, None)
        return Lin(self.v + other.v, c)

    __radd__ = __add__

    def __neg__(self) -> Lin:
        return Lin(-self.v, {k: -x for k, x in self.c.items()})

    def __sub__(self, other: Lin | Number) -> Lin:
        if not isinstance(other, Lin):
            other = Lin.const(other)
        return self + (-other)

    def __rsub__(self, other: Number) -> Lin:
        return Lin.const(other) + (-self)

    def __mul__(self, k: Number) -> Lin:
        if isinstance(k, Lin):  # pragma: no cover - forms are linear by construction
            raise TypeError("a linear form can only be scaled by a number")
        return Lin(self.v * k, {key: x * k for key, x in self.c.items()} if k else {})

    __rmul__ = __mul__

    # Comparisons use the value only: the form follows whichever side is chosen.
    def __lt__(self, other: Lin | Number) -> bool:
        return self.v < (other.v if isinstance(other, Lin) else other)

    def __le__(self, other: Lin | Number) -> bool:
        return self.v <= (other.v if isinstance(other, Lin) else other)

    def __gt__(self, other: Lin | Number) -> bool:
        return self.v > (other.v if isinstance(other, Lin) else other)

    def __ge__(self, other: Lin | Number) -> bool:
        return self.v >= (other.v if isinstance(other, Lin) else other)

    def __float__(self) -> float:
        return float(self.v)

    def __int__(self) -> int:
        return int(self.v)

    def __repr__(self) -> str:
        return f"Lin({self.v!r}, {self.c!r})"


def value(x: Lin | Number) -> float:
    """The number behind a float or a :class:`Lin`."""
    return float(x.v) if isinstance(x, Lin) else float(x)
