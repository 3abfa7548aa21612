"""The proxies: ``Remote``, an object of the program's process seen from the tests' process, and
``Callback``, a callable of the tests seen from the program's process.

A Remote's operators work only between two Remotes, so an ``__eq__`` that always answers True meets
no test data; what it answers to ``bool``, ``len``, ``repr`` and iteration is checked to be of the
right type. A Callback can be called and nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import ProgramError

if TYPE_CHECKING:
    from .peer import Peer

OPERATORS = {"eq", "ne", "lt", "le", "gt", "ge", "add", "sub", "mul", "truediv", "floordiv", "mod"}


class Remote:
    """An object of the program's process, seen from the tests' process. Everything it answers is
    decoded as data or another Remote; what Python wants of a given type (``bool``, ``len``, ``repr``,
    iteration) is checked to be of it."""

    __slots__ = ("channel", "ref")

    def __init__(self, channel: Peer, ref: int) -> None:
        object.__setattr__(self, "channel", channel)
        object.__setattr__(self, "ref", ref)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        channel = self.channel
        return channel.ask("call", target=self.ref, args=channel.encode(list(args)), kwargs=channel.encode(kwargs))

    def __getattr__(self, name: str) -> Any:
        return self.channel.ask("getattr", target=self.ref, name=name)

    def __setattr__(self, name: str, value: Any) -> None:
        self.channel.ask("setattr", target=self.ref, name=name, value=self.channel.encode(value))

    def __getitem__(self, key: Any) -> Any:
        return self.channel.ask("getitem", target=self.ref, key=self.channel.encode(key))

    def __setitem__(self, key: Any, value: Any) -> None:
        self.channel.ask("setitem", target=self.ref, key=self.channel.encode(key), value=self.channel.encode(value))

    def __iter__(self) -> Any:
        return iter(self._typed("list", list))

    def __len__(self) -> int:
        size = self._typed("len", int)
        if size < 0:
            raise ProgramError("the program's object answered len() with a negative number")
        return size

    def __contains__(self, item: Any) -> bool:
        # ``x in obj`` looks through the items the object gives, as data, not through its own ``__contains__``
        return item in list(self)

    def __bool__(self) -> bool:
        return self._typed("bool", bool)

    def __repr__(self) -> str:
        return self._typed("repr", str)

    def __hash__(self) -> int:  # local: S is never asked, so a set or dict of Remotes behaves
        return hash((id(self.channel), self.ref))

    def _typed(self, op: str, kind: type) -> Any:
        value = self.channel.ask(op, target=self.ref)
        if type(value) is not kind:
            raise ProgramError(f"the program's object answered {op} with a {type(value).__name__}, "
                               f"not a {kind.__name__}")
        return value

    def _operator(self, name: str, other: Any) -> Any:
        return self.channel.ask("operator", target=self.ref, name=name, other=self.channel.encode(other))


def _between_own(name: str) -> Any:
    """Only two of the program's own objects meet in the program's operators: against the tests' data, an
    object that is not data is never equal and has no order or arithmetic (so an ``__eq__`` that always
    answers True, or a ``__sub__`` that always answers 0, does not pass ``abs(f(x) - 5.0) < 1e-9``)."""
    def operator_(self: Remote, other: Any) -> Any:
        return self._operator(name, other) if isinstance(other, Remote) else NotImplemented
    return operator_


for _name in OPERATORS:
    setattr(Remote, f"__{_name}__", _between_own(_name))


class Callback:
    """A callable of the tests, seen from the program's process: it can be called, nothing else. (T
    refuses any other request on it; this class merely offers nothing else.)"""

    __slots__ = ("_channel", "_ref")

    def __init__(self, channel: Peer, ref: int) -> None:
        self._channel = channel
        self._ref = ref

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        channel = self._channel
        return channel.ask("call", target=self._ref, args=channel.encode(list(args)), kwargs=channel.encode(kwargs))

    def __repr__(self) -> str:
        return "<a callable of the tests>"
