"""The lexer of a Rust program read as an attacker's text (``signatures`` reads its items): comments
(nested), strings (raw, byte, C), char literals and lifetimes, one token at a time, nothing held."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

MAX_SOURCE = 4 << 20


class Unsupported(Exception):
    """A signature outside the grammar (the reason is the message)."""


class Token(NamedTuple):
    kind: str  # ident, lifetime, literal, punct
    text: str
    start: int
    end: int
    depth: int = 0  # how many brackets of the program enclose it (set by the reader, not the lexer)


# one alternative per kind of lexeme, in the order that decides between them (a raw string before an
# identifier r, a char literal before a lifetime); a string's or comment's end is found apart
_LEXEME = re.compile(r"""
    (?P<space>\s+)
  | (?P<line>//[^\n]*)
  | (?P<block>/\*)
  | (?P<raw>(?:br|cr|r)(?P<hashes>\#*)")
  | (?P<string>[bc]?")
  | (?P<char>b?'(?:[^\\'\n]|\\(?:x[0-9A-Fa-f]{2}|u\{[0-9A-Fa-f_]{1,8}\}|.))')
  | (?P<lifetime>'(?:r\#)?[A-Za-z_][A-Za-z0-9_]*)
  | (?P<ident>(?:r\#)?[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>[0-9][0-9A-Za-z_]*(?:\.[0-9][0-9A-Za-z_]*)?)
  | (?P<punct>::|->|=>|\.\.=|\.\.\.|\.\.|.)
""", re.VERBOSE | re.DOTALL)
_COMMENT_MARK = re.compile(r"/\*|\*/")
_STRING_MARK = re.compile(r'\\.|"', re.DOTALL)


def tokens(source: str) -> Iterator[tuple[str, str, int, int]]:
    """Rust's tokens as (kind, text, start, end), comments dropped, one at a time (the reader keeps only
    what it needs); an unterminated comment, string or char is Unsupported."""
    if len(source) > MAX_SOURCE:
        raise Unsupported("the program is too long")
    i, n = 0, len(source)
    while i < n:
        m = _LEXEME.match(source, i)
        assert m is not None  # its last alternative, any one character, always matches
        kind, start, i = m.lastgroup, i, m.end()
        if kind in ("space", "line"):
            continue
        if kind == "block":
            i = _block_comment(source, start)
        elif kind == "raw":
            close = '"' + m["hashes"]
            end = source.find(close, i)
            if end < 0:
                raise Unsupported("an unterminated raw string")
            i = end + len(close)
            yield "literal", "", start, i
        elif kind == "string":
            i = _quoted(source, i)
            yield "literal", "", start, i
        elif kind == "char":
            yield "literal", "", start, i
        elif kind == "lifetime":
            yield "lifetime", m[0], start, i
        elif kind == "ident":
            yield "ident", m[0].removeprefix("r#"), start, i
        elif kind == "number":
            yield "literal", m[0], start, i
        elif m[0] == "'":
            raise Unsupported("a malformed char literal")
        else:
            yield "punct", m[0], start, i


def _block_comment(source: str, i: int) -> int:
    depth = 0
    for mark in _COMMENT_MARK.finditer(source, i):
        depth += 1 if mark[0] == "/*" else -1
        if depth == 0:
            return mark.end()
    raise Unsupported("an unterminated comment")


def _quoted(source: str, i: int) -> int:
    """The end of a string whose opening quote ends before ``i``."""
    for mark in _STRING_MARK.finditer(source, i):
        if mark[0] == '"':
            return mark.end()
    raise Unsupported("an unterminated string")
