"""The one classifier from a run's outcome to its verdict, used by judge(), /judge, /run_code and verl.

Order matters: the judge's own failures first, then the build, then limits, then the answer. Every
input it reads is the judge's own observation (the zygote's reply, the notes of the run's judge code,
a report carrying the run's token), except where a line says otherwise.
"""

from __future__ import annotations

import re
import reprlib
from typing import Any

from judgebox import checkers
from judgebox.checkers import CheckResult
from judgebox.languages.spec import LanguageSpec
from judgebox.sandbox.inside import returned
from judgebox.sandbox.outcome import RunOutcome
from judgebox.types import Case
from judgebox.verdicts import Verdict

RAN = CheckResult(Verdict.AC, "the program ran to its end")  # a run with no expected output (/run_code)
STOPPED = {"cpu": "CPU time limit exceeded", "run": "run time limit exceeded (real time, time waiting for a CPU "
           "not counted)", "wall": "wall-clock time limit exceeded"}  # why the supervisor stopped a run: TLE


def classify(outcome: RunOutcome, spec: LanguageSpec, case: Case | None = None,
             checker: Any = None) -> CheckResult:
    """The verdict of one run; with ``case=None`` (a bare run) a clean exit is :data:`RAN`. ``checker`` is
    any checker setting (:func:`judgebox.checkers.parse`; None: the default)."""
    if outcome.system_error is not None:
        return CheckResult(Verdict.SE, outcome.system_error)
    if outcome.compile_error is not None:
        return CheckResult(Verdict.CE, outcome.compile_error)
    if outcome.output_limit_exceeded or outcome.stopped == "output":
        return CheckResult(Verdict.OLE, "output exceeded the limit")
    if outcome.out_of_memory or _runtime_out_of_memory(outcome, spec):
        return CheckResult(Verdict.MLE, "memory limit exceeded")
    if outcome.stopped is not None:
        return CheckResult(Verdict.TLE, STOPPED[outcome.stopped])
    if case is None:
        return RAN if outcome.clean_exit else CheckResult(Verdict.RE, exit_description(outcome))
    if case.kind == "stdio":
        if not outcome.clean_exit:
            return CheckResult(Verdict.RE, exit_description(outcome))
        return checkers.get(checker)(outcome.stdout, case.expected_output or "")
    if outcome.token_ok:
        if case.kind == "assert":
            return CheckResult(Verdict.AC)
        return _check_value(outcome.harness, case.expected_value, checkers.parse(checker).value)
    if outcome.missing_function:
        return CheckResult(Verdict.RE, f"the program defines no function or Solution method {case.fn_name!r}")
    if outcome.harness.startswith(b"assertion-failed"):  # the message only: no pass without the token
        return CheckResult(Verdict.WA, "assertion failed")
    if outcome.clean_exit:
        return CheckResult(Verdict.WA, "the program exited before the tests finished")
    return CheckResult(Verdict.RE, exit_description(outcome))


def _runtime_out_of_memory(outcome: RunOutcome, spec: LanguageSpec) -> bool:
    """A runtime that reports running out of memory itself (Python's MemoryError under an address-space
    limit, the JVM's OutOfMemoryError), as its language declares it, in the end of its stderr. The program
    could write that line itself, which earns it nothing: MLE scores like RE."""
    if spec.out_of_memory_line is None or outcome.clean_exit or outcome.signal is not None:
        return False
    tail = outcome.stderr[-4096:].decode("utf-8", "replace")
    return re.search(spec.out_of_memory_line, tail, re.MULTILINE) is not None


def _check_value(payload: bytes, expected: Any, compare: checkers.Checker) -> CheckResult:
    """A call case's returned value against the expected one, both in the wire form of returned values
    (a set is not a list, bytes are not text, an object of the program's equals nothing)."""
    try:
        actual = returned.decode(payload)
    except (ValueError, KeyError, TypeError, RecursionError):
        return CheckResult(Verdict.WA, "the returned value could not be read as data")
    if compare(actual, returned.normalize(expected)).verdict is Verdict.AC:
        return CheckResult(Verdict.AC)
    return CheckResult(Verdict.WA, f"expected {_short(expected)}, got {_short(actual)}")


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 200
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxset = _SHORT.maxfrozenset = _SHORT.maxdict = 20
_SHORT.maxlong = 60


def _short(value: Any) -> str:
    """A bounded description of a value (a program's answer may be a list of a million items, or an integer
    past the 4300 digits ``repr`` refuses)."""
    try:
        return _SHORT.repr(value)
    except ValueError:
        return f"<{type(value).__name__} too large to show>"


def exit_description(outcome: RunOutcome) -> str:
    if outcome.signal is not None:
        return f"killed by signal {outcome.signal}"
    return f"exit code {outcome.exit_code}"
