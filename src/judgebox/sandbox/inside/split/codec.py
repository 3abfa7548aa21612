"""The codec both sides share: values as JSON, the closed set of data types each side rebuilds with its
own code, every shape from the other side checked.

What else may cross, and how, differs by direction (the tests are trusted, the program is not); the
subclasses in ``directions`` decide that. Only data is built here, never anything named by the
other side.
"""

from __future__ import annotations

import base64
import re
import sys
from typing import TYPE_CHECKING, Any

from .errors import BUILTIN_EXCEPTIONS, MAX_ERROR_TEXT, ProgramError, malformed

if TYPE_CHECKING:
    from .peer import Peer

MAX_DEPTH = 100  # nesting of one value from S (each level costs T two stack frames to rebuild)
MAX_HEX_DIGITS = 1 << 22  # of one int beyond 64 bits (16 Mbit), sent in hex: no str-digit limit applies
INT_LIMIT = 1 << 63  # ints at least this large cross in hex (json's decimal parser has a digit limit)
_HEX = re.compile(r"-?[0-9a-f]+")


class Codec:
    """Values as JSON: the data types both sides rebuild with their own code, and, for everything else,
    what the subclass says (``_encode_other``, ``_decode_other``).

    Untagged JSON: None, bool, int below 2**63, finite float, str. Everything else is ``{tag: body}``.
    Subclasses of the builtin types are reduced to their base (a str subclass with its own ``__eq__``
    crosses as a str); library types (Fraction, Decimal, deque, dates, numpy) cross only as their exact
    type, so no subclass brings its own ``__eq__`` along.
    """

    def __init__(self, channel: Peer) -> None:
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
            number = _plain_complex(value)
            return {"c": [_float(number.real), _float(number.imag)]}
        for kind, tag in _CONTAINERS:
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
            library_tag, body = library_value
            return self.encode(body) if library_tag is None else {library_tag: body}
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
            raise malformed(f"{type(exc).__name__}: {exc}") from None

    def _decode(self, value: Any, depth: int) -> Any:
        kind = type(value)
        if value is None or kind is bool or kind is int or kind is float or kind is str:
            return value
        if kind is not dict or len(value) != 1:
            raise malformed(f"a value of JSON type {kind.__name__}")
        if depth > MAX_DEPTH:
            raise malformed(f"a value nested deeper than {MAX_DEPTH}")
        (tag, body), = value.items()
        rebuild = _DATA.get(tag)
        if rebuild is None:
            return self._decode_other(tag, body, depth)
        return rebuild(self, body, depth + 1)

    def _decode_other(self, tag: str, body: Any, depth: int) -> Any:
        raise NotImplementedError

    def items(self, body: Any, depth: int) -> list[Any]:
        if type(body) is not list:
            raise malformed("items that are not a list")
        decoded = []
        for item in body:  # a loop, not a comprehension: one stack frame fewer per level of nesting
            decoded.append(self._decode(item, depth))
        return decoded

    def pairs(self, body: Any, depth: int) -> list[tuple[Any, Any]]:
        if type(body) is not list:
            raise malformed("pairs that are not a list")
        decoded = []
        for pair in body:
            if type(pair) is not list or len(pair) != 2:
                raise malformed("a pair that is not two values")
            decoded.append((self._decode(pair[0], depth), self._decode(pair[1], depth)))
        return decoded

    def integer(self, body: Any, depth: int) -> int:
        value = self._decode(body, depth)
        if type(value) is not int:
            raise malformed(f"{type(value).__name__} where an int belongs")
        return value

    def exception(self, error: Any) -> Exception:
        """The exception a reply ``{"error": [name, message]}`` stands for, of the builtin kind it names;
        anything else, and the control-flow exceptions, a ProgramError."""
        if type(error) is not list or len(error) != 2 or type(error[0]) is not str or type(error[1]) is not str:
            return malformed("an error that is not [name, message]")
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


_KEYS: type = type({}.keys())
_VALUES: type = type({}.values())
_ITEMS: type = type({}.items())
# each container's own __iter__ is called, not what a subclass says (Any: each kind's takes only its own)
_CONTAINERS: tuple[tuple[Any, str], ...] = ((tuple, "t"), (list, "l"), (set, "s"), (frozenset, "f"))


def _plain_complex(value: complex) -> complex:
    """The number itself, not what a subclass's ``__complex__``, ``real`` or ``imag`` says."""
    if sys.version_info >= (3, 11):
        return complex.__complex__(value)
    return complex(complex.real.__get__(value), complex.imag.__get__(value))  # 3.10 has no complex.__complex__


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
        raise malformed("a big int that is not hex digits")
    return int(body, 16)  # a power-of-two base: no str-digit limit, linear time


def _special_float(codec: Codec, body: Any, depth: int) -> float:
    if body not in ("nan", "inf", "-inf"):
        raise malformed("a special float that is not nan or inf")
    return float(body)


def _complex(codec: Codec, body: Any, depth: int) -> complex:
    if type(body) is not list or len(body) != 2:
        raise malformed("a complex that is not two parts")
    parts = [codec._decode(part, depth) for part in body]
    if not all(type(part) in (float, int) for part in parts):
        raise malformed("a complex with parts that are not numbers")
    return complex(float(parts[0]), float(parts[1]))


def _bytes(kind: type) -> Any:
    def rebuild(codec: Codec, body: Any, depth: int) -> Any:
        if type(body) is not str:
            raise malformed("bytes that are not base64 text")
        return kind(base64.b64decode(body, validate=True))
    return rebuild


def _fraction(codec: Codec, body: Any, depth: int) -> Any:
    if type(body) is not list or len(body) != 2:
        raise malformed("a Fraction that is not two ints")
    from fractions import Fraction
    return Fraction(codec.integer(body[0], depth), codec.integer(body[1], depth))


def _decimal(codec: Codec, body: Any, depth: int) -> Any:
    if type(body) is not str:
        raise malformed("a Decimal that is not text")
    from decimal import Decimal
    return Decimal(body)


def _deque(codec: Codec, body: Any, depth: int) -> Any:
    if type(body) is not list or len(body) != 2 or not (body[1] is None or type(body[1]) is int):
        raise malformed("a deque that is not [items, maxlen]")
    from collections import deque
    return deque(codec.items(body[0], depth), body[1])


def _date(name: str) -> Any:
    def rebuild(codec: Codec, body: Any, depth: int) -> Any:
        if type(body) is not str or len(body) > 100:
            raise malformed(f"a {name} that is not ISO text")
        import datetime
        return getattr(datetime, name).fromisoformat(body)  # name is one of ours, never the program's
    return rebuild


def _timedelta(codec: Codec, body: Any, depth: int) -> Any:
    if type(body) is not list or len(body) != 3 or not all(type(part) is int for part in body):
        raise malformed("a timedelta that is not three ints")
    import datetime
    return datetime.timedelta(days=body[0], seconds=body[1], microseconds=body[2])


def _range(codec: Codec, body: Any, depth: int) -> range:
    if type(body) is not list or len(body) != 3:
        raise malformed("a range that is not three ints")
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
