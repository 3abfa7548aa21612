"""What a score run learns from each problem's reference solution before it judges anything: evalplus's
expected values (its canonical solution's returns on the base and plus inputs) and, with ``--calibrate``,
the problem's CPU limit (:meth:`judgebox.tools.calibrate.Calibration.time_limit` of the reference's CPU
time on each case, the rule ``judgebox calibrate`` writes).

Each reference runs once a problem and run, all of them at once, in the sandbox: a dataset's solution is
nobody's here either. An evalplus reference runs as one stdio case an input: its program reads the
arguments as JSON on stdin, calls the entry point with its own output swallowed (as evalplus runs it) and
writes the returned value on stderr in the wire form of a call case's value
(:mod:`judgebox.sandbox.inside.returned`, whose source the program carries), so the expected value is what
a candidate's return is compared with, decoded by the same codec. A problem whose reference does not run
to its end on every case is a bad record saying which case and how: no limit or value is guessed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from judgebox.backend import Backend
from judgebox.judging.cases import MAX_RECORD_BYTES, over_bound
from judgebox.sandbox.inside import returned
from judgebox.tools.calibrate import Calibration
from judgebox.tools.calibrate_data import REFERENCE_LIMITS, reference_submission, references_of
from judgebox.tools.score.formats import BadRecord, Problem
from judgebox.types import Case, JudgeResult, Submission
from judgebox.verdicts import Verdict

# the reference runs under the generous limit calibrate measures under, its values kept up to the bound of a
# record (a value past it could not be test data either)
VALUES_LIMITS = REFERENCE_LIMITS.replace(returned_output_bytes=MAX_RECORD_BYTES)

CALLER = '''
import contextlib as _contextlib
import io as _io
import json as _json
import sys as _sys

_arguments = _json.loads(_sys.stdin.read())
with _contextlib.redirect_stdout(_io.StringIO()), _contextlib.redirect_stderr(_io.StringIO()):
    _namespace = {{}}
    exec({reference!r}, _namespace)
    _value = _namespace[{fn_name!r}](*_arguments)
_sys.stderr.write(dumps(_value).decode())
'''


@dataclass(frozen=True)
class _Run:
    problem: Problem
    submission: Submission


def needs_references(problems: Iterable[Problem | BadRecord], calibration: Calibration | None) -> bool:
    return calibration is not None or any(isinstance(p, Problem) and p.differential for p in problems)


def prepare(problems: list[Problem | BadRecord], backend: Backend, calibration: Calibration | None,
            on_bad: Callable[[BadRecord], None]) -> list[Problem | BadRecord]:
    """The problems, each with what its reference told: evalplus's expected values in its outputs, and,
    given a ``calibration``, its CPU limit (``cpu_time``, in place of any it stated). A problem whose
    reference fails, or that has none to calibrate with, is passed to ``on_bad`` and left out."""
    runs: dict[int, _Run] = {}
    learned: dict[int, Problem | None] = {}  # None: the problem is left out (a bad record, reported)
    for index, problem in enumerate(problems):
        if isinstance(problem, BadRecord) or not (problem.differential or calibration):
            continue
        run = _run(problem)
        if run is None:
            on_bad(BadRecord(problem.where or f"id {problem.id}", "solutions",
                             f"expected a known-right solution in {problem.language} to calibrate its limit"))
            learned[index] = None
        else:
            runs[index] = run
    positions = list(runs)
    for index, result in backend.judge_many([run.submission for run in runs.values()]):
        try:
            learned[positions[index]] = _learned(runs[positions[index]], result, calibration)
        except BadRecord as bad:
            on_bad(bad)
            learned[positions[index]] = None
    return [kept for index, problem in enumerate(problems) if (kept := learned.get(index, problem)) is not None]


def _run(problem: Problem) -> _Run | None:
    if problem.differential is not None:
        cases = [Case.stdio(json.dumps(arguments), "") for arguments in problem.test_cases["inputs"]]
        program = _codec() + CALLER.format(reference=problem.differential.reference,
                                           fn_name=problem.differential.fn_name)
        return _Run(problem, Submission(program, tuple(cases), "python", VALUES_LIMITS))
    references = references_of(problem, problem.language)
    if not references:
        return None
    language, code = references[0]
    return _Run(problem, reference_submission(problem, language, code))


def _learned(run: _Run, result: JudgeResult, calibration: Calibration | None) -> Problem:
    problem = run.problem
    where = problem.where or f"id {problem.id}"
    failing = next((i for i, case in enumerate(result.cases) if case.verdict is not Verdict.AC), None)
    if len(result.cases) != len(run.submission.cases) or failing is not None:
        told = (f"case {failing}: {result.cases[failing].verdict}" if failing is not None
                else f"{result.verdict}: {result.message}")
        stderr = result.cases[failing].stderr_raw.decode("utf-8", "replace").strip() if failing is not None else ""
        raise BadRecord(where, "canonical_solution" if problem.differential else "solutions",
                        f"expected a reference that passes, but it fails {told}"
                        + (f" ({stderr[-300:]})" if stderr else ""))
    cases = dict(problem.test_cases)
    if problem.differential is not None:
        cases["outputs"] = [_expected(case.stderr_raw, case.stderr_truncated, where, n)
                            for n, case in enumerate(result.cases)]
    if calibration is None:
        return replace(problem, test_cases=cases, differential=None)
    cases.pop("time_limit", None)  # the stated limit is the one calibrated anew
    return replace(problem, test_cases=cases, differential=None,
                   cpu_time=calibration.time_limit(case.cpu_time for case in result.cases))


def _expected(payload: bytes, truncated: bool, where: str, index: int) -> Any:
    """The reference's returned value on input ``index``, as test data holds an expected value (text is JSON
    text: the call form reads a string as JSON or a literal, and ``"1"`` must stay a string)."""
    if truncated:
        raise BadRecord(where, "canonical_solution", over_bound(f"its returned value on input {index}"))
    try:
        value = returned.decode(payload)
    except ValueError as exc:
        raise BadRecord(where, "canonical_solution", f"its returned value on input {index} could not be read "
                                                     f"({exc})") from None
    alien = _not_data(value)
    if alien is not None:  # no program's return could equal it: every sample would fail, the right ones too
        raise BadRecord(where, "canonical_solution", f"expected a reference that returns data (lists, tuples, dicts, "
                                                     f"sets, numbers, text), but on input {index} it returned {alien}")
    return json.dumps(value) if isinstance(value, str) else value


def _not_data(value: Any) -> returned.NotData | None:
    """The first object in a decoded value that is not data (a ``collections.Counter``, say), or None."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, returned.NotData):
            return item
        if isinstance(item, (list, tuple, frozenset)):
            pending.extend(item)
        elif isinstance(item, dict):
            pending.extend((*item, *item.values()))
    return None


def _codec() -> str:
    """The returned values' codec, as the reference's program carries it (stdlib only, by its design)."""
    return Path(returned.__file__).read_text(encoding="utf-8")
