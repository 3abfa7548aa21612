"""Assert cases with the tests and the program in two processes (the tamper-proof assert harness).

The run forks before the program starts. The program's process (S) never holds the test code, the
pass token or the result channel; the tests' process (T) never runs program code: every name the tests
use that the program defined is a proxy, and calling it sends the arguments to S and brings the result
back *as data* (plain lists, tuples, dicts, numbers, strings; subclasses reduced to their base type), so
an object whose ``==`` always answers True cannot pass a comparison made in T. Objects that are not data
(instances of the program's classes, generators) stay in S behind handles, and what T does with them
(call, attribute, item, comparison, iteration) is asked of S. T is not dumpable, so S cannot read it.
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

OPERATORS = {"eq", "ne", "lt", "le", "gt", "ge", "add", "sub", "mul", "truediv", "floordiv", "mod", "contains"}


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


for _name in OPERATORS - {"contains", "eq", "ne"}:
    setattr(Remote, f"__{_name}__", lambda self, other, _name=_name: self._operator(_name, other))
Remote.__contains__ = lambda self, item: self._operator("contains", item)  # type: ignore[method-assign]


def _equal(self: Remote, other: Any) -> Any:
    """Only two of the program's own objects compare by the program's ``==``: against the tests' data, an
    object that is not data is never equal (so ``__eq__`` returning True for anything does not pass)."""
    return self._operator("eq", other) if isinstance(other, Remote) else NotImplemented


Remote.__eq__ = _equal  # type: ignore[method-assign,assignment]
Remote.__ne__ = lambda self, other: (  # type: ignore[method-assign,assignment]
    self._operator("ne", other) if isinstance(other, Remote) else NotImplemented)


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


def tests_namespace(sock: socket.socket) -> tuple[Channel, dict[str, Any]]:
    """T: the namespace the tests run in: the program's names, as data or as proxies."""
    channel = Channel(sock)
    names = channel.ask("globals")
    return channel, {**names, "__builtins__": builtins, "__name__": "__main__"}


def fork_program(sock_pair: tuple[socket.socket, socket.socket], close_fds: tuple[int, ...]) -> int:
    pid = os.fork()
    if pid == 0:
        sock_pair[0].close()
        for fd in close_fds:
            os.close(fd)
    else:
        sock_pair[1].close()
    return pid
