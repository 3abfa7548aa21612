"""A problem's own checker or interactor: the dataset's program, run in the sandbox like a solution.

Two checker conventions:

- ``testlib``: ``checker <input> <output> <answer>`` (any compiled language; C/C++ find ``testlib.h`` in
  the include folder named by ``SandboxConfig(testlib=...)`` or ``$JUDGEBOX_TESTLIB``). Its exit code is
  the verdict: 0 OK, 1 WA, 2 PE, 3 FAIL (the checker says its own inputs are wrong), 7 points (stderr
  begins ``points <value>``).
- ``codeforces-python``: open-r1's Codeforces data, ``python checker.py <input> <expected> <actual>``,
  whose last stdout token is its score: ``1`` accepts, ``0`` rejects (a fraction in between is partial).

An interactor (testlib's ``interactor <input> <output>``, stdin and stdout joined to the solution's) ends
with the same exit codes; ``interactive.py`` runs it.

How a failure of the dataset's program is told apart from a solution that provoked it: see
:func:`checker_verdict` and :func:`blame`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InvalidCases
from ..types import Limits
from ..verdicts import Verdict

__all__ = ["CHECKER_LIMITS", "PROTOCOLS", "CheckerProgram", "Interactor", "ProgramCheck"]

PROTOCOLS = ("testlib", "codeforces-python")
MAX_PROGRAM_BYTES = 4 * 1024 * 1024
MiB = 1024 * 1024
# The checker's own limits, not the solution's: it reads up to the output cap of the solution's output,
# and a 64 MiB output must not make a sane checker fail.
CHECKER_LIMITS = Limits(cpu_time=10, memory_mb=1024, output_bytes=1 * MiB, returned_output_bytes=64 * 1024)


@dataclass(frozen=True, slots=True)
class CheckerProgram:
    """A problem's checker program. ``limits`` are its own (default :data:`CHECKER_LIMITS`)."""

    language: str
    code: str
    protocol: str = "testlib"
    limits: Limits | None = None

    def __post_init__(self) -> None:
        _validate(self, "checker")
        if self.protocol == "codeforces-python" and self.language not in ("python", "python3", "py", "py3"):
            raise InvalidCases(f"a codeforces-python checker is Python, not {self.language!r}")


@dataclass(frozen=True, slots=True)
class Interactor:
    """A problem's interactor (testlib's protocol): it talks to the solution over its stdin and stdout
    and decides the verdict. The solution's time limit covers both."""

    language: str
    code: str
    protocol: str = "testlib"

    def __post_init__(self) -> None:
        _validate(self, "interactor")
        if self.protocol != "testlib":
            raise InvalidCases(f"an interactor speaks testlib's protocol, not {self.protocol!r}")


@dataclass(frozen=True, slots=True)
class ProgramCheck:
    """What a checker or interactor said of one case. ``points`` is its partial score in [0, 1] when it
    gave one (testlib's points, a codeforces-python fraction), else None."""

    verdict: Verdict
    message: str = ""
    points: float | None = None


def _validate(program: CheckerProgram | Interactor, what: str) -> None:
    from .. import languages  # the catalog imports the checkers package

    if not isinstance(program.code, str) or not program.code.strip():
        raise InvalidCases(f"the {what}'s code must be a non-empty string")
    if len(program.code.encode("utf-8", "surrogatepass")) > MAX_PROGRAM_BYTES:
        raise InvalidCases(f"the {what}'s code is over {MAX_PROGRAM_BYTES} bytes")
    if program.protocol not in PROTOCOLS:
        raise InvalidCases(f"unknown {what} protocol {program.protocol!r}; known: {', '.join(PROTOCOLS)}")
    if not isinstance(program.language, str):
        raise InvalidCases(f"the {what}'s language must be a name")
    languages.get(program.language)  # UnknownLanguage otherwise
    limits = getattr(program, "limits", None)
    if limits is not None and not isinstance(limits, Limits):
        raise InvalidCases(f"the {what}'s limits must be a judgebox.Limits")
