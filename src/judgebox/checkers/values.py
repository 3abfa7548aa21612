"""The ``value`` checker: a call case's returned value against the expected one, as data, not as text.

Lists and tuples are the same sequence; reals compare within ``epsilon`` (relative, or absolute 1e-9 near
zero; 0 asks for equality); bools are not numbers (``True`` is not an accepted answer for ``1``); an
expected integer is matched only by the same value unless ``exact_integers=False`` (``1000000500.0`` is
not ``1000000000``, though within 1e-6 relative); NaN equals NaN (a function may rightly return it);
everything else compares by type and value.
"""

from __future__ import annotations

import math
from typing import Any

from ..verdicts import Verdict
from .result import AC, CheckResult

REL_TOL = 1e-6
ABS_TOL = 1e-9


def value(actual: Any, expected: Any, epsilon: float = REL_TOL, exact_integers: bool = True) -> CheckResult:
    if values_equal(actual, expected, epsilon, exact_integers):
        return AC
    return CheckResult(Verdict.WA, "the returned value is not the expected one")


def values_equal(actual: Any, expected: Any, epsilon: float = REL_TOL, exact_integers: bool = True) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        if isinstance(expected, int) and (exact_integers or isinstance(actual, int)):
            return actual == expected
        if math.isnan(actual) or math.isnan(expected):
            return math.isnan(actual) and math.isnan(expected)
        return actual == expected or (
            epsilon > 0 and math.isclose(actual, expected, rel_tol=epsilon, abs_tol=ABS_TOL))
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        return len(actual) == len(expected) and all(
            values_equal(a, e, epsilon, exact_integers) for a, e in zip(actual, expected))
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() == expected.keys() and all(
            values_equal(actual[k], expected[k], epsilon, exact_integers) for k in expected)
    return type(actual) is type(expected) and actual == expected
