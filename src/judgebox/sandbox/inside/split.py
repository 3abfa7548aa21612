"""Assert cases with the tests and the program in two processes (the tamper-proof assert harness).

The run forks before the program starts. The program's process (S) never holds the test code, the
pass token or the result channel; the tests' process (T) never runs program code: every name the tests
use that the program defined is a proxy, and calling it sends the arguments to S and brings the result
back *as data* (plain lists, tuples, dicts, numbers, strings; subclasses reduced to their base type), so
an object whose ``==`` always answers True cannot pass a comparison made in T (Fractions, Decimals, numpy
values, deques and dates are data too). Objects that are not data (instances of the program's classes,
generators) stay in S behind handles, and what T does with them (call, attribute, item, iteration) is
asked of S; their operators (``==``, ``<``, ``-``...) work only between two of them, never against the
tests' data. T is not dumpable, so S cannot read it.
Messages are length-prefixed JSON over a unix socketpair; either side may call back into the other
while it waits (the tests may pass a lambda to the program).
"""

from __future__ import annotations

import base64
import builtins
import importlib
import json
import operator
import os
import socket
import struct
import sys
from typing import Any

OPERATORS = {"eq", "ne", "lt", "le", "gt", "ge", "add", "sub", "mul", "truediv", "floordiv", "mod"}


class Channel:
    def __init__(self, sock: socket.socket, namespace: dict[str, Any] | None = None) -> None:
        self.sock = sock
        self.namespace = namespace or {}  # the program's names (program side only)
        self.kept: list[Any] = []  # our objects the other side holds handles to
        self.gone = False  # the other side has ended

    # -- values ---------------------------------------------------------------------------------------

    def encode(self, value: Any) -> Any:
        if value is None or type(value) is bool:  # bool cannot be subclassed
            return value
        if isinstance(value, int):
            return int.__int__(value)
        if isinstance(value, float):
            number = float.__float__(value)
            return number if number == number and abs(number) != float("inf") else {"x": repr(number)}
        if isinstance(value, str):
            return str.__str__(value)
        if isinstance(value, (bytes, bytearray)):
            return {"b": base64.b64encode(bytes(value)).decode()}
        if isinstance(value, complex):
            return {"c": [value.real, value.imag]}
        for kind, tag in ((tuple, "t"), (list, "l"), (set, "s"), (frozenset, "f")):
            if isinstance(value, kind):
                return {tag: [self.encode(item) for item in kind.__iter__(value)]}
        if isinstance(value, dict):
            return {"d": [[self.encode(k), self.encode(v)] for k, v in dict.items(value)]}
        library_value = _library_value(value)
        if library_value is not None:
            tag, body = library_value
            return {tag: self.encode(body) if tag in ("n", "dq") else body}
        if isinstance(value, Remote) and value.channel is self:
            return {"own": value.ref}
        if isinstance(value, type(sys)):
            return {"m": value.__name__}
        named = _importable_name(value)
        if named is not None:  # int, math.sqrt, collections.Counter: the other side has its own
            return {"g": named}
        self.kept.append(value)
        return {"ref": len(self.kept) - 1}

    def decode(self, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        (tag, body), = value.items()
        decoders = {"x": float, "c": lambda p: complex(*p),
                    "b": lambda text: base64.b64decode(text), "m": importlib.import_module,
                    "g": lambda named: _import(*named),
                    "t": lambda items: tuple(map(self.decode, items)), "l": lambda items: list(map(self.decode, items)),
                    "s": lambda items: set(map(self.decode, items)),
                    "f": lambda items: frozenset(map(self.decode, items)),
                    "d": lambda pairs: {self.decode(k): self.decode(v) for k, v in pairs},
                    "q": lambda pair: importlib.import_module("fractions").Fraction(*pair),
                    "dec": lambda text: importlib.import_module("decimal").Decimal(text),
                    "dq": lambda items: importlib.import_module("collections").deque(self.decode(items)),
                    "dt": lambda pair: getattr(importlib.import_module("datetime"), pair[0]).fromisoformat(pair[1]),
                    "td": lambda parts: importlib.import_module("datetime").timedelta(*parts),
                    "n": self.decode,  # a numpy value arrives as the plain data it holds
                    "ref": lambda ref: Remote(self, ref),  # the other side's object
                    "own": lambda ref: self.kept[ref]}  # one of ours, coming back
        return decoders[tag](body)

    # -- messages -------------------------------------------------------------------------------------

    def send(self, message: dict) -> None:
        data = json.dumps(message, allow_nan=False).encode()
        try:
            self.sock.sendall(struct.pack("!I", len(data)) + data)
        except OSError:
            self.gone = True
            raise

    def receive(self) -> dict:
        header = self._exactly(4)
        return json.loads(self._exactly(struct.unpack("!I", header)[0]))

    def _exactly(self, size: int) -> bytes:
        chunks, left = [], size
        while left:
            try:
                chunk = self.sock.recv(min(left, 1 << 20))
            except OSError:
                self.gone = True
                raise
            if not chunk:
                self.gone = True
                raise EOFError("the program's process has ended")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def ask(self, op: str, **fields: Any) -> Any:
        """Send a request and wait for its answer, serving the other side's requests meanwhile."""
        self.send({"op": op, **fields})
        while True:
            message = self.receive()
            if "op" in message:
                self.answer(message)
            elif "error" in message:
                raise _exception(*message["error"])
            else:
                return self.decode(message["value"])

    def answer(self, request: dict) -> None:
        try:
            value = self._perform(request)
            reply = {"value": self.encode(value)}
            self.send(reply)
        except (EOFError, OSError):
            raise
        except BaseException as exc:  # the program's failure travels to the tests as theirs
            self.send({"error": [type(exc).__name__, str(exc)[:2000]]})

    def _perform(self, request: dict) -> Any:
        op = request["op"]
        target = self.kept[request["target"]] if "target" in request else None
        if op == "call":
            return target(*self.decode(request["args"]), **self.decode(request["kwargs"]))
        if op == "getattr":
            return getattr(target, request["name"])
        if op == "getitem":
            return target[self.decode(request["key"])]
        if op == "setattr":
            return setattr(target, request["name"], self.decode(request["value"]))
        if op == "setitem":
            target[self.decode(request["key"])] = self.decode(request["value"])
            return None
        if op == "list":
            return list(target)
        if op == "len":
            return len(target)
        if op == "bool":
            return bool(target)
        if op == "repr":
            return repr(target)
        if op == "operator" and request["name"] in OPERATORS:
            return getattr(operator, request["name"])(target, self.decode(request["other"]))
        if op == "globals":
            return {name: value for name, value in self.namespace.items() if not name.startswith("__")}
        raise ValueError(f"unknown request {op!r}")


class Remote:
    """An object of the program's process, seen from the tests' process."""

    __slots__ = ("channel", "ref")

    def __init__(self, channel: Channel, ref: int) -> None:
        self.channel = channel
        self.ref = ref

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.channel.ask("call", target=self.ref, args=self.channel.encode(list(args)),
                                kwargs=self.channel.encode(kwargs))

    def __getattr__(self, name: str) -> Any:
        return self.channel.ask("getattr", target=self.ref, name=name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in Remote.__slots__:
            object.__setattr__(self, name, value)
        else:
            self.channel.ask("setattr", target=self.ref, name=name, value=self.channel.encode(value))

    def __getitem__(self, key: Any) -> Any:
        return self.channel.ask("getitem", target=self.ref, key=self.channel.encode(key))

    def __setitem__(self, key: Any, value: Any) -> None:
        self.channel.ask("setitem", target=self.ref, key=self.channel.encode(key), value=self.channel.encode(value))

    def __iter__(self) -> Any:
        return iter(self.channel.ask("list", target=self.ref))

    def __len__(self) -> int:
        return self.channel.ask("len", target=self.ref)

    def __bool__(self) -> bool:
        return self.channel.ask("bool", target=self.ref)

    def __repr__(self) -> str:
        return self.channel.ask("repr", target=self.ref)

    def __hash__(self) -> int:
        return hash((id(self.channel), self.ref))

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
# ``x in obj`` looks through the items the object gives, as data, not through its own ``__contains__``
Remote.__contains__ = lambda self, item: item in list(self)  # type: ignore[method-assign]


def _library_value(value: Any) -> tuple[str, Any] | None:
    """Values of the standard library and numpy that are data too (``Fraction(1, 2)``, ``Decimal``,
    ``np.int64(6)``, an ndarray, a deque, a date), as ``(tag, body)``; exact types only, so no subclass
    brings its own ``__eq__`` along. Their modules are looked up, never imported: a program that made
    such a value has imported its module."""
    kind, modules = type(value), sys.modules
    if "fractions" in modules and kind is modules["fractions"].Fraction:
        return "q", [value.numerator, value.denominator]
    if "decimal" in modules and kind is modules["decimal"].Decimal:
        return "dec", str(value)
    if kind is getattr(modules.get("collections"), "deque", None):
        return "dq", list(value)
    if "datetime" in modules and kind in (modules["datetime"].datetime, modules["datetime"].date,
                                          modules["datetime"].time):
        return "dt", [kind.__name__, value.isoformat()]
    if "datetime" in modules and kind is modules["datetime"].timedelta:
        return "td", [value.days, value.seconds, value.microseconds]
    numpy = modules.get("numpy")
    if numpy is not None and kind is numpy.ndarray:
        return "n", value.tolist()
    if numpy is not None and isinstance(value, numpy.generic) and type(value).__module__ == "numpy":
        return "n", value.item()
    return None


def _importable_name(value: Any) -> list[str] | None:
    """``[module, qualified name]`` of a class or function that both sides can import by name."""
    if not isinstance(value, (type, type(len), type(_import))):
        return None
    module, name = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(name, str) or module == "__main__" or "<" in name:
        return None
    try:
        return [module, name] if _import(module, name) is value else None
    except Exception:
        return None


def _import(module: str, name: str) -> Any:
    value: Any = importlib.import_module(module)
    for part in name.split("."):
        value = getattr(value, part)
    return value


def _exception(name: str, message: str) -> BaseException:
    kind = getattr(builtins, name, None)
    if isinstance(kind, type) and issubclass(kind, Exception):
        try:
            return kind(message)
        except Exception:  # an exception type whose constructor wants more
            pass
    return RuntimeError(f"{name}: {message}")


def program_side(sock: socket.socket, namespace: dict[str, Any]) -> None:
    """S: answer the tests' requests until they are done (EOF)."""
    channel = Channel(sock, namespace)
    try:
        while True:
            channel.answer(channel.receive())
    except (EOFError, OSError):
        return


def tests_namespace(channel: Channel, used: set[str] | None = None) -> dict[str, Any]:
    """T: the namespace the tests run in: the program's names, as data or as proxies.

    A name the program binds over a builtin or a standard module (``def set``, ``class math``) would
    let it answer for the expected side of a test too (``set(f(x)) == set([...])``). Such names are
    dropped, so the tests get the real ones, whenever the tests call a function of the program that is
    not such a name: then that function is the one under test. (A task whose function is named like a
    builtin, ``def sum(a, b)``, keeps it.)
    """
    names = channel.ask("globals")
    if used is not None:
        own = {name for name, value in names.items() if isinstance(value, Remote)}
        shadowing = {name for name in own if name in builtins.__dict__ or name in sys.stdlib_module_names}
        if (own - shadowing) & used:
            names = {name: value for name, value in names.items() if name not in shadowing}
    return {**names, "__builtins__": builtins, "__name__": "__main__"}


def names_used(code: Any) -> set[str]:
    """Every global or attribute name a code object (and the functions in it) refers to."""
    used, pending = set(), [code]
    while pending:
        current = pending.pop()
        used.update(current.co_names)
        pending.extend(c for c in current.co_consts if isinstance(c, type(code)))
    return used


def fork_program(sock_pair: tuple[socket.socket, socket.socket], close_fds: tuple[int, ...]) -> int:
    pid = os.fork()
    if pid == 0:
        sock_pair[0].close()
        for fd in set(close_fds) - {sock_pair[1].fileno()}:  # a free fixed number may be our own end now
            try:
                os.close(fd)
            except OSError:  # not open in this run (a call case has no tests fd)
                pass
    else:
        sock_pair[1].close()
    return pid
