"""Whose work is whose: the caller identity every cache of the judge is partitioned by.

What the judge keeps between submissions (judgements by :mod:`judgebox.judging.dedupe`, built programs and
checker builds by :class:`judgebox.languages.artifacts.ArtifactCache`) serves only the caller that
produced it. Shared across callers, a cache tells one caller what another judged, and when (a program that
prints the clock and ``os.urandom`` would hand B A's exact output), and makes one caller wait on work
queued behind another's.

The caller is a context variable, so it follows the request's asyncio task and the threads started with
its context:

- embedded (``import judgebox``), everything this process judges is one caller's: :func:`process_caller`,
  a random identity made once per process;
- ``judgebox serve`` judges each request as the caller it authenticates or declares (its
  ``X-Judgebox-Caller`` header, an unguessable secret the judgebox clients make once per process), and a
  request that declares none as a caller of its own; ``--share-caches`` makes every request one caller, for
  a single-tenant deployment;
- the Ray backend sends its process's identity with every batch, so the node actors shared by name keep
  every driver's caches apart.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from judgebox.errors import InvalidInput

__all__ = ["HEADER", "SHARED", "as_caller", "current_caller", "new_caller", "process_caller", "valid_caller"]

HEADER = "X-Judgebox-Caller"
SHARED = "shared"  # the one caller of a server whose operator turned cache sharing on
_DECLARED = re.compile(r"[A-Za-z0-9_-]{16,128}")  # at least 96 bits of a secret's alphabet

_process = secrets.token_hex(16)
_caller: ContextVar[str | None] = ContextVar("judgebox_caller", default=None)


def new_caller() -> str:
    """A fresh, unguessable caller identity."""
    return secrets.token_hex(16)


def process_caller() -> str:
    """This process's identity: the caller of everything judged here outside :func:`as_caller`, and what
    the judgebox clients declare to a server."""
    return _process


def current_caller() -> str:
    """The caller whose work is being judged here."""
    return _caller.get() or _process


@contextmanager
def as_caller(identity: str) -> Iterator[str]:
    """Work started in this context (and the tasks and context-carrying threads it starts) is ``identity``'s."""
    token = _caller.set(identity)
    try:
        yield identity
    finally:
        _caller.reset(token)


def valid_caller(declared: str) -> str:
    """A declared identity as a caller, or InvalidInput: 16 to 128 characters of ``[A-Za-z0-9_-]``, so a
    short guessable name cannot stand for someone's secret."""
    if not _DECLARED.fullmatch(declared):
        raise InvalidInput(f"{HEADER} must be 16 to 128 characters of letters, digits, '_' and '-' (a secret the "
                           "client makes, such as secrets.token_hex(16))")
    return declared
