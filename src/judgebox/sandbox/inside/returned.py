"""The wire form of a call case's returned value, from the tests' process to the judge: one codec for both.

The tests' process (``encode``) writes the value it got from the program as JSON, keeping what JSON would
lose or blur: a set stays a set (a set is not an answer for a list), bytes stay bytes (not the text they
decode to), big integers cross as hex (past Python's 4300-digit limit for decimal text), complex numbers
stay complex, and anything that is not data (an object of the program's, behind a handle) is marked as
such and equals nothing. The judge (``decode``) rebuilds those values, and ``normalize`` puts an expected
value through the same rules (dict keys as JSON has them, tuples as lists), so the two compare alike.
Stdlib only: this module runs inside the sandbox too.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import fractions
import json
from collections import deque
from typing import Any

BIG = 1 << 63  # integers beyond this cross as hex


class NotData:
    """A returned object that is not data (the program's own object): equal to nothing."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __repr__(self) -> str:
        return f"<a {self.kind} object, not data>"


def encode(value: Any) -> Any:
    """The JSON-able form of a value the tests' process received (data of the harness's closed set)."""
    if value is None or type(value) in (bool, str):
        return value
    if type(value) is int:
        return value if -BIG < value < BIG else {"__int__": format(value, "x")}
    if type(value) is float:
        return value
    if type(value) in (list, tuple, range, deque) or isinstance(value, (type({}.keys()), type({}.values()))):
        return [encode(item) for item in value]
    if type(value) is dict:  # as pairs: no key the program chose ever becomes a key of the JSON
        return {"__dict__": [[_key(key), encode(item)] for key, item in value.items()]}
    if type(value) in (set, frozenset):
        return {"__set__": [encode(item) for item in value]}
    if type(value) in (bytes, bytearray):
        return {"__bytes__": base64.b64encode(bytes(value)).decode()}
    if type(value) is complex:
        return {"__complex__": [value.real, value.imag]}
    if type(value) in (fractions.Fraction, decimal.Decimal):
        return float(value)
    if type(value) in (datetime.date, datetime.datetime, datetime.time):
        return value.isoformat()
    return {"__object__": type(value).__name__}


def _key(key: Any) -> Any:
    """A dict key as JSON would have it (``1`` becomes ``"1"``: expected values mostly come from JSON);
    a key JSON cannot have (a tuple) as itself."""
    if type(key) is str:
        return key
    if type(key) in (int, float, bool) or key is None:
        return json.dumps(key)
    return encode(key)


def dumps(value: Any) -> bytes:
    """A report's payload for a returned value."""
    return json.dumps({"value": encode(value)}, allow_nan=True).encode()


def decode(payload: bytes) -> Any:
    """The value of a report's payload, rebuilt."""
    envelope = json.loads(payload)
    if not isinstance(envelope, dict) or set(envelope) != {"value"}:
        raise ValueError("not a returned value")
    return _rebuild_all(envelope["value"])


def _rebuild(obj: dict) -> Any:
    """Every JSON object of a payload is one of ``encode``'s tags (a program's dict travels as pairs)."""
    (tag, body), = obj.items()
    if tag == "__int__":
        return int(body, 16)
    if tag == "__set__":
        return frozenset(_frozen(item) for item in body)
    if tag == "__dict__":
        return {_frozen(key): item for key, item in body}
    if tag == "__bytes__":
        return base64.b64decode(body)
    if tag == "__complex__":
        return complex(*body)
    if tag == "__object__":
        return NotData(str(body))
    raise ValueError(f"not a returned value: {tag!r}")


def _frozen(value: Any) -> Any:
    """A hashable form (set items, dict keys): lists as tuples, all the way down."""
    if isinstance(value, list):
        return tuple(_frozen(item) for item in value)
    return value


def normalize(expected: Any) -> Any:
    """An expected value in the form a returned one arrives in."""
    return decode(dumps(expected))


def _rebuild_all(value: Any) -> Any:
    if isinstance(value, dict):
        return _rebuild({key: _rebuild_all(item) for key, item in value.items()})
    if isinstance(value, list):
        return [_rebuild_all(item) for item in value]
    return value
