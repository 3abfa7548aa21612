"""The text checkers: ``exact``, ``lines``, ``tokens``, ``unordered`` and ``yes_no``.

Each is a pure function ``(output, expected, **options) -> CheckResult``; ``output`` is the program's
stdout as bytes (text is accepted too), ``expected`` the problem's answer. They read the output in bounded
pieces (:mod:`.streams`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from itertools import islice, zip_longest

from judgebox.checkers.result import AC, CheckResult
from judgebox.checkers.streams import as_bytes, folded, lines_of, presentation_or, short, tokens_of
from judgebox.verdicts import Verdict


def tokens(output: bytes | str, expected: bytes | str, case_insensitive: bool = False) -> CheckResult:
    """The same sequence of whitespace-separated tokens (testlib's ``wcmp``)."""
    return compare_tokens(output, expected, bytes.__eq__, case_insensitive)


def compare_tokens(output: bytes | str, expected: bytes | str, same: Callable[[bytes, bytes], bool],
                   case_insensitive: bool = False) -> CheckResult:
    """Token by token with ``same(got, want)``. The output is read one token past the expected ones at
    most: counting the rest of a 64 MiB flood only to report its length would cost seconds of judge CPU."""
    want_tokens = tokens_of(folded(as_bytes(expected), case_insensitive))
    got_tokens = tokens_of(folded(as_bytes(output), case_insensitive))
    count = 0
    for want in want_tokens:
        got = next(got_tokens, None)
        if got is None:
            return CheckResult(Verdict.WA, f"expected {count + 1 + sum(1 for _ in want_tokens)} tokens, got {count}")
        count += 1
        if not same(got, want):
            return CheckResult(Verdict.WA, f"token {count}: expected {short(want)}, got {short(got)}")
    if next(got_tokens, None) is not None:
        return CheckResult(Verdict.WA, f"more tokens than expected (the answer has {count})")
    return AC


def lines(output: bytes | str, expected: bytes | str, case_insensitive: bool = False,
          partial: bool = False) -> CheckResult:
    """Line by line, ignoring trailing whitespace on each line and trailing blank lines; ``PE`` when only
    whitespace differs. ``partial``: the case earns the share of the expected lines the output matches,
    each at its place (DMOJ's ``linecount`` idea), less one line for each line the output has past the
    expected ones (blank ones included, trailing ones aside): garbage after a right answer costs points."""
    got, want = folded(as_bytes(output), case_insensitive), folded(as_bytes(expected), case_insensitive)
    if partial:
        return _line_points(got, want)
    if all(g == w for g, w in zip_longest(lines_of(got), lines_of(want))):
        return AC
    return presentation_or(tokens(got, want))


def _line_points(got: bytes, want: bytes) -> CheckResult:
    matched = total = 0
    got_lines = lines_of(got)
    for w in lines_of(want):
        total += 1
        matched += next(got_lines, None) == w
    # Each extra line cancels a right one; reading stops once none is left to cancel (bounded by the answer).
    extra = sum(1 for _ in islice(got_lines, matched))
    if matched == total and not extra:
        return AC
    more = f", less {extra} for lines past the expected ones" if extra else ""
    return CheckResult(Verdict.WA, f"{matched} of {total} lines right{more}", points=(matched - extra) / total)


def exact(output: bytes | str, expected: bytes | str, case_insensitive: bool = False,
          ignore_trailing_newlines: bool = False) -> CheckResult:
    """Byte for byte (``ignore_trailing_newlines``: after removing final ``\\n``, verl's rule); ``PE``
    when only whitespace differs."""
    got, want = folded(as_bytes(output), case_insensitive), folded(as_bytes(expected), case_insensitive)
    if ignore_trailing_newlines:
        got, want = got.rstrip(b"\n"), want.rstrip(b"\n")
    if got == want:
        return AC
    return presentation_or(tokens(got, want))


# A keyed hash per judge process: a program cannot know the key, so it cannot write a different multiset
# whose sum of hashes collides with the expected one.
_MULTISET_KEY = os.urandom(16)
_MULTISET_MODULUS = 1 << 128


def unordered(output: bytes | str, expected: bytes | str, by: str = "lines",
              case_insensitive: bool = False) -> CheckResult:
    """The same multiset of lines (non-blank, trailing whitespace ignored) or of tokens, in any order
    (testlib's ``uncmp``, DMOJ's ``sorted``). Compared as a sum of keyed hashes, so the judge holds no list
    of the output's items, and reading stops once the output has more items than the answer."""
    split: Callable[[bytes], Iterator[bytes]] = tokens_of if by == "tokens" else _nonblank_lines
    want_count, want_sum = _multiset(split(folded(as_bytes(expected), case_insensitive)), None)
    got_count, got_sum = _multiset(split(folded(as_bytes(output), case_insensitive)), want_count)
    item = "tokens" if by == "tokens" else "lines"
    if got_count != want_count:
        more = "more than " if got_count > want_count else ""
        return CheckResult(Verdict.WA, f"expected {want_count} {item}, got {more}{got_count}")
    if got_sum != want_sum:
        return CheckResult(Verdict.WA, f"the {item} are not the expected ones in some order")
    return AC


def _nonblank_lines(data: bytes) -> Iterator[bytes]:
    return (line for line in lines_of(data) if line)


def _multiset(items: Iterator[bytes], limit: int | None) -> tuple[int, int]:
    """(count, sum of keyed hashes); stops one item past ``limit``."""
    count = total = 0
    for item in items:
        count += 1
        if limit is not None and count > limit:
            break
        digest = hashlib.blake2b(item, digest_size=16, key=_MULTISET_KEY).digest()
        total = (total + int.from_bytes(digest, "little")) % _MULTISET_MODULUS
    return count, total


_YES_NO = (b"yes", b"no")


def yes_no(output: bytes | str, expected: bytes | str) -> CheckResult:
    """One or more YES/NO answers, letter case ignored (testlib's ``yesno``/``nyesno``). An expected answer
    that is not YES or NO is the problem's fault: SE, never the program's."""
    for want in tokens_of(as_bytes(expected).lower()):
        if want not in _YES_NO:
            return CheckResult(Verdict.SE, f"yes_no checker: the expected answer {short(want)} is not YES or NO")

    def same(got: bytes, want: bytes) -> bool:
        return got == want and got in _YES_NO

    return compare_tokens(output, expected, same, case_insensitive=True)
