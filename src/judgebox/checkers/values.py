"""Comparison of returned values (call-based cases): as data, not as printed text.

Lists and tuples are the same sequence; floats compare with a tolerance; bools are not numbers
(``True`` is not an accepted answer for ``1``); everything else compares by type and value.
"""

from __future__ import annotations

import math
from typing import Any

REL_TOL = 1e-6
ABS_TOL = 1e-9


def values_equal(actual: Any, expected: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        if isinstance(expected, int) and isinstance(actual, int):
            return actual == expected
        return math.isclose(actual, expected, rel_tol=REL_TOL, abs_tol=ABS_TOL) or (
            math.isnan(actual) and math.isnan(expected))
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        return len(actual) == len(expected) and all(values_equal(a, e) for a, e in zip(actual, expected))
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() == expected.keys() and all(values_equal(actual[k], expected[k]) for k in expected)
    return type(actual) is type(expected) and actual == expected
