"""The ``float`` checker: tokens, where numbers compare with an epsilon (testlib's ``rcmp4/6/9``, ``ncmp``
for integers; DMOJ's ``floats``).

- ``mode``: ``absolute`` (``|got - want| <= epsilon``), ``relative`` (``<= epsilon * |want|``) or
  ``either`` (Codeforces' "absolute or relative error"), the default.
- An expected integer is compared exactly unless ``exact_integers=False``: ``123456700.0`` is not an
  answer for ``123456789`` though it is within 1e-6 relative; ``20.0`` is one for ``20`` (the same value).
  Integers of any length compare by their digits (no conversion, no 4300-digit limit).
- NaN is never equal to anything, itself included; an infinity only to the same infinity.
- A real a double cannot hold (past its range, where ``float()`` says infinity, or nonzero below its normal
  range) is compared by its decimal value: ``1e401`` is not ``1e400``, ``inf`` is not ``1e309``.
- Tokens that are not numbers compare as text.
"""

from __future__ import annotations

import math
import re
import sys
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal, InvalidOperation, localcontext
from typing import TypeVar

from judgebox.checkers.result import CheckResult
from judgebox.checkers.text import compare_tokens

MODES = ("either", "absolute", "relative")
_NUMBER = re.compile(rb"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|inf|infinity)", re.IGNORECASE)
_INTEGER = re.compile(rb"[+-]?\d+")
# A real written with more digits than this is not a rounded answer; compared by exact value, its digits
# would cost the judge time, so it is compared as text.
_LONGEST_REAL = 4096
_LITERAL = re.compile(rb"[+-]?[a-z]", re.IGNORECASE)  # nan, inf, infinity
_NONZERO_MANTISSA = re.compile(rb"[+-]?[0.]*[1-9]")
# Decimal arithmetic for numbers past the double range: any exponent, no signal raised (an overflow is an
# infinity, which no tolerance test passes), 50 digits kept.
_WIDE = Context(prec=50, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[])
# The decimal text of an answer within epsilon may round a hair past it in binary (0.1 + 1e-6).
_SLACK = 1e-12


def floats(output: bytes | str, expected: bytes | str, mode: str = "either", epsilon: float = 1e-6,
           exact_integers: bool = True, case_insensitive: bool = False) -> CheckResult:
    def same(got: bytes, want: bytes) -> bool:
        return numbers_equal(got, want, mode, epsilon, exact_integers)

    return compare_tokens(output, expected, same, case_insensitive)


def numbers_equal(got: bytes, want: bytes, mode: str, epsilon: float, exact_integers: bool) -> bool:
    if not _NUMBER.fullmatch(want):
        return got == want
    if not _NUMBER.fullmatch(got):
        return False
    if exact_integers and _INTEGER.fullmatch(want):
        if _INTEGER.fullmatch(got):
            return _digits(got) == _digits(want)
        return len(got) <= _LONGEST_REAL and _exact_value(got) == _exact_value(want)
    if len(got) > _LONGEST_REAL or len(want) > _LONGEST_REAL:
        return got == want  # only digits are this long: never NaN
    g, w = float(got), float(want)
    if math.isnan(g) or math.isnan(w):
        return False
    if not (_held(g, got) and _held(w, want)):
        return _within_exactly(got, want, mode, epsilon)
    if math.isinf(g) or math.isinf(w):
        return g == w
    return _within(abs(g - w), abs(w), mode, epsilon, _SLACK)


_Number = TypeVar("_Number", float, Decimal)


def _within(error: _Number, scale: _Number, mode: str, epsilon: _Number, slack: _Number) -> bool:
    """The tolerance test, on floats or on Decimals (all of one type)."""
    absolute = error <= epsilon + slack
    relative = error <= epsilon * scale * (1 + slack)
    return absolute if mode == "absolute" else relative if mode == "relative" else absolute or relative


def _held(double: float, number: bytes) -> bool:
    """Whether ``float()`` kept the number's magnitude: not a real past the double range made infinite,
    nor a nonzero one below the normal range made 0 or a subnormal of few digits."""
    if _LITERAL.match(number):
        return True
    if double == 0:
        return not _NONZERO_MANTISSA.match(number)
    return sys.float_info.min <= abs(double) < math.inf


def _within_exactly(got: bytes, want: bytes, mode: str, epsilon: float) -> bool:
    """The tolerance test on the numbers' decimal values, for a number a double cannot hold (``1e401`` is
    not ``1e400``, ``inf`` is not ``1e309``), rounded to :data:`_WIDE`'s digits, far finer than any epsilon:
    no digit string of an exponent's length is ever made."""
    g, w = _exact_value(got), _exact_value(want)
    if g is None or w is None:  # a literal infinity, or an exponent past even Decimal's range
        return got == want
    with localcontext(_WIDE):
        return g == w or _within(abs(g - w), abs(w), mode, Decimal(epsilon), Decimal(_SLACK))


def _digits(integer: bytes) -> tuple[bool, bytes]:
    """(negative, digits) with leading zeros dropped: ``-0`` is ``0``, ``007`` is ``7``."""
    digits = integer.lstrip(b"+-").lstrip(b"0")
    return integer.startswith(b"-") and bool(digits), digits


def _exact_value(number: bytes) -> Decimal | None:
    try:
        value = Decimal(number.decode("ascii"))
    except (InvalidOperation, UnicodeDecodeError):
        return None
    return value if value.is_finite() else None
