"""Output checkers: small pure functions ``(output, expected) -> CheckResult``, looked up by name.

Adding a checker is one function and one entry in ``CHECKERS``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import UnknownChecker
from ..verdicts import Verdict
from .values import values_equal

__all__ = ["CHECKERS", "CheckResult", "Checker", "get", "values_equal"]


@dataclass(frozen=True, slots=True)
class CheckResult:
    verdict: Verdict
    message: str = ""


Checker = Callable[[str, str], CheckResult]
FLOAT_TOLERANCE = 1e-6  # the usual "absolute or relative error at most 1e-6" of contest statements
_AC = CheckResult(Verdict.AC)


def tokens(output: str, expected: str) -> CheckResult:
    """Whitespace-insensitive: the same sequence of whitespace-separated tokens."""
    got, want = output.split(), expected.split()
    if got == want:
        return _AC
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return CheckResult(Verdict.WA, f"token {i + 1}: expected {_short(w)}, got {_short(g)}")
    return CheckResult(Verdict.WA, f"expected {len(want)} tokens, got {len(got)}")


def numbers(output: str, expected: str) -> CheckResult:
    """Like ``tokens``, but numbers written as reals (``0.333333``, ``20.0``, ``1e-9``: either token) match
    within 1e-6 relative or absolute. Two integers still compare exactly: a relative tolerance would accept
    ``1000000001`` for ``1000000000``."""
    got, want = output.split(), expected.split()
    if len(got) != len(want):
        return CheckResult(Verdict.WA, f"expected {len(want)} tokens, got {len(got)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w and not _close(g, w):
            return CheckResult(Verdict.WA, f"token {i + 1}: expected {_short(w)}, got {_short(g)}")
    return _AC


def _close(got: str, want: str) -> bool:
    if not any(mark in token for token in (got, want) for mark in ".eE"):
        return False
    try:
        g, w = float(got), float(want)
    except ValueError:
        return False
    return math.isfinite(w) and math.isclose(g, w, rel_tol=FLOAT_TOLERANCE, abs_tol=FLOAT_TOLERANCE)


def lines(output: str, expected: str) -> CheckResult:
    """Line by line, ignoring trailing whitespace on each line and trailing blank lines."""
    if _lines(output) == _lines(expected):
        return _AC
    return _presentation_or(tokens(output, expected))


def exact(output: str, expected: str) -> CheckResult:
    """Byte for byte (after decoding)."""
    if output == expected:
        return _AC
    return _presentation_or(tokens(output, expected))


def _presentation_or(by_tokens: CheckResult) -> CheckResult:
    if by_tokens.verdict is Verdict.AC:
        return CheckResult(Verdict.PE, "right tokens, but the whitespace differs")
    return by_tokens


def _lines(text: str) -> list[str]:
    rows = [row.rstrip() for row in text.split("\n")]
    while rows and not rows[-1]:
        rows.pop()
    return rows


def _short(token: str, limit: int = 40) -> str:
    return repr(token if len(token) <= limit else token[:limit] + "...")


CHECKERS: dict[str, Checker] = {"tokens": tokens, "numbers": numbers, "lines": lines, "exact": exact}


def get(name: str) -> Checker:
    try:
        return CHECKERS[name]
    except (KeyError, TypeError):
        raise UnknownChecker(f"unknown checker {name!r}; available: {', '.join(sorted(CHECKERS))}") from None
