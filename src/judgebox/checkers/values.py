"""The ``value`` checker: a call case's returned value against the expected one, as data, not as text.

Lists and tuples are the same sequence; reals compare within ``epsilon`` (relative, or absolute 1e-9 near
zero; 0 asks for equality); bools are not numbers (``True`` is not an accepted answer for ``1``) unless
``bool_is_int`` (Python's ``==``, which the harnesses that compare with it have: ``1 == True``); an
expected integer is matched only by the same value unless ``exact_integers=False`` (``1000000500.0`` is
not ``1000000000``, though within 1e-6 relative); NaN equals NaN (a function may rightly return it);
everything else compares by type and value.

Whatever the program returns is a verdict, never an exception: an integer past the double range is compared
with a real exactly (as fractions; ``math.isclose`` would raise ``OverflowError``), and nesting is walked
with a stack of its own (a list nested a few hundred deep would exhaust Python's recursion limit).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from judgebox.checkers.result import AC, CheckResult
from judgebox.verdicts import Verdict

REL_TOL = 1e-6
ABS_TOL = 1e-9


def value(actual: Any, expected: Any, epsilon: float = REL_TOL, exact_integers: bool = True,
          bool_is_int: bool = False) -> CheckResult:
    if values_equal(actual, expected, epsilon, exact_integers, bool_is_int):
        return AC
    return CheckResult(Verdict.WA, "the returned value is not the expected one")


def values_equal(actual: Any, expected: Any, epsilon: float = REL_TOL, exact_integers: bool = True,
                 bool_is_int: bool = False) -> bool:
    pending = [(actual, expected)]
    while pending:
        actual, expected = pending.pop()
        if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
            if len(actual) != len(expected):
                return False
            pending.extend(zip(actual, expected))
        elif isinstance(expected, dict) and isinstance(actual, dict):
            if actual.keys() != expected.keys():
                return False
            pending.extend((actual[key], expected[key]) for key in expected)
        elif not _scalars_equal(actual, expected, epsilon, exact_integers, bool_is_int):
            return False
    return True


def _scalars_equal(actual: Any, expected: Any, epsilon: float, exact_integers: bool, bool_is_int: bool) -> bool:
    if (isinstance(expected, bool) or isinstance(actual, bool)) and not bool_is_int:
        return type(actual) is type(expected) and actual == expected
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        if isinstance(expected, int) and (exact_integers or isinstance(actual, int)):
            return actual == expected
        return _reals_equal(actual, expected, epsilon)
    return type(actual) is type(expected) and actual == expected


def _reals_equal(actual: int | float, expected: int | float, epsilon: float) -> bool:
    """NaN only NaN, an infinity only itself, else within ``epsilon`` relative or ``ABS_TOL``. ``==``
    between an int and a float is exact in Python whatever their sizes; only ``math.isclose`` converts."""
    if _is_nan(actual) or _is_nan(expected):
        return _is_nan(actual) and _is_nan(expected)
    if actual == expected:
        return True
    if epsilon == 0 or _is_infinite(actual) or _is_infinite(expected):
        return False
    try:
        return math.isclose(actual, expected, rel_tol=epsilon, abs_tol=ABS_TOL)
    except OverflowError:  # an integer past the double range: the same test on exact values
        got, want = Fraction(actual), Fraction(expected)
        return abs(got - want) <= max(Fraction(epsilon) * max(abs(got), abs(want)), Fraction(ABS_TOL))


def _is_nan(number: int | float) -> bool:
    return isinstance(number, float) and math.isnan(number)


def _is_infinite(number: int | float) -> bool:
    return isinstance(number, float) and math.isinf(number)
