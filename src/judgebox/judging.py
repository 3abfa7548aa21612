"""The judge: run every case of a submission in the sandbox, check each, fold into a JudgeResult.

Example::

    >>> import judgebox
    >>> result = judgebox.judge("print(sum(map(int, input().split())))",
    ...                         [judgebox.Case.stdio("1 2\\n", "3\\n")])
    >>> result.verdict, result.score
    (<Verdict.AC: 'AC'>, 1.0)
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import os
import threading
import time
import weakref
from concurrent.futures import Future
from typing import Any

from . import checkers, languages
from .backends.local import WorkerPool
from .cases import load_problem
from .checkers import CheckResult
from .classify import classify
from .errors import InvalidCases, InvalidInput, UnknownChecker
from .problem_programs import Check, ProblemPrograms
from .programs import Programs
from .sandbox.config import SandboxConfig
from .sandbox.outcome import RunOutcome
from .types import Case, CaseResult, JudgeResult, Limits, Submission
from .verdicts import Verdict


class Judge:
    """Owns a pool of sandbox slots; safe to call from many threads at once.

    ``Judge()`` starts one slot per core and raises :class:`judgebox.IsolationUnavailable` if this
    machine cannot give the required isolation. Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, config: SandboxConfig | None = None, slots: int | None = None) -> None:
        self.config = config or SandboxConfig()
        self.pool = WorkerPool(self.config, slots)
        self.programs = Programs(self.pool, self.config.cache_dir)
        self.problem_programs = ProblemPrograms(self.programs)

    def judge(self, code: str, cases: Any, language: str = "python", limits: Limits | None = None,
              checker: Any = None, stop_on_first_failure: bool = False) -> JudgeResult:
        """Judge ``code`` on ``cases`` (a list of :class:`Case` or verl's test-case dict)."""
        return self.judge_submission(self.submission(code, cases, language, limits, checker,
                                                     stop_on_first_failure))

    async def judge_async(self, code: str, cases: Any, language: str = "python", limits: Limits | None = None,
                          checker: Any = None, stop_on_first_failure: bool = False) -> JudgeResult:
        """The awaitable twin of :meth:`judge`; it waits without occupying a thread."""
        return await self.judge_submission_async(
            self.submission(code, cases, language, limits, checker, stop_on_first_failure))

    async def judge_submission_async(self, submission: Submission) -> JudgeResult:
        started = time.monotonic()
        if languages.get(submission.language).compiled or ProblemPrograms.needs_building(submission):
            # a compiler may run: not on the event loop
            runs, check = await asyncio.get_running_loop().run_in_executor(None, self._start, submission)
        else:
            runs, check = self._start(submission)
        judged, pending = self._judged_as_they_end(submission, runs, check)
        del runs
        results: list[CaseResult] = []
        try:
            for future in judged:
                results.append(await asyncio.wrap_future(future))
                if submission.stop_on_first_failure and not results[-1].passed:
                    break
        finally:
            _cancel(pending)
        return self._fold(submission, results, started)

    def judge_submission(self, submission: Submission) -> JudgeResult:
        started = time.monotonic()
        judged, pending = self._judged_as_they_end(submission, *self._start(submission))
        results: list[CaseResult] = []
        try:
            for future in judged:
                results.append(future.result())
                if submission.stop_on_first_failure and not results[-1].passed:
                    break
        finally:
            _cancel(pending)
        return self._fold(submission, results, started)

    def _start(self, submission: Submission) -> tuple[list[Future[RunOutcome]], Check | None]:
        """Queue every case (building first where needed), and say how a problem's own programs check them."""
        plan = self.problem_programs.plan(submission)
        return (plan.runs if plan.runs is not None else self.programs.submit(submission)), plan.check

    def _judged_as_they_end(self, submission: Submission, runs: list[Future[RunOutcome]], check: Check | None
                            ) -> tuple[list[Future[CaseResult]], list[weakref.ref[Future[RunOutcome]]]]:
        """Each run's result, judged the moment it ends: a run's outcome holds up to the output cap of
        stdout, its result at most the returned bound, so a submission whose later cases end first holds
        results, not outcomes. The runs are only weakly held (to cancel those not started)."""
        judged: list[Future[CaseResult]] = []
        for case, run in zip(submission.cases, runs):
            result: Future[CaseResult] = Future()
            run.add_done_callback(functools.partial(self._settle, result, submission, case, check))
            judged.append(result)
        return judged, [weakref.ref(run) for run in runs]

    def _settle(self, result: Future[CaseResult], submission: Submission, case: Case, check: Check | None,
                run: Future[RunOutcome]) -> None:
        if run.cancelled():
            result.cancel()
            return
        try:
            outcome = run.result()
            checked = check(case, outcome) if check is not None else None
            if checked is None:
                result.set_result(self._case_result(submission, case, outcome))
                return
            checked.add_done_callback(functools.partial(_settle_checked, result, case, outcome,
                                                        case.limits or submission.limits))
        except BaseException as exc:  # an unexpected failure of the judge reaches the caller, never lost
            result.set_exception(exc)

    @staticmethod
    def submission(code: str, cases: Any, language: str = "python", limits: Limits | None = None,
                   checker: Any = None, stop_on_first_failure: bool = False) -> Submission:
        """Validate the caller's input into a :class:`Submission`; raises :class:`InvalidInput`.

        ``checker`` is any checker setting (:func:`judgebox.checkers.parse`), None for the default
        (``float`` for stdout, ``value`` for call results: the ``judgebox`` preset's). The test data's own
        settings win over the caller's: its ``checker`` replaces the part of the checking it is about, its
        ``time_limit``/``memory_limit`` the CPU and memory limits."""
        spec = languages.get(language)
        if limits is not None and not isinstance(limits, Limits):
            raise InvalidCases("limits must be a judgebox.Limits")
        problem = load_problem(cases)
        checking = checkers.parse(problem.checker, checkers.parse(checker))
        _refuse_programs(checking, problem.interactor, problem.cases)
        submission = Submission(code, problem.cases, spec.name, problem.limits(limits or Limits()), checking,
                                bool(stop_on_first_failure), problem.interactor)
        Programs.check(submission)
        return submission

    def isolation(self) -> dict[str, object]:
        return dict(self.pool.layers)

    def close(self) -> None:
        self.pool.close()

    def __enter__(self) -> Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals ------------------------------------------------------------------------------------

    def _fold(self, submission: Submission, results: list[CaseResult], started: float) -> JudgeResult:
        return JudgeResult.fold(results, len(submission.cases), time.monotonic() - started, _message(results))

    @staticmethod
    def _case_result(submission: Submission, case: Case, outcome: RunOutcome) -> CaseResult:
        check = classify(outcome, languages.get(submission.language), case, submission.checker)
        return case_result(_with_file_hint(check, case, outcome), outcome, case.limits or submission.limits)


def _refuse_programs(checking: checkers.Checking, interactor: Any, cases: tuple[Case, ...]) -> None:
    """An interactive problem's verdict is its interactor's, on stdin/stdout cases: a checker program beside
    it, or cases of another kind, are refused before anything runs."""
    if interactor is None:
        return
    if isinstance(checking.output, checkers.CheckerProgram):
        raise UnknownChecker("an interactive problem is judged by its interactor; it takes no checker program")
    if any(case.kind != "stdio" for case in cases):
        raise InvalidCases("an interactive problem's cases are inputs for its interactor (stdio cases)")
    if any(case.io == "file" for case in cases):
        raise InvalidCases("an interactive problem talks on stdin and stdout: it has no input_mode \"file\"")


def _settle_checked(result: Future[CaseResult], case: Case, outcome: RunOutcome, limits: Limits,
                    checked: Future[CheckResult]) -> None:
    """A case checked by the problem's own program: its result once that program has spoken."""
    if checked.cancelled():
        result.cancel()
        return
    try:
        result.set_result(case_result(_with_file_hint(checked.result(), case, outcome), outcome, limits))
    except BaseException as exc:
        result.set_exception(exc)


def _with_file_hint(check: CheckResult, case: Case, outcome: RunOutcome) -> CheckResult:
    """A file-mode case judged wrong on no output says where the output was looked for: a program that
    printed its answer, or wrote no output.txt, reads "expected 1 tokens, got 0" otherwise."""
    if case.io != "file" or check.verdict is not Verdict.WA or outcome.stdout_length:
        return check
    return dataclasses.replace(check, message=f"{check.message} (output.txt is missing or empty; in file mode "
                                              "stdout is not judged)".lstrip())


def case_result(check: CheckResult, outcome: RunOutcome, limits: Limits) -> CaseResult:
    """What a caller gets back of a run: its verdict and figures, and its output up to the returned bound
    (the rest, up to the output cap, was read only to be checked)."""
    keep = limits.returned_output_bytes
    return CaseResult(
        verdict=check.verdict, cpu_time=outcome.cpu_time, wall_time=outcome.wall_time,
        memory_bytes=outcome.memory_bytes, exit_code=outcome.exit_code, signal=outcome.signal,
        stdout_raw=outcome.stdout[:keep], stderr_raw=outcome.stderr[:keep], stdout_length=outcome.stdout_length,
        stderr_length=outcome.stderr_length, message=check.message, points=check.points)


def _cancel(runs: list[weakref.ref[Future[RunOutcome]]]) -> None:
    for ref in runs:
        run = ref()
        if run is not None:
            run.cancel()


def _message(results: list[CaseResult]) -> str:
    for result in results:
        if result.verdict in (Verdict.CE, Verdict.SE):
            return result.message
    return ""


# -- the process-wide default judge used by judgebox.judge() ------------------------------------------

_default: Judge | None = None
_default_lock = threading.Lock()


def default_judge() -> Judge:
    """The process-wide judge: one slot per core, or ``$JUDGEBOX_SLOTS`` (several processes on one machine
    each judging embedded, such as verl's reward workers, can share the cores out this way; or share one
    ``judgebox serve``)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Judge(slots=_slots_from_environment())
            import atexit

            atexit.register(_default.close)
        return _default


def _slots_from_environment() -> int | None:
    text = os.environ.get("JUDGEBOX_SLOTS", "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise InvalidInput(f"JUDGEBOX_SLOTS must be a positive whole number, got {text!r}")
    return int(text)


def judge(code: str, cases: Any, language: str = "python", limits: Limits | None = None,
          checker: Any = None, stop_on_first_failure: bool = False) -> JudgeResult:
    """Judge ``code`` on ``cases`` with the process-wide default :class:`Judge`."""
    return default_judge().judge(code, cases, language, limits, checker, stop_on_first_failure)


async def judge_async(code: str, cases: Any, language: str = "python", limits: Limits | None = None,
                      checker: Any = None, stop_on_first_failure: bool = False) -> JudgeResult:
    """The awaitable twin of :func:`judge`."""
    return await default_judge().judge_async(code, cases, language, limits, checker, stop_on_first_failure)
