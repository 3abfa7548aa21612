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
import json
import os
import threading
import time
from concurrent.futures import Future
from typing import Any

from . import checkers, languages
from .backends.local import WorkerPool
from .cases import load_cases
from .checkers import CheckResult, values_equal
from .errors import InvalidCases, InvalidInput
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

    def judge(self, code: str, cases: Any, language: str = "python", limits: Limits | None = None,
              checker: str = "tokens", stop_on_first_failure: bool = False) -> JudgeResult:
        """Judge ``code`` on ``cases`` (a list of :class:`Case` or verl's test-case dict)."""
        return self.judge_submission(self.submission(code, cases, language, limits, checker,
                                                     stop_on_first_failure))

    async def judge_async(self, code: str, cases: Any, language: str = "python", limits: Limits | None = None,
                          checker: str = "tokens", stop_on_first_failure: bool = False) -> JudgeResult:
        """The awaitable twin of :meth:`judge`; it waits without occupying a thread."""
        return await self.judge_submission_async(
            self.submission(code, cases, language, limits, checker, stop_on_first_failure))

    async def judge_submission_async(self, submission: Submission) -> JudgeResult:
        started = time.monotonic()
        if languages.get(submission.language).compiled:  # a compiler may run: not on the event loop
            futures = await asyncio.get_running_loop().run_in_executor(None, self.programs.submit, submission)
        else:
            futures = self.programs.submit(submission)
        results: list[CaseResult] = []
        try:
            for case, future in zip(submission.cases, futures):
                result = self._case_result(submission, case, await asyncio.wrap_future(future))
                results.append(result)
                if submission.stop_on_first_failure and not result.passed:
                    break
        finally:
            for future in futures:
                future.cancel()
        return self._fold(submission, results, started)

    def judge_submission(self, submission: Submission) -> JudgeResult:
        started = time.monotonic()
        futures = self.programs.submit(submission)
        results = _collect(futures, submission.stop_on_first_failure, submission, self._case_result)
        return self._fold(submission, results, started)

    @staticmethod
    def submission(code: str, cases: Any, language: str = "python", limits: Limits | None = None,
                   checker: str = "tokens", stop_on_first_failure: bool = False) -> Submission:
        """Validate the caller's input into a :class:`Submission`; raises :class:`InvalidInput`."""
        spec = languages.get(language)
        checkers.get(checker)
        if limits is not None and not isinstance(limits, Limits):
            raise InvalidCases("limits must be a judgebox.Limits")
        submission = Submission(code, load_cases(cases), spec.name, limits or Limits(), checker,
                                bool(stop_on_first_failure))
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
        check = _verdict(submission, case, outcome)
        return CaseResult(
            verdict=check.verdict, cpu_time=outcome.cpu_time, wall_time=outcome.wall_time,
            memory_bytes=outcome.memory_bytes, exit_code=outcome.exit_code, signal=outcome.signal,
            stdout_raw=outcome.stdout, stderr_raw=outcome.stderr, stdout_truncated=outcome.stdout_truncated,
            stderr_truncated=outcome.stderr_truncated, message=check.message)


def _collect(futures: list[Future[RunOutcome]], stop_early: bool, submission: Submission,
             to_result: Any) -> list[CaseResult]:
    results: list[CaseResult] = []
    try:
        for case, future in zip(submission.cases, futures):
            results.append(to_result(submission, case, future.result()))
            if stop_early and not results[-1].passed:
                break
    finally:
        for future in futures:
            future.cancel()
    return results


def _message(results: list[CaseResult]) -> str:
    for result in results:
        if result.verdict in (Verdict.CE, Verdict.SE):
            return result.message
    return ""


def _verdict(submission: Submission, case: Case, outcome: RunOutcome) -> CheckResult:
    """Decide one case. Order matters: judge failures first, then limits, then the answer."""
    if outcome.system_error is not None:
        return CheckResult(Verdict.SE, outcome.system_error)
    if outcome.compile_error is not None:
        return CheckResult(Verdict.CE, outcome.compile_error)
    if outcome.output_limit_exceeded:
        return CheckResult(Verdict.OLE, "output exceeded the limit")
    if outcome.out_of_memory or (outcome.signal is None and b"MemoryError" in outcome.stderr[-4096:]
                                 and outcome.exit_code != 0):
        return CheckResult(Verdict.MLE, "memory limit exceeded")
    if outcome.stopped is not None:
        return CheckResult(Verdict.TLE, f"{'CPU' if outcome.stopped == 'cpu' else 'wall-clock'} time limit exceeded")
    if case.kind == "stdio":
        if not outcome.clean_exit:
            return CheckResult(Verdict.RE, _exit_description(outcome))
        return checkers.get(submission.checker)(outcome.stdout.decode("utf-8", "replace"),
                                                case.expected_output or "")
    if outcome.token_ok:
        if case.kind == "assert":
            return CheckResult(Verdict.AC)
        return _check_value(outcome.harness, case.expected_value)
    if outcome.harness.startswith(b"assertion-failed"):
        return CheckResult(Verdict.WA, "assertion failed")
    if outcome.clean_exit:
        return CheckResult(Verdict.WA, "the program exited before the tests finished")
    return CheckResult(Verdict.RE, _exit_description(outcome))


def _check_value(payload: bytes, expected: Any) -> CheckResult:
    try:
        actual = json.loads(payload)["value"]
    except (ValueError, KeyError, TypeError):
        return CheckResult(Verdict.SE, "the harness sent an unreadable value")
    if isinstance(actual, dict) and set(actual) == {"__repr__"}:
        actual = actual["__repr__"]
    if values_equal(actual, expected):
        return CheckResult(Verdict.AC)
    return CheckResult(Verdict.WA, f"expected {_short(expected)}, got {_short(actual)}")


def _short(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _exit_description(outcome: RunOutcome) -> str:
    if outcome.signal is not None:
        return f"killed by signal {outcome.signal}"
    return f"exit code {outcome.exit_code}"


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
          checker: str = "tokens", stop_on_first_failure: bool = False) -> JudgeResult:
    """Judge ``code`` on ``cases`` with the process-wide default :class:`Judge`."""
    return default_judge().judge(code, cases, language, limits, checker, stop_on_first_failure)


async def judge_async(code: str, cases: Any, language: str = "python", limits: Limits | None = None,
                      checker: str = "tokens", stop_on_first_failure: bool = False) -> JudgeResult:
    """The awaitable twin of :func:`judge`."""
    return await default_judge().judge_async(code, cases, language, limits, checker, stop_on_first_failure)
