"""A problem's own checker or interactor: the records that name one, and how a checker's run is read.

The judge builds and runs them in the sandbox like a solution (``judging/checker_runs.py``).

Two checker conventions:

- ``testlib``: ``checker <input> <output> <answer>`` (any compiled language; C/C++ find ``testlib.h`` in
  the include folder named by ``SandboxConfig(testlib=...)`` or ``$JUDGEBOX_TESTLIB``). Its exit code is
  the verdict: 0 OK, 1 WA, 2 PE, 3 FAIL, 7 points (stderr begins ``points <value>``).
- ``codeforces-python``: open-r1's Codeforces data, ``python checker.py <input> <expected> <actual>``,
  whose last stdout token is its score: ``1`` accepts, ``0`` rejects (a fraction in between is partial).

An interactor (testlib's ``interactor <input> <output>``, stdin and stdout joined to the solution's) ends
with the same exit codes; ``judging/interactive.py`` runs it.

**Whose fault a checker's failure is.** SE (every trainer's "no reward", a masked sample) comes only
from a failure the judge itself observed: a policy must never be able to buy one with its output. testlib's
FAIL is no exception: it is what ``ensuref`` says of a participant's value it rejects, what testlib itself
says of a count the output chose (``readInts(-1)``), and what the "participant beats the jury" idiom says
(``quitf(_fail, ...)`` when the output is better than the jury's answer), so a wrong output can reach it
at will. A FAIL, a crash, a checker's own limits or an answer it does not give (a score outside [0, 1])
are all no verdict, and the checker is run once more with the jury's answer as the output
(``judging/checker_runs.py``, :func:`blame`):

- it judges the jury's answer cleanly (OK, WA, PE or points): the failure came from this output, which is
  WA (score 0), with a message saying so;
- it fails on the jury's answer too: the checker or the case is broken, which the judge saw for itself
  without the solution: SE;
- the judge's own failure on either run (the sandbox, a checker that cannot be built or run here): SE.

The cost, chosen for rewards (the safe side of a reward is 0, never a mask a policy can aim for): a
genuine answer better than the jury's scores 0 (WA), not SE. ``judging/interactive.py`` applies the same rule to
an interactor, which cannot be re-run without the solution.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judgebox import languages
from judgebox.checkers.result import CheckResult
from judgebox.errors import InvalidCases
from judgebox.sandbox.outcome import RunOutcome
from judgebox.types import Limits
from judgebox.verdicts import Verdict

__all__ = ["CHECKER_LIMITS", "PROTOCOLS", "CheckerProgram", "Interactor", "blame", "read_checker_run",
           "verdict_of_testlib"]

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


def _validate(program: CheckerProgram | Interactor, what: str) -> None:
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


# -- reading a checker's run ---------------------------------------------------------------------------------

TESTLIB_VERDICTS = {0: Verdict.AC, 1: Verdict.WA, 2: Verdict.PE, 4: Verdict.PE, 8: Verdict.PE}  # 4: dirt, 8: EOF
TESTLIB_FAIL, TESTLIB_POINTS = 3, 7
MESSAGE_CHARS = 1000
_POINTS = re.compile(r"\s*points\s+(\S+)")


def blame(failure: str, on_answer: CheckResult | str) -> CheckResult:
    """Whose fault a checker's failure is: the output's if the checker judges the expected answer (a
    failure of the judge on that run says nothing, and is SE)."""
    if isinstance(on_answer, CheckResult) and on_answer.verdict is Verdict.SE:
        return on_answer
    if isinstance(on_answer, CheckResult):
        return CheckResult(Verdict.WA, f"the checker failed on this output ({failure}) but judged the expected "
                                       "answer cleanly: the output is to blame")
    return CheckResult(Verdict.SE, f"the checker is broken: {failure}; on the expected answer: {on_answer}")


def read_checker_run(protocol: str, outcome: RunOutcome) -> CheckResult | str:
    """A checker run's verdict, or why it gave none. The judge's own failure is SE at once: it says
    nothing of the checker, nor of the output."""
    if outcome.system_error is not None:
        return CheckResult(Verdict.SE, f"the checker's run failed: {outcome.system_error}")
    if outcome.output_limit_exceeded or outcome.out_of_memory or outcome.stopped is not None:
        which = "output" if outcome.output_limit_exceeded else "memory" if outcome.out_of_memory else "time"
        return f"it exceeded its {which} limit"
    if protocol == "testlib":
        return verdict_of_testlib(outcome.exit_code, outcome.signal, outcome.stderr)
    return _codeforces_python(outcome)


def verdict_of_testlib(exit_code: int | None, signal: int | None, message: bytes) -> CheckResult | str:
    """A testlib program's exit as a verdict (its message is its stderr), or why it is not one: testlib's
    FAIL is no verdict either (whose fault it is, is :func:`blame`'s or the interactor's rule to say)."""
    text = message.decode("utf-8", "replace").strip()[:MESSAGE_CHARS]
    if signal is not None:
        return f"killed by signal {signal}"
    if exit_code in TESTLIB_VERDICTS:
        return CheckResult(TESTLIB_VERDICTS[exit_code], text)
    if exit_code == TESTLIB_FAIL:  # an output can reach it (ensuref, beating the jury): never SE by itself
        return f"it reported FAIL: {text}"
    if exit_code == TESTLIB_POINTS:
        found = _POINTS.match(text)
        return _points(found.group(1) if found else "", text)
    return f"exit code {exit_code}: {text}"


def _codeforces_python(outcome: RunOutcome) -> CheckResult | str:
    if not outcome.clean_exit:
        return f"{'signal ' + str(outcome.signal) if outcome.signal else 'exit code ' + str(outcome.exit_code)}: " \
               + outcome.stderr[-MESSAGE_CHARS:].decode("utf-8", "replace").strip()
    words = outcome.stdout[-256:].split()
    return _points(words[-1].decode("ascii", "replace") if words else "", "")


def _points(token: str, message: str) -> CheckResult | str:
    """A score in [0, 1] as a verdict: 1 is AC, 0 WA, a fraction WA with its points."""
    try:
        points = float(token)
    except ValueError:
        return f"no score in its answer ({token[:40]!r})"
    if not 0.0 <= points <= 1.0:  # also NaN
        return f"a score of {points:g}, outside [0, 1]"
    if points == 1.0:
        return CheckResult(Verdict.AC, message)
    return CheckResult(Verdict.WA, message or f"scored {points:g}", points=points)


