"""The channel between the two processes: length-prefixed JSON over a unix socketpair, either side
free to call back into the other while it waits (the tests may pass a lambda to the program).

The program's process (S) answers every request of the tests' process (T) on its objects; T answers
only calls of the callbacks it passed, and checks every message of S before believing it.
"""

from __future__ import annotations

import builtins
import json
import operator
import socket
import struct
from typing import Any, cast

from .codec import Codec
from .directions import ProgramCodec, TestsCodec
from .errors import MAX_ERROR_TEXT, ProgramError, malformed
from .proxies import OPERATORS

MAX_MESSAGE = 256 << 20  # bytes of one message from S that T reads (a 4 GiB length prefix is refused, not
# allocated); the memory limit bounds what T can rebuild well before this


class Channel:
    """One end of the socket. ``Channel(sock)`` is the tests' end (T); ``Channel(sock, namespace)`` the
    program's (S), with the program's names. S answers every request on its objects; T answers only
    calls of its callbacks, and checks every message of S before believing it."""

    def __init__(self, sock: socket.socket, namespace: dict[str, Any] | None = None) -> None:
        self.sock = sock
        self.program = namespace is not None
        self.namespace = namespace if namespace is not None else {}
        self.codec: Codec = ProgramCodec(self) if self.program else TestsCodec(self)
        self.limit = None if self.program else MAX_MESSAGE
        self.gone = False  # the other side has ended
        self.broken = False  # the other side broke the protocol: nothing it sends can be trusted to line up

    # Kept for callers and tests that encode or decode through the channel.
    def encode(self, value: Any) -> Any:
        return self.codec.encode(value)

    def decode(self, value: Any) -> Any:
        return self.codec.decode(value)

    # -- messages

    def send(self, message: dict) -> None:
        data = json.dumps(message, allow_nan=False, separators=(",", ":")).encode()
        try:
            self.sock.sendall(struct.pack("!I", len(data)) + data)
        except OSError:
            self.gone = True
            raise

    def receive(self) -> Any:
        if self.broken:
            raise ProgramError("the program's process broke the protocol earlier")
        size, = struct.unpack("!I", self._exactly(4))
        if self.limit is not None and size > self.limit:
            self.broken = True
            raise ProgramError(f"the program's process sent a message of {size} bytes (at most {self.limit})")
        data = self._exactly(size)
        try:
            return json.loads(data)
        except (ValueError, RecursionError, MemoryError) as exc:  # not JSON, too deep, an int too long
            if self.program:
                raise
            self.broken = True
            raise malformed(f"not JSON ({type(exc).__name__})") from None

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

    def ask(self, op: str, raw: bool = False, **fields: Any) -> Any:
        """Send a request and wait for its answer, serving the other side's requests meanwhile."""
        self.send({"op": op, **fields})
        while True:
            message = self.receive()
            if type(message) is dict and "op" in message:
                self.answer(message)
            elif type(message) is dict and message.keys() == {"error"}:
                raise self.codec.exception(message["error"])
            elif type(message) is dict and message.keys() == {"value"}:
                return message["value"] if raw else self.codec.decode(message["value"])
            else:
                self.broken = not self.program
                raise malformed("neither a request, a value nor an error")

    def answer(self, request: dict) -> None:
        if self.program:
            self._answer_tests(request)
        else:
            self._answer_program(request)

    # -- S answers T

    def _answer_tests(self, request: dict) -> None:
        try:
            reply = {"value": self._perform(request)}
            self.send(reply)
        except (EOFError, OSError):
            raise
        except BaseException as exc:  # the program's failure travels to the tests as theirs
            try:
                message = str(exc)[:MAX_ERROR_TEXT]
            except BaseException:
                message = ""
            self.send({"error": [exception_name(exc), message]})

    def _perform(self, request: dict) -> Any:
        """One request of T, performed on the program's objects; the answer already encoded."""
        # only S answers T, and S's codec is a ProgramCodec (``self.program`` chose it in __init__)
        op, codec = request["op"], cast(ProgramCodec, self.codec)
        target: Any = codec.kept[request["target"]] if "target" in request else None
        if op == "globals":
            return {"globals": [[name, codec.encode_name(value)] for name, value in self.namespace.items()
                                if isinstance(name, str) and not name.startswith("__")]}
        if op == "call":
            value = target(*codec.decode(request["args"]), **codec.decode(request["kwargs"]))
        elif op == "getattr":
            value = getattr(target, request["name"])
        elif op == "getitem":
            value = target[codec.decode(request["key"])]
        elif op == "setattr":
            setattr(target, request["name"], codec.decode(request["value"]))
            value = None
        elif op == "setitem":
            target[codec.decode(request["key"])] = codec.decode(request["value"])
            value = None
        elif op == "list":
            value = list(target)
        elif op == "len":
            value = len(target)
        elif op == "bool":
            value = bool(target)
        elif op == "repr":
            value = repr(target)
        elif op == "operator" and request["name"] in OPERATORS:
            value = getattr(operator, request["name"])(target, codec.decode(request["other"]))
        else:
            raise ValueError(f"unknown request {op!r}")
        return codec.encode(value)

    # -- T answers S

    def _answer_program(self, request: dict) -> None:
        """A request of S while T waits: only ``call`` of a callback the tests passed, with data (or S's
        handles, or the tests' own callbacks) as arguments. A malformed request is raised here, in the
        tests; the callback's own failure goes back to S as the program's exception."""
        target, args, kwargs = self._callback_call(request)
        try:
            value = target(*args, **kwargs)
            reply = {"value": self.codec.encode(value)}
        except Exception as exc:
            try:
                message = str(exc)[:MAX_ERROR_TEXT]
            except Exception:
                message = ""
            reply = {"error": [exception_name(exc), message]}
        self.send(reply)

    def _callback_call(self, request: dict) -> tuple[Any, list, dict]:
        codec = self.codec
        if request.keys() != {"op", "target", "args", "kwargs"} or request["op"] != "call":
            self.broken = True
            raise ProgramError("the program's process asked the tests for something other than calling a "
                               "callable they passed it")
        index = request["target"]
        if type(index) is not int or not 0 <= index < len(codec.kept):
            self.broken = True
            raise malformed("a call of a callback the tests never passed")
        args, kwargs = codec.decode(request["args"]), codec.decode(request["kwargs"])
        if type(args) is not list or type(kwargs) is not dict or not all(type(k) is str for k in kwargs):
            raise malformed("call arguments that are not a list and a dict of str keys")
        return codec.kept[index], args, kwargs



def exception_name(exc: BaseException) -> str:
    """The builtin exception ``exc`` is (its nearest builtin base: a program's own ``class ValueError``
    is an Exception to the tests, as it is not the builtin)."""
    for kind in type(exc).__mro__:
        if getattr(builtins, kind.__name__, None) is kind:
            return kind.__name__
    return "Exception"
