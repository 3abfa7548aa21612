"""Assert cases in two processes for languages that run as executables (the tamper-proof harness).

A language with a two-process harness declares ``LanguageSpec.split_asserts``: a function that, given a
:class:`Toolbox`, the program and the tests, builds what each side runs and returns a :class:`SplitBuild`
(a ``SplitCommand`` and the program's artifact, or why it cannot run). The sandbox then runs the program's
side and the tests' side as two processes joined by a channel (see ``sandbox.slot.SplitCommand``): the
program's process never holds the tests, the token or the report, and cannot read or signal the tests'
process; every value crosses the channel as data. The language's harness code (its two sides' programs)
lives beside the language, e.g. ``languages/harnesses/``.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..sandbox.outcome import RunOutcome
from ..sandbox.slot import SplitCommand
from .artifacts import Artifact, ArtifactCache, Build

if TYPE_CHECKING:
    from .spec import LanguageSpec


@dataclass(frozen=True)
class SplitBuild:
    """An assert case ready to run as two processes, or the build's failure."""

    job: SplitCommand | None = None
    program: Artifact | None = None  # fd 5 of both sides
    compile_error: str | None = None
    system_error: str | None = None


@dataclass(frozen=True)
class Toolbox:
    """What a language's split harness may use to prepare its two sides: sandboxed, cached builds
    (``build``), sandboxed runs of a helper program (``submit``, the worker pool's), and the cache itself
    for anything else worth keeping by content (``cache``)."""

    build: Callable[[LanguageSpec, str], Build]  # a spec and a source -> the cached build of that source
    submit: Callable[..., Future[RunOutcome]]
    cache: ArtifactCache
    toolchain_cache: str
