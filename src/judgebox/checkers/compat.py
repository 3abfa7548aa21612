"""Other ecosystems' output rules, for the presets that reproduce their verdicts (:mod:`judgebox.presets`).

- ``apps``: the comparison cascade of APPS' ``testing_util`` as verl's ``prime_code`` runs it on a stdin
  case: the stripped output equals the stripped answer (also with every line stripped); or the output's
  lines, blank ones dropped, equal the answer's stripped non-blank lines; or every line is one number and
  they are ``numpy.allclose`` (relative 1e-5, absolute 1e-8; an infinite answer, as a number past the
  double range reads, only by the same infinity) unless every line on both sides is digits.
  (Its later set-of-tokens steps compare a list of strings with a list of sets and never accept.)
- ``livecodebench``: LiveCodeBench's ``grade_stdio``: stripped lines, as many as the answer's; a line
  that differs passes only if both are tokens that parse as decimals and are the same decimals, exactly
  (a NaN, signalling or not, is the same as nothing: there it is unequal or raises).
- ``sandboxfusion``: SandboxFusion's CommonOJ rule: both stripped and split into lines (one trailing empty
  line of difference allowed), the same count, each line stripped and lower-cased; lines that differ
  pass when both are one float within 1e-5 relative (``|a - b| / max(|b|, 1e-10)``).

- ``evalplus`` (a call result's): evalplus's comparison of a returned value with the reference's: equal
  (Python's ``==``), or, where ``atol`` is given (or the expected value is a real or a list of reals, where
  an ``atol`` of 0 means 1e-6), of the same type and ``numpy.allclose`` with that absolute tolerance and a
  relative one of 1e-7. Tuples cross the sandbox as lists (:mod:`judgebox.sandbox.inside.returned`), so a
  list is an answer for a tuple here, where evalplus's ``==`` tells them apart.

These output rules compare lists of lines, so they are run only on output with no more lines than the answer
has plus :data:`SPARE_LINES` (past that no rule could accept it, except the APPS cascade's first step,
which is checked first on the stripped text): the judge never splits 64 MiB of newlines. They work on
decoded text, as the harnesses they reproduce do, so a case under them may hold about four times its
output at once (the default checkers hold less: they read bytes in chunks).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from decimal import Context, Decimal
from itertools import zip_longest
from typing import Any

from judgebox.checkers.result import AC, CheckResult
from judgebox.verdicts import Verdict

SPARE_LINES = 1000
_WA = CheckResult(Verdict.WA, "the output is not the expected one")


def _text(data: bytes | str) -> str:
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else data


def _too_many_lines(output: bytes | str, expected: bytes | str) -> bool:
    """Lines split on ``\n``, counted before anything is decoded or split."""
    lines = output.count(b"\n") if isinstance(output, bytes) else output.count("\n")
    return lines > _text(expected).count("\n") + SPARE_LINES


_LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"  # where str.splitlines() splits


def _too_many_breaks(output: str, expected: str) -> bool:
    return sum(output.count(c) for c in _LINE_BREAKS) > sum(expected.count(c) for c in _LINE_BREAKS) + SPARE_LINES


def apps(output: bytes | str, expected: bytes | str) -> CheckResult:
    got, want = _text(output), _text(expected)
    if got.strip() == want.strip():
        return AC
    if _too_many_breaks(got, want):
        return _WA
    got_lines = got.splitlines()
    for shown in (got_lines, [line.strip() for line in got_lines]):
        if "\n".join(shown).strip() == want.strip():
            return AC
    want_lines = [line.strip() for line in want.split("\n") if line]
    if got_lines == want_lines:
        return AC
    got_lines = [line for line in got_lines if line]
    if got_lines == want_lines or _allclose_lines(got_lines, want_lines):
        return AC
    return _WA


def _allclose_lines(got: list[str], want: list[str]) -> bool:
    if len(got) != len(want) or all(g.isdigit() and w.isdigit() for g, w in zip(got, want)):
        return False
    try:
        pairs = [(float(g), float(w)) for g, w in zip(got, want)]
    except ValueError:
        return False
    return all(_isclose(g, w, 1e-5, 1e-8) for g, w in pairs)


def _isclose(got: float, want: float, rtol: float, atol: float) -> bool:
    """numpy.isclose's test; where the answer is infinite (a number past the double range reads as one), only
    the same infinity passes, as there (the tolerance, infinite too, would pass anything). NaN fails."""
    return got == want or (math.isfinite(want) and abs(got - want) <= atol + rtol * abs(want))


def livecodebench(output: bytes | str, expected: bytes | str) -> CheckResult:
    if _too_many_lines(output, expected):
        return _WA
    got, want = _text(output).strip(), _text(expected).strip()
    got_count, want_count = got.count("\n") + 1, want.count("\n") + 1
    if got_count != want_count:
        return CheckResult(Verdict.WA, f"expected {want_count} lines, got {got_count}")
    for number, (g, w) in enumerate(zip(_lines(got), _lines(want)), 1):
        g, w = g.strip(), w.strip()
        if g != w and not _same_decimals(g, w):
            return CheckResult(Verdict.WA, f"line {number} differs")
    return AC


def _lines(text: str) -> Iterator[str]:
    """The text split at each newline, as ``str.split`` would, one line at a time."""
    start = 0
    while (end := text.find("\n", start)) >= 0:
        yield text[start:end]
        start = end + 1
    yield text[start:]


# Decimal's conversions with no signal trapped: text that is no decimal, or an exponent past Decimal's range,
# is NaN instead of an exception; a signalling NaN stays one, and is refused before any comparison would
# raise for it.
_QUIET = Context(traps=[])


def _same_decimals(got: str, want: str) -> bool:
    """LiveCodeBench's test, ``[Decimal(t) for t in got.split()] == [... want ...]``, a token at a time: the
    first pair that differs ends it, so a long line costs no list of Decimals. A token that is no decimal,
    or a NaN, equals nothing (there, Decimal raises, or NaN != NaN, or a signalling NaN raises)."""
    for g, w in zip_longest(_TOKEN.finditer(got), _TOKEN.finditer(want)):
        if g is None or w is None:
            return False
        got_value, want_value = Decimal(g.group(), _QUIET), Decimal(w.group(), _QUIET)
        if got_value.is_nan() or want_value.is_nan() or got_value != want_value:
            return False
    return True


_TOKEN = re.compile(r"\S+")  # str.split()'s tokens: \s is exactly str.isspace() on text


def sandboxfusion(output: bytes | str, expected: bytes | str) -> CheckResult:
    if _too_many_lines(output, expected):
        return _WA
    got, want = _text(output), _text(expected)
    got_lines, want_lines = got.strip().split("\n"), want.strip().split("\n")
    if len(got_lines) == len(want_lines) + 1 and got_lines[-1] == "":
        got_lines.pop()
    elif len(want_lines) == len(got_lines) + 1 and want_lines[-1] == "":
        want_lines.pop()
    if len(got_lines) != len(want_lines):
        return CheckResult(Verdict.WA, f"expected {len(want_lines)} lines, got {len(got_lines)}")
    for number, (g, w) in enumerate(zip(got_lines, want_lines), 1):
        g, w = g.strip().lower(), w.strip().lower()
        if g != w and not _floats_close(g, w):
            return CheckResult(Verdict.WA, f"line {number} differs")
    return AC


def _floats_close(got: str, want: str) -> bool:
    try:
        g, w = float(got), float(want)
    except ValueError:
        return False
    return math.isfinite(g) and math.isfinite(w) and abs(g - w) / max(abs(w), 1e-10) < 1e-5


EVALPLUS_RTOL = 1e-7  # the relative tolerance evalplus passes to numpy.allclose
EVALPLUS_FLOAT_ATOL = 1e-6  # the absolute one it enforces for an expected real where the problem's atol is 0


def evalplus(actual: Any, expected: Any, atol: float = 0.0) -> CheckResult:
    if actual == expected:
        return AC
    if atol == 0 and _reals(expected):
        atol = EVALPLUS_FLOAT_ATOL
    if atol and type(actual) is type(expected) and _allclose(actual, expected, atol):
        return AC
    return CheckResult(Verdict.WA, "the returned value is not the reference solution's")


def _reals(value: Any) -> bool:
    """evalplus's ``is_floats``: a real, or a non-empty list of reals."""
    return type(value) is float or (isinstance(value, list) and bool(value)
                                    and all(type(item) is float for item in value))


def _allclose(actual: Any, expected: Any, atol: float) -> bool:
    """numpy.allclose on numbers and (nested) lists of them of the same lengths; anything else numpy could
    not read as numbers is not close. Walked with a stack (a deep list exhausts no recursion limit)."""
    pending = [(actual, expected)]
    while pending:
        got, want = pending.pop()
        if isinstance(got, list) and isinstance(want, list):
            if len(got) != len(want):
                return False
            pending.extend(zip(got, want))
        elif not (_number(got) and _number(want) and _isclose(float(got), float(want), EVALPLUS_RTOL, atol)):
            return False
    return True


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not (isinstance(value, int) and abs(value) >= 2 ** 1023)
