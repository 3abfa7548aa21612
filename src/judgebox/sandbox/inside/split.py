"""Assert and call cases with the tests and the program in two processes (the tamper-proof harness).

The run forks before the program starts. The program's process (S) never holds the test code, the
pass token or the result channel; the tests' process (T) never runs program code. Every name the tests
use that the program defined is a proxy (a ``Remote``); calling it sends the arguments to S and brings
the result back. T is not dumpable, so S cannot read it. S is the program's: it may have replaced every
line of this module on its side, so whatever S sends is an attacker's message, and T treats it so.

Three pieces, one idea each:

- **The codec** (``Codec``, ``TestsCodec``, ``ProgramCodec``): values as JSON. The two directions are
  not alike. From S to T only a *closed set of data types* exists (None, bool, int, float, str, bytes,
  bytearray, complex, tuple, list, set, frozenset, dict, range, dict views, Fraction, Decimal, deque,
  date/datetime/time/timedelta; numpy values arrive as the plain data they hold), rebuilt by T's own
  code from validated shapes; anything else of S's is a ``Remote`` handle. Nothing S sends is ever
  resolved by name, imported or run in T, and a malformed message is the program's failure: a
  ``ProgramError`` (an ordinary Exception) in the tests, never a pass and never a judge crash. From T to
  S the tests are trusted, so S may resolve names T sends (``int``, ``math.sqrt``), but *no object of T
  is ever reachable from S*: a callable of the tests crosses as a call-only callback, an iterator as
  the items it yields, and anything else that is not data makes the call fail in T with a TypeError.
- **The channel** (``Channel``): length-prefixed JSON over a unix socketpair; either side may call back
  into the other while it waits (the tests may pass a lambda to the program). S answers every request
  of T on its objects; T answers only calls of its callbacks.
- **The proxies**: ``Remote`` (in T, an object of S: its operators work only between two Remotes, so an
  ``__eq__`` that always answers True meets no test data; what it answers to ``bool``, ``len``,
  ``repr``, iteration is checked to be of the right type) and ``Callback`` (in S, a callable of T).

Exceptions from S arrive as the builtin exception they are (``ValueError`` stays ``ValueError``), but
never as one that T's own machinery takes for control flow: a StopIteration ending ``all(map(f, xs))``
early would pass the assert. Those become a ProgramError.
"""

from __future__ import annotations

import base64
import builtins
import importlib
import json
import operator
import os
import re
import socket
import struct
import sys
from typing import Any

OPERATORS = {"eq", "ne", "lt", "le", "gt", "ge", "add", "sub", "mul", "truediv", "floordiv", "mod"}
MAX_MESSAGE = 256 << 20  # bytes of one message from S that T reads (a 4 GiB length prefix is refused, not
# allocated); the memory limit bounds what T can rebuild well before this
MAX_DEPTH = 100  # nesting of one value from S (each level costs T two stack frames to rebuild)
MAX_HEX_DIGITS = 1 << 22  # of one int beyond 64 bits (16 Mbit), sent in hex: no str-digit limit applies
MAX_ITEMS = 1_000_000  # items of an iterator the tests pass to the program
MAX_ERROR_TEXT = 2000
INT_LIMIT = 1 << 63  # ints at least this large cross in hex (json's decimal parser has a digit limit)

# Exceptions that T's loops, generators and interpreter take for control flow, not for failure: from S
# they would end ``all(map(f, xs))`` early (a pass) or stop the tests as if they had exited.
CONTROL_FLOW = frozenset({"StopIteration", "StopAsyncIteration", "GeneratorExit", "KeyboardInterrupt",
                          "SystemExit"})
BUILTIN_EXCEPTIONS = {name: kind for name, kind in vars(builtins).items()
                      if isinstance(kind, type) and issubclass(kind, Exception) and name not in CONTROL_FLOW}
# Standard modules T gives the tests for a name the program bound to a module (see tests_namespace):
# these would do something on import, and no test needs them.
UNWANTED_MODULES = frozenset({"__main__", "antigravity", "this", "__hello__", "__phello__", "idlelib",
                              "turtle", "turtledemo", "tkinter", "webbrowser", "pydoc", "ensurepip", "venv"})
# Names tests use for a module the program imported (``import numpy as np``): bound to anything but a
# module, they are the program's stand-in for the module, as ``class math`` would be.
# The modules conventional aliases stand for: under such a name (or a standard module's own name) the tests
# get that module or nothing, so ``import numpy as math`` cannot hand the tests numpy's looser ``isclose``.
MODULE_ALIASES = {"np": "numpy", "pd": "pandas", "plt": "matplotlib.pyplot", "sp": "scipy", "nx": "networkx",
                  "tf": "tensorflow", "torch": "torch"}
_HEX = re.compile(r"-?[0-9a-f]+")
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


class ProgramError(Exception):
    """The program's process broke the protocol (a malformed or oversized message, a value of a type the
    tests do not accept), or raised an exception that must not keep its meaning in the tests' process
    (``StopIteration``, ``SystemExit``...). An ordinary failure of the tests, like any exception."""


def _malformed(what: str) -> ProgramError:
    return ProgramError(f"the program's process sent a malformed message: {what}")


# -- the codec ---------------------------------------------------------------------------------------------

class Codec:
    """Values as JSON: the data types both sides rebuild with their own code, and, for everything else,
    what the subclass says (``_encode_other``, ``_decode_other``).

    Untagged JSON: None, bool, int below 2**63, finite float, str. Everything else is ``{tag: body}``.
    Subclasses of the builtin types are reduced to their base (a str subclass with its own ``__eq__``
    crosses as a str); library types (Fraction, Decimal, deque, dates, numpy) cross only as their exact
    type, so no subclass brings its own ``__eq__`` along.
    """

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.kept: list[Any] = []  # our objects the other side holds handles to
        self._kept_index: dict[int, int] = {}  # id -> index, so a callable passed in a loop is kept once

    def keep(self, value: Any) -> int:
        index = self._kept_index.get(id(value))
        if index is None or self.kept[index] is not value:
            self.kept.append(value)
            index = self._kept_index[id(value)] = len(self.kept) - 1
        return index

    # -- encoding

    def encode(self, value: Any) -> Any:
        if value is None or type(value) is bool:  # bool cannot be subclassed
            return value
        if isinstance(value, int):
            return _plain_int(int.__int__(value))
        if isinstance(value, float):
            return _float(float.__float__(value))
        if isinstance(value, str):
            return str.__str__(value)
        if isinstance(value, (bytes, bytearray)):  # the buffer itself, not what a subclass's __bytes__ says
            return {"ba" if isinstance(value, bytearray) else "b": base64.b64encode(value).decode()}
        if isinstance(value, complex):
            number = complex.__complex__(value)
            return {"c": [_float(number.real), _float(number.imag)]}
        for kind, tag in ((tuple, "t"), (list, "l"), (set, "s"), (frozenset, "f")):
            if isinstance(value, kind):
                return {tag: [self.encode(item) for item in kind.__iter__(value)]}
        if isinstance(value, dict):
            return {"d": [[self.encode(k), self.encode(v)] for k, v in dict.items(value)]}
        kind = type(value)
        if kind is range:
            return {"r": [_plain_int(value.start), _plain_int(value.stop), _plain_int(value.step)]}
        if kind is _KEYS:
            return {"dk": [self.encode(item) for item in value]}
        if kind is _VALUES:
            return {"dv": [self.encode(item) for item in value]}
        if kind is _ITEMS:
            return {"di": [[self.encode(k), self.encode(v)] for k, v in value]}
        collections = sys.modules.get("collections")
        if collections is not None and kind is collections.deque:
            return {"dq": [[self.encode(item) for item in value], value.maxlen]}
        library_value = _library_value(value)
        if library_value is not None:
            tag, body = library_value
            return self.encode(body) if tag is None else {tag: body}
        return self._encode_other(value)

    def _encode_other(self, value: Any) -> Any:
        raise NotImplementedError

    # -- decoding

    def decode(self, value: Any) -> Any:
        """A value from the other side, every shape checked; a bad one is a ProgramError."""
        try:
            return self._decode(value, 0)
        except ProgramError:
            raise
        except (TypeError, ValueError, ArithmeticError, LookupError, RecursionError, MemoryError) as exc:
            # unhashable set items or keys, a zero denominator, a bad date: S chose them
            raise _malformed(f"{type(exc).__name__}: {exc}") from None

    def _decode(self, value: Any, depth: int) -> Any:
        kind = type(value)
        if value is None or kind is bool or kind is int or kind is float or kind is str:
            return value
        if kind is not dict or len(value) != 1:
            raise _malformed(f"a value of JSON type {kind.__name__}")
        if depth > MAX_DEPTH:
            raise _malformed(f"a value nested deeper than {MAX_DEPTH}")
        (tag, body), = value.items()
        rebuild = _DATA.get(tag)
        if rebuild is None:
            return self._decode_other(tag, body, depth)
        return rebuild(self, body, depth + 1)

    def _decode_other(self, tag: str, body: Any, depth: int) -> Any:
        raise NotImplementedError

    def items(self, body: Any, depth: int) -> list[Any]:
        if type(body) is not list:
            raise _malformed("items that are not a list")
        decoded = []
        for item in body:  # a loop, not a comprehension: one stack frame fewer per level of nesting
            decoded.append(self._decode(item, depth))
        return decoded

    def pairs(self, body: Any, depth: int) -> list[tuple[Any, Any]]:
        if type(body) is not list:
            raise _malformed("pairs that are not a list")
        decoded = []
        for pair in body:
            if type(pair) is not list or len(pair) != 2:
                raise _malformed("a pair that is not two values")
            decoded.append((self._decode(pair[0], depth), self._decode(pair[1], depth)))
        return decoded

    def integer(self, body: Any, depth: int) -> int:
        value = self._decode(body, depth)
        if type(value) is not int:
            raise _malformed(f"{type(value).__name__} where an int belongs")
        return value

    def exception(self, error: Any) -> Exception:
        """The exception a reply ``{"error": [name, message]}`` stands for, of the builtin kind it names;
        anything else, and the control-flow exceptions, a ProgramError."""
        if type(error) is not list or len(error) != 2 or type(error[0]) is not str or type(error[1]) is not str:
            return _malformed("an error that is not [name, message]")
        name, message = error[0][:100], error[1][:MAX_ERROR_TEXT]
        kind = BUILTIN_EXCEPTIONS.get(name)
        if kind is None:  # StopIteration and the like, an unknown name, a program's own exception class
            return ProgramError(f"the program raised {name}: {message}")
        for base in kind.__mro__:  # UnicodeDecodeError wants five arguments: then a UnicodeError
            if base in BUILTIN_EXCEPTIONS.values():
                try:
                    return base(message)
                except Exception:
                    continue
        return ProgramError(f"{name}: {message}")


def _float(number: float) -> Any:
    return number if number == number and abs(number) != float("inf") else {"x": repr(number)}


_KEYS, _VALUES, _ITEMS = type({}.keys()), type({}.values()), type({}.items())


def _library_value(value: Any) -> tuple[str | None, Any] | None:
    """Values of the standard library and numpy that are data too (a deque aside, which holds values
    of any kind), as ``(tag, body)`` (tag None: the body is the value as plain data: numpy's). Exact
    types only. Their modules are looked up, never
    imported: whoever made such a value has imported its module."""
    kind, modules = type(value), sys.modules
    if "fractions" in modules and kind is modules["fractions"].Fraction:
        return "q", [_plain_int(value.numerator), _plain_int(value.denominator)]
    if "decimal" in modules and kind is modules["decimal"].Decimal:
        return "dec", str(value)
    datetime = modules.get("datetime")
    if datetime is not None:
        if kind is datetime.datetime:
            return "datetime", value.isoformat()
        if kind is datetime.date:
            return "date", value.isoformat()
        if kind is datetime.time:
            return "time", value.isoformat()
        if kind is datetime.timedelta:
            return "td", [value.days, value.seconds, value.microseconds]
    numpy = modules.get("numpy")
    if numpy is not None and kind is numpy.ndarray:
        return None, value.tolist()
    if numpy is not None and isinstance(value, numpy.generic) and kind.__module__ == "numpy":
        return None, value.item()
    return None


def _plain_int(number: int) -> Any:
    return number if -INT_LIMIT < number < INT_LIMIT else {"i": format(number, "x")}


def _rebuild(kind: type) -> Any:
    return lambda codec, body, depth: kind(codec.items(body, depth))


def _big_int(codec: Codec, body: Any, depth: int) -> int:
    if type(body) is not str or len(body) > MAX_HEX_DIGITS or not _HEX.fullmatch(body):
        raise _malformed("a big int that is not hex digits")
    return int(body, 16)  # a power-of-two base: no str-digit limit, linear time


def _special_float(codec: Codec, body: Any, depth: int) -> float:
    if body not in ("nan", "inf", "-inf"):
        raise _malformed("a special float that is not nan or inf")
    return float(body)


def _complex(codec: Codec, body: Any, depth: int) -> complex:
    if type(body) is not list or len(body) != 2:
        raise _malformed("a complex that is not two parts")
    parts = [codec._decode(part, depth) for part in body]
    if not all(type(part) in (float, int) for part in parts):
        raise _malformed("a complex with parts that are not numbers")
    return complex(float(parts[0]), float(parts[1]))


def _bytes(kind: type) -> Any:
    def rebuild(codec: Codec, body: Any, depth: int) -> Any:
        if type(body) is not str:
            raise _malformed("bytes that are not base64 text")
        return kind(base64.b64decode(body, validate=True))
    return rebuild


def _fraction(codec: Codec, body: Any, depth: int) -> Any:
    if type(body) is not list or len(body) != 2:
        raise _malformed("a Fraction that is not two ints")
    from fractions import Fraction
    return Fraction(codec.integer(body[0], depth), codec.integer(body[1], depth))


def _decimal(codec: Codec, body: Any, depth: int) -> Any:
    if type(body) is not str:
        raise _malformed("a Decimal that is not text")
    from decimal import Decimal
    return Decimal(body)


def _deque(codec: Codec, body: Any, depth: int) -> Any:
    if type(body) is not list or len(body) != 2 or not (body[1] is None or type(body[1]) is int):
        raise _malformed("a deque that is not [items, maxlen]")
    from collections import deque
    return deque(codec.items(body[0], depth), body[1])


def _date(name: str) -> Any:
    def rebuild(codec: Codec, body: Any, depth: int) -> Any:
        if type(body) is not str or len(body) > 100:
            raise _malformed(f"a {name} that is not ISO text")
        import datetime
        return getattr(datetime, name).fromisoformat(body)  # name is one of ours, never the program's
    return rebuild


def _timedelta(codec: Codec, body: Any, depth: int) -> Any:
    if type(body) is not list or len(body) != 3 or not all(type(part) is int for part in body):
        raise _malformed("a timedelta that is not three ints")
    import datetime
    return datetime.timedelta(days=body[0], seconds=body[1], microseconds=body[2])


def _range(codec: Codec, body: Any, depth: int) -> range:
    if type(body) is not list or len(body) != 3:
        raise _malformed("a range that is not three ints")
    return range(*(codec.integer(part, depth) for part in body))


_DATA = {
    "i": _big_int, "x": _special_float, "c": _complex, "b": _bytes(bytes), "ba": _bytes(bytearray),
    "t": _rebuild(tuple), "l": _rebuild(list), "s": _rebuild(set), "f": _rebuild(frozenset),
    "d": lambda codec, body, depth: dict(codec.pairs(body, depth)),
    "r": _range,
    "dk": lambda codec, body, depth: dict.fromkeys(codec.items(body, depth)).keys(),
    "dv": lambda codec, body, depth: dict(enumerate(codec.items(body, depth))).values(),
    "di": lambda codec, body, depth: dict(codec.pairs(body, depth)).items(),
    "q": _fraction, "dec": _decimal, "dq": _deque,
    "date": _date("date"), "datetime": _date("datetime"), "time": _date("time"), "td": _timedelta,
}


class TestsCodec(Codec):
    """T's codec. Out (T to S): data; the program's own objects back as themselves; standard classes and
    functions (``int``, ``math.sqrt``) and modules by name, for S to take its own; a callable of the tests
    as a call-only callback; an iterator (a generator, ``map``, ``zip``...) as the items it yields, which
    S gets as an iterator over them. An iterator is made to give its items here, in T, because the only
    other way to hand it over would be a handle on a live object of the tests, which S could drive
    (``gi_frame``, ``send``, ``throw``). Anything else (an instance of a test class, a frame) is refused:
    the tests passed a value that cannot cross.

    In (S to T): the closed set of data, S's objects as Remotes, and the tests' own callbacks coming
    back. No name, module or code from S is resolved here."""

    def _encode_other(self, value: Any) -> Any:
        if isinstance(value, Remote) and value.channel is self.channel:
            return {"own": value.ref}
        if isinstance(value, type(sys)):
            return {"m": value.__name__}
        named = _importable_name(value)
        if named is not None:  # int, math.sqrt, collections.Counter: S imports its own
            return {"g": named}
        if callable(value):
            return {"cb": self.keep(value)}
        if _is_iterator(value):
            items = []
            for item in value:
                if len(items) == MAX_ITEMS:
                    raise TypeError(f"the tests passed the program an iterator of more than {MAX_ITEMS} items")
                items.append(self.encode(item))
            return {"it": items}
        raise TypeError(f"the tests passed the program a {type(value).__name__!r} object, which is not data "
                        "and cannot cross to the program's process")

    def _decode_other(self, tag: str, body: Any, depth: int) -> Any:
        if tag == "ref":
            if type(body) is not int or body < 0:
                raise _malformed("a handle that is not an index")
            return Remote(self.channel, body)
        if tag == "own":
            if type(body) is not int or not 0 <= body < len(self.kept):
                raise _malformed("a callback of the tests that they never passed")
            return self.kept[body]
        raise ProgramError(f"the program's process sent a value tagged {str(tag)[:40]!r}: only data and "
                           "handles cross to the tests")


class ProgramCodec(Codec):
    """S's codec. Out: data, or a handle on any other object (kept here). In: trusts T (T never sends
    S anything that is not data, a name of a standard object, a callback or one of S's own objects)."""

    def _encode_other(self, value: Any) -> Any:
        if isinstance(value, Callback) and value._channel is self.channel:
            return {"own": value._ref}
        return {"ref": self.keep(value)}

    def encode_name(self, value: Any) -> Any:
        """A global of the program for the tests' namespace: a module as its name (T decides whether to
        give the tests its own copy), anything else as a value."""
        if isinstance(value, type(sys)) and isinstance(getattr(value, "__name__", None), str):
            return {"m": value.__name__}
        return self.encode(value)

    def _decode_other(self, tag: str, body: Any, depth: int) -> Any:
        if tag == "own":
            return self.kept[body]
        if tag == "cb":
            return Callback(self.channel, body)
        if tag == "g":
            return _import(*body)
        if tag == "m":
            return importlib.import_module(body)
        if tag == "it":
            return iter(self.items(body, depth))
        raise ValueError(f"unknown tag {tag!r}")


def _is_iterator(value: Any) -> bool:
    try:
        return hasattr(type(value), "__next__") and iter(value) is value
    except Exception:
        return False


def _importable_name(value: Any) -> list[str] | None:
    """``[module, qualified name]`` of a class or function of T that S can import by name."""
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


def _exception_name(exc: BaseException) -> str:
    """The builtin exception ``exc`` is (its nearest builtin base: a program's own ``class ValueError``
    is an Exception to the tests, as it is not the builtin)."""
    for kind in type(exc).__mro__:
        if getattr(builtins, kind.__name__, None) is kind:
            return kind.__name__
    return "Exception"


# -- the channel -------------------------------------------------------------------------------------------

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
            raise _malformed(f"not JSON ({type(exc).__name__})") from None

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
                raise _malformed("neither a request, a value nor an error")

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
            self.send({"error": [_exception_name(exc), message]})

    def _perform(self, request: dict) -> Any:
        """One request of T, performed on the program's objects; the answer already encoded."""
        op, codec = request["op"], self.codec
        target = codec.kept[request["target"]] if "target" in request else None
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
            value = setattr(target, request["name"], codec.decode(request["value"]))
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
            reply = {"error": [_exception_name(exc), message]}
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
            raise _malformed("a call of a callback the tests never passed")
        args, kwargs = codec.decode(request["args"]), codec.decode(request["kwargs"])
        if type(args) is not list or type(kwargs) is not dict or not all(type(k) is str for k in kwargs):
            raise _malformed("call arguments that are not a list and a dict of str keys")
        return codec.kept[index], args, kwargs


# -- the proxies -------------------------------------------------------------------------------------------

class Remote:
    """An object of the program's process, seen from the tests' process. Everything it answers is
    decoded as data or another Remote; what Python wants of a given type (``bool``, ``len``, ``repr``,
    iteration) is checked to be of it."""

    __slots__ = ("channel", "ref")

    def __init__(self, channel: Channel, ref: int) -> None:
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
# ``x in obj`` looks through the items the object gives, as data, not through its own ``__contains__``
Remote.__contains__ = lambda self, item: item in list(self)  # type: ignore[method-assign]


class Callback:
    """A callable of the tests, seen from the program's process: it can be called, nothing else. (T
    refuses any other request on it; this class merely offers nothing else.)"""

    __slots__ = ("_channel", "_ref")

    def __init__(self, channel: Channel, ref: int) -> None:
        self._channel = channel
        self._ref = ref

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        channel = self._channel
        return channel.ask("call", target=self._ref, args=channel.encode(list(args)), kwargs=channel.encode(kwargs))

    def __repr__(self) -> str:
        return "<a callable of the tests>"


# -- the two sides -----------------------------------------------------------------------------------------

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

    A name the program bound to a module (``import math``, ``import numpy as np``) gives the tests T's
    own copy of that module when it is a standard one (or numpy), found on T's own ``sys.path``, which
    holds only read-only system folders: the program's module object, which it may have patched, never
    reaches the tests, and what S says is only which of T's own modules to offer. Any other module name
    is left out.

    A name the program binds over a builtin, a standard module or a conventional module alias (``def set``,
    ``class math``, ``class np``) would let it answer for the expected side of a test too
    (``set(f(x)) == set([...])``, ``np.allclose(f(x), [...])``). Such names are
    dropped, so the tests get the real ones, whenever the tests call a function of the program that is
    not such a name: then that function is the one under test. (A task whose function is named like a
    builtin, ``def sum(a, b)``, keeps it.)
    """
    reply = channel.ask("globals", raw=True)
    if type(reply) is not dict or reply.keys() != {"globals"} or type(reply["globals"]) is not list:
        raise _malformed("the program's names are not a list")
    names: dict[str, Any] = {}
    for pair in reply["globals"]:
        if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str:
            raise _malformed("a name of the program that is not [name, value]")
        name, value = pair
        if name.startswith("__"):
            continue
        if type(value) is dict and value.keys() == {"m"}:
            stands_for = MODULE_ALIASES.get(name, name if name in sys.stdlib_module_names else None)
            module = _own_module(stands_for or value["m"])  # ``math`` is math, whatever the program bound
            if module is not None:
                names[name] = module
            continue
        names[name] = channel.decode(value)
    if used is not None:
        own = {name for name, value in names.items() if isinstance(value, Remote)}
        shadowing = {name for name in own if name in builtins.__dict__ or name in sys.stdlib_module_names
                     or name in MODULE_ALIASES}
        if (own - shadowing) & used:
            names = {name: value for name, value in names.items() if name not in shadowing}
    return {**names, "__builtins__": builtins, "__name__": "__main__"}


def _own_module(name: Any) -> Any:
    """T's own copy of the standard module (or numpy) ``name``, else None."""
    if type(name) is not str or len(name) > 200 or not _MODULE_NAME.fullmatch(name):
        return None
    top = name.partition(".")[0]
    if top in UNWANTED_MODULES or not (top in sys.stdlib_module_names or top == "numpy"):
        return None
    try:
        return importlib.import_module(name)
    except Exception:
        return None


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
