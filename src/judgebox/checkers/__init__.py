"""Output checkers: small pure functions ``(output, expected) -> CheckResult``, looked up by name.

``output`` is the program's stdout as bytes (text is accepted too) and ``expected`` the caller's text. The
output is never decoded or split whole: a program may write up to the output cap, and splitting 64 MiB of
``"a "`` into a list would cost the judge more than a gigabyte, so tokens are read in bounded chunks.
Adding a checker is one function and one entry in ``CHECKERS``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import zip_longest

from ..errors import UnknownChecker
from ..verdicts import Verdict
from .values import values_equal

__all__ = ["CHECKERS", "CheckResult", "Checker", "get", "values_equal"]


@dataclass(frozen=True, slots=True)
class CheckResult:
    verdict: Verdict
    message: str = ""


Checker = Callable[[bytes | str, str], CheckResult]
FLOAT_TOLERANCE = 1e-6  # the usual "absolute or relative error at most 1e-6" of contest statements
CHUNK = 1 << 20  # tokens are split this much at a time
_WHITESPACE = re.compile(rb"\s")  # what bytes.split() splits on
_AC = CheckResult(Verdict.AC)


def tokens(output: bytes | str, expected: str) -> CheckResult:
    """Whitespace-insensitive: the same sequence of whitespace-separated tokens."""
    return _compare_tokens(output, expected, lambda got, want: got == want)


def numbers(output: bytes | str, expected: str) -> CheckResult:
    """Like ``tokens``, but numbers written as reals (``0.333333``, ``20.0``, ``1e-9``: either token) match
    within 1e-6 relative or absolute. Two integers still compare exactly: a relative tolerance would accept
    ``1000000001`` for ``1000000000``."""
    return _compare_tokens(output, expected, lambda got, want: got == want or _close(got, want))


def _compare_tokens(output: bytes | str, expected: str, same: Callable[[bytes, bytes], bool]) -> CheckResult:
    got_count = want_count = 0
    for got, want in zip_longest(_tokens(_bytes(output)), _tokens(_bytes(expected))):
        got_count += got is not None
        want_count += want is not None
        if got is None or want is None:
            continue  # counting what is left, to say how many tokens there were
        if not same(got, want):
            return CheckResult(Verdict.WA, f"token {got_count}: expected {_short(want)}, got {_short(got)}")
    if got_count != want_count:
        return CheckResult(Verdict.WA, f"expected {want_count} tokens, got {got_count}")
    return _AC


def _tokens(data: bytes) -> Iterator[bytes]:
    """The whitespace-separated tokens of ``data``, split a bounded chunk at a time (a chunk ends at
    whitespace, so no token is cut in two; one token longer than a chunk is one chunk)."""
    start = 0
    while start < len(data):
        boundary = _WHITESPACE.search(data, start + CHUNK)
        end = boundary.start() if boundary else len(data)
        yield from data[start:end].split()
        start = end


def _bytes(text: bytes | str) -> bytes:
    return text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape")


def _close(got: bytes, want: bytes) -> bool:
    if not any(mark in token for token in (got, want) for mark in (b".", b"e", b"E")):
        return False
    try:
        g, w = float(got), float(want)
    except ValueError:
        return False
    return math.isfinite(w) and math.isclose(g, w, rel_tol=FLOAT_TOLERANCE, abs_tol=FLOAT_TOLERANCE)


def lines(output: bytes | str, expected: str) -> CheckResult:
    """Line by line, ignoring trailing whitespace on each line and trailing blank lines."""
    pairs = zip_longest(_lines(_bytes(output)), _lines(_bytes(expected)))
    if all(got == want for got, want in pairs):
        return _AC
    return _presentation_or(tokens(output, expected))


def exact(output: bytes | str, expected: str) -> CheckResult:
    """Byte for byte."""
    if _bytes(output) == _bytes(expected):
        return _AC
    return _presentation_or(tokens(output, expected))


def _presentation_or(by_tokens: CheckResult) -> CheckResult:
    if by_tokens.verdict is Verdict.AC:
        return CheckResult(Verdict.PE, "right tokens, but the whitespace differs")
    return by_tokens


def _lines(data: bytes) -> Iterator[bytes]:
    """Lines without trailing whitespace, and without the trailing blank lines, one at a time."""
    data = data.rstrip()
    start = 0
    while start <= len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        yield data[start:end].rstrip()
        start = end + 1


def _short(token: bytes, limit: int = 40) -> str:
    text = token[:4 * limit + 4].decode("utf-8", "replace")
    return repr(text if len(text) <= limit else text[:limit] + "...")


CHECKERS: dict[str, Checker] = {"tokens": tokens, "numbers": numbers, "lines": lines, "exact": exact}


def get(name: str) -> Checker:
    try:
        return CHECKERS[name]
    except (KeyError, TypeError):
        raise UnknownChecker(f"unknown checker {name!r}; available: {', '.join(sorted(CHECKERS))}") from None
