"""Reading a program's output a bounded piece at a time: its tokens and its lines.

A program may write up to the output cap, and splitting 64 MiB of ``"a "`` into a list would cost the
judge more than a gigabyte, so nothing here splits the output whole: tokens come a chunk at a time, lines
one at a time, and at most one copy of the output is made.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from judgebox.checkers.result import CheckResult
from judgebox.verdicts import Verdict

CHUNK = 1 << 20  # tokens are split this much at a time
_WHITESPACE = re.compile(rb"\s")  # what bytes.split() splits on


def as_bytes(text: bytes | str) -> bytes:
    return text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape")


def tokens_of(data: bytes) -> Iterator[bytes]:
    """The whitespace-separated tokens of ``data``, split a bounded chunk at a time (a chunk ends at
    whitespace, so no token is cut in two; one token longer than a chunk is one chunk)."""
    start = 0
    while start < len(data):
        boundary = _WHITESPACE.search(data, start + CHUNK)
        end = boundary.start() if boundary else len(data)
        yield from data[start:end].split()
        start = end


def lines_of(data: bytes) -> Iterator[bytes]:
    """Lines without trailing whitespace, and without the trailing blank lines, one at a time."""
    data = data.rstrip()
    start = 0
    while start <= len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        yield data[start:end].rstrip()
        start = end + 1


def short(token: bytes, limit: int = 40) -> str:
    """A bounded, readable rendering of a token or line for a message."""
    text = token[:4 * limit + 4].decode("utf-8", "replace")
    return repr(text if len(text) <= limit else text[:limit] + "...")


def folded(data: bytes, case_insensitive: bool) -> bytes:
    """ASCII letters folded to lower case when asked (one copy of the output at most)."""
    return data.lower() if case_insensitive else data


def presentation_or(by_tokens: CheckResult) -> CheckResult:
    """What a strict layout checker says when the layout differs: PE if the tokens still agree."""
    if by_tokens.verdict is Verdict.AC:
        return CheckResult(Verdict.PE, "right tokens, but the whitespace differs")
    return by_tokens
